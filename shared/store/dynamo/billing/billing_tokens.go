package billing

import (
	"strconv"
	"strings"

	"github.com/subsight/subsight/shared/store"
)

// The page tokens of the invoice and subscription listings, which continue after a
// position of their own rather than after an item's key (table.TokenOf).

// invoiceToken is the token of an invoice listing position; nil for none.
func invoiceToken(at *invoicePosition) store.PageToken {
	if at == nil {
		return nil
	}
	t := store.PageToken{store.TokenCustomer: at.customerUUID, store.TokenAfter: at.uuid, store.TokenDate: strconv.FormatInt(at.date, 10)}
	for name, v := range at.customerKey {
		t[store.TokenCustomerAt+name] = v
	}
	return t
}

// invoicePositionOf reads an invoice listing position (nil: the first page).
func invoicePositionOf(t store.PageToken) (*invoicePosition, error) {
	if t == nil {
		return nil, nil
	}
	date, err := strconv.ParseInt(t[store.TokenDate], 10, 64)
	if err != nil {
		return nil, store.ErrInvalidToken
	}
	at := &invoicePosition{customerUUID: t[store.TokenCustomer], uuid: t[store.TokenAfter], date: date}
	for name, v := range t {
		if rest, ok := strings.CutPrefix(name, store.TokenCustomerAt); ok {
			if at.customerKey == nil {
				at.customerKey = store.PageToken{}
			}
			at.customerKey[rest] = v
		}
	}
	return at, nil
}

// subscriptionToken is the token after a subscription created at nanos.
func subscriptionToken(uuid string, created int64) store.PageToken {
	return store.PageToken{store.TokenAfter: uuid, store.TokenCreated: strconv.FormatInt(created, 10)}
}

// subscriptionPositionOf reads a subscription listing position: ok false for the first page.
func subscriptionPositionOf(t store.PageToken) (uuid string, created int64, ok bool, err error) {
	if t == nil {
		return "", 0, false, nil
	}
	created, err = strconv.ParseInt(t[store.TokenCreated], 10, 64)
	if err != nil || t[store.TokenAfter] == "" {
		return "", 0, false, store.ErrInvalidToken
	}
	return t[store.TokenAfter], created, true, nil
}
