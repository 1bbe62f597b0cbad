package keys_test

import (
	"testing"

	"github.com/subsight/subsight/shared/keys"
)

// TestPositionOwnedBy: a listing position names only the account's partitions, in the
// base table, an index or a position of a listing that is not one query.
func TestPositionOwnedBy(t *testing.T) {
	mine, theirs := keys.Customer("acc_1", "cus_1"), keys.Customer("acc_2", "cus_2")
	tests := []struct {
		name     string
		position map[string]string
		want     bool
	}{
		{"a customer listing key", map[string]string{keys.PK: mine.PK, keys.SK: mine.SK,
			keys.GSI1PK: keys.CustomerList("acc_1", 1), keys.GSI1SK: keys.CustomerOrder(1)}, true},
		{"an invoice position", map[string]string{"cu": "cus_1", "after": "inv_1", "d": "1700000000", "c.PK": mine.PK}, true},
		{"no partition", map[string]string{"after": "sub_1", "t": "1700000000000000000"}, true},
		{"another account's partition", map[string]string{keys.PK: theirs.PK, keys.SK: theirs.SK}, false},
		{"another account's index partition", map[string]string{keys.PK: mine.PK, keys.GSI1PK: keys.CustomerList("acc_2", 1)}, false},
		{"another account's customer in an invoice position", map[string]string{"cu": "cus_2", "d": "1", "c.PK": theirs.PK}, false},
		{"an account whose id starts like this one", map[string]string{keys.PK: keys.Customer("acc_10", "cus_1").PK}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := keys.PositionOwnedBy(tt.position, "acc_1"); got != tt.want {
				t.Fatalf("PositionOwnedBy = %v, want %v", got, tt.want)
			}
		})
	}
}
