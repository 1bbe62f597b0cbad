package store_test

import (
	"testing"

	"github.com/subsight/subsight/shared/store"
)

// TestPageTokenWellFormed: a token's positions are numbers where the listing reads
// numbers, and a subscription position names its subscription; anything else is
// refused before it reaches a query.
func TestPageTokenWellFormed(t *testing.T) {
	tests := []struct {
		name  string
		token store.PageToken
		want  bool
	}{
		{"key attributes only", store.PageToken{"PK": "acc_1#cus_1", "SK": "CUSTOMER"}, true},
		{"an invoice position", store.PageToken{"cu": "cus_1", "after": "inv_1", "d": "1700000000", "c.PK": "acc_1#cus_1"}, true},
		{"a subscription position", store.PageToken{"after": "sub_1", "t": "1700000000000000000"}, true},
		{"an offset", store.PageToken{"o": "3"}, true},
		{"a date that is no number", store.PageToken{"cu": "cus_1", "after": "inv_1", "d": "soon"}, false},
		{"a negative offset", store.PageToken{"o": "-1"}, false},
		{"a subscription position without its subscription", store.PageToken{"t": "1"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.token.WellFormed(); got != tt.want {
				t.Fatalf("WellFormed = %v, want %v", got, tt.want)
			}
		})
	}
}
