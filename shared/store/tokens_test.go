package store_test

import (
	"testing"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/store"
)

// TestPageTokenOwnedBy: a token names only the account's partitions and well-formed
// positions; anything else is refused before it reaches a query.
func TestPageTokenOwnedBy(t *testing.T) {
	mine, theirs := keys.Customer("acc_1", "cus_1"), keys.Customer("acc_2", "cus_2")
	tests := []struct {
		name  string
		token store.PageToken
		want  bool
	}{
		{"a customer listing key", store.PageToken{keys.PK: mine.PK, keys.SK: mine.SK,
			keys.GSI1PK: keys.CustomerList("acc_1", 1), keys.GSI1SK: keys.CustomerOrder(1)}, true},
		{"an invoice position", store.PageToken{"cu": "cus_1", "after": "inv_1", "d": "1700000000", "c.PK": mine.PK}, true},
		{"a subscription position", store.PageToken{"after": "sub_1", "t": "1700000000000000000"}, true},
		{"another account's partition", store.PageToken{keys.PK: theirs.PK, keys.SK: theirs.SK}, false},
		{"another account's index partition", store.PageToken{keys.PK: mine.PK, keys.GSI1PK: keys.CustomerList("acc_2", 1)}, false},
		{"another account's customer in an invoice position", store.PageToken{"cu": "cus_2", "d": "1", "c.PK": theirs.PK}, false},
		{"an account whose id starts like this one", store.PageToken{keys.PK: keys.Customer("acc_10", "cus_1").PK}, false},
		{"a date that is no number", store.PageToken{"cu": "cus_1", "after": "inv_1", "d": "soon"}, false},
		{"a subscription position without its subscription", store.PageToken{"t": "1"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.token.OwnedBy("acc_1"); got != tt.want {
				t.Fatalf("OwnedBy = %v, want %v", got, tt.want)
			}
		})
	}
}
