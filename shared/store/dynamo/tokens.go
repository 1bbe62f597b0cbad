package dynamo

import (
	"errors"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/subsight/subsight/shared/store"
)

// Page tokens: the one place they are made and read.

// tokenOf is the token of a listing position: the key of the item it ends at (every
// key attribute of the table and its indexes is a string).
func tokenOf(key map[string]types.AttributeValue) (store.PageToken, error) {
	if len(key) == 0 {
		return nil, nil
	}
	t := make(store.PageToken, len(key))
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
func (q listQuery) startKey(t store.PageToken) (map[string]types.AttributeValue, error) {
	if t == nil {
		return nil, nil
	}
	if len(t) != len(q.keyNames) || t[q.partitionAttr()] != q.partition() {
		return nil, store.ErrInvalidToken
	}
	key := make(map[string]types.AttributeValue, len(t))
	for _, name := range q.keyNames {
		v, ok := t[name]
		if !ok {
			return nil, store.ErrInvalidToken
		}
		key[name] = sAttr(v)
	}
	return key, nil
}

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
