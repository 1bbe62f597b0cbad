package store

import (
	"errors"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
)

// Page tokens: the one place they are made and read.

// PageToken is where a listing continues: made and read by the store only, opaque to
// everyone else (the API signs it into a cursor, package cursor, and hands it back
// unchanged). A nil token starts a listing at its beginning.
type PageToken map[string]string

// ErrInvalidToken is a page token that the store did not make for this listing.
var ErrInvalidToken = errors.New("invalid page token")

// OwnedBy reports whether every partition a token names belongs to the account (a
// signed cursor is checked again here: a token can never move a query to another
// account's partition) and its positions are well formed.
func (t PageToken) OwnedBy(accountID string) bool {
	for name, v := range t {
		if strings.HasSuffix(name, keys.PK) && !keys.OwnedBy(v, accountID) {
			return false
		}
	}
	return wellFormed(t)
}

// tokenOf is the token of a listing position: the key of the item it ends at (every
// key attribute of the table and its indexes is a string).
func tokenOf(key map[string]types.AttributeValue) (PageToken, error) {
	if len(key) == 0 {
		return nil, nil
	}
	t := make(PageToken, len(key))
	for name, v := range key {
		sv, ok := v.(*types.AttributeValueMemberS)
		if !ok {
			return nil, errors.New("store: non-string key attribute " + name)
		}
		t[name] = sv.Value
	}
	return t, nil
}

// startKey is the ExclusiveStartKey that a token of listing q stands for: nil for the
// first page, ErrInvalidToken when the token is not a position of q's partition.
func (q listQuery) startKey(t PageToken) (map[string]types.AttributeValue, error) {
	if t == nil {
		return nil, nil
	}
	if len(t) != len(q.keyNames) || t[q.partitionAttr()] != q.partition() {
		return nil, ErrInvalidToken
	}
	key := make(map[string]types.AttributeValue, len(t))
	for _, name := range q.keyNames {
		v, ok := t[name]
		if !ok {
			return nil, ErrInvalidToken
		}
		key[name] = sAttr(v)
	}
	return key, nil
}

// Positions of the listings that are not one Query (invoices, a customer's
// subscriptions) in a token: "c." + the customer listing's key attributes, "cu" the
// customer, "after" the last item read, "d" (invoice date) or "t" (subscription
// creation time) its place in the order.
const (
	tokCustomer   = "cu"
	tokAfter      = "after"
	tokDate       = "d"
	tokCreated    = "t"
	tokCustomerAt = "c."
	tokOffset     = "o"
)

// wellFormed checks the positions a token holds.
func wellFormed(t PageToken) bool {
	if d, ok := t[tokDate]; ok {
		if _, err := strconv.ParseInt(d, 10, 64); err != nil {
			return false
		}
	}
	if c, ok := t[tokCreated]; ok {
		if _, err := strconv.ParseInt(c, 10, 64); err != nil || t[tokAfter] == "" {
			return false
		}
	}
	return true
}

// invoiceToken is the token of an invoice listing position; nil for none.
func invoiceToken(at *invoicePosition) PageToken {
	if at == nil {
		return nil
	}
	t := PageToken{tokCustomer: at.customerUUID, tokAfter: at.uuid, tokDate: strconv.FormatInt(at.date, 10)}
	for name, v := range at.customerKey {
		t[tokCustomerAt+name] = v
	}
	return t
}

// invoicePositionOf reads an invoice listing position (nil: the first page).
func invoicePositionOf(t PageToken) (*invoicePosition, error) {
	if t == nil {
		return nil, nil
	}
	date, err := strconv.ParseInt(t[tokDate], 10, 64)
	if err != nil {
		return nil, ErrInvalidToken
	}
	at := &invoicePosition{customerUUID: t[tokCustomer], uuid: t[tokAfter], date: date}
	for name, v := range t {
		if rest, ok := strings.CutPrefix(name, tokCustomerAt); ok {
			if at.customerKey == nil {
				at.customerKey = PageToken{}
			}
			at.customerKey[rest] = v
		}
	}
	return at, nil
}

// subscriptionToken is the token after a subscription created at nanos.
func subscriptionToken(uuid string, created int64) PageToken {
	return PageToken{tokAfter: uuid, tokCreated: strconv.FormatInt(created, 10)}
}

// subscriptionPositionOf reads a subscription listing position: ok false for the first page.
func subscriptionPositionOf(t PageToken) (uuid string, created int64, ok bool, err error) {
	if t == nil {
		return "", 0, false, nil
	}
	created, err = strconv.ParseInt(t[tokCreated], 10, 64)
	if err != nil || t[tokAfter] == "" {
		return "", 0, false, ErrInvalidToken
	}
	return t[tokAfter], created, true, nil
}
