package store

import (
	"errors"
	"strconv"
)

// PageToken is where a listing continues: made and read by the storage implementation
// only, opaque to everyone else (the API signs it into a cursor, package cursor, and
// hands it back unchanged). A nil token starts a listing at its beginning.
//
// A token holds key attributes of the table (names from package keys, whose
// PositionOwnedBy refuses a token that points outside an account) and, for the listings
// that are not one query, the positions named below, which WellFormed checks.
type PageToken map[string]string

// Positions of the listings that are not one query (invoices, a customer's
// subscriptions) in a token: TokenCustomerAt + the customer listing's key attributes,
// TokenCustomer the customer, TokenAfter the last item read, TokenDate (invoice date,
// Unix seconds) or TokenCreated (subscription creation time, Unix nanoseconds) its
// place in the order. A listing kept in one item (a plan group's plans) holds how many
// entries it has passed in TokenOffset.
const (
	TokenCustomer   = "cu"
	TokenAfter      = "after"
	TokenDate       = "d"
	TokenCreated    = "t"
	TokenCustomerAt = "c."
	TokenOffset     = "o"
)

// ErrInvalidToken is a page token that the store did not make for this listing.
var ErrInvalidToken = errors.New("invalid page token")

// WellFormed reports whether the positions a token holds are well formed.
func (t PageToken) WellFormed() bool {
	if d, ok := t[TokenDate]; ok {
		if _, err := strconv.ParseInt(d, 10, 64); err != nil {
			return false
		}
	}
	if o, ok := t[TokenOffset]; ok {
		if n, err := strconv.Atoi(o); err != nil || n < 0 {
			return false
		}
	}
	if c, ok := t[TokenCreated]; ok {
		if _, err := strconv.ParseInt(c, 10, 64); err != nil || t[TokenAfter] == "" {
			return false
		}
	}
	return true
}
