package table

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/store"
)

// Page tokens of listings that continue after an item's key, made and read only
// here (the invoice and subscription listings continue after positions of their own).

// TokenOf is the token of a listing position: the key of the item it ends at (every
// key attribute of the table and its indexes is a string).
func TokenOf(key map[string]types.AttributeValue) (store.PageToken, error) {
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
func (q ListQuery) startKey(t store.PageToken) (map[string]types.AttributeValue, error) {
	if t == nil {
		return nil, nil
	}
	if len(t) != len(q.KeyNames) || t[q.partitionAttr()] != q.partition() {
		return nil, store.ErrInvalidToken
	}
	key := make(map[string]types.AttributeValue, len(t))
	for _, name := range q.KeyNames {
		v, ok := t[name]
		if !ok {
			return nil, store.ErrInvalidToken
		}
		key[name] = SAttr(v)
	}
	return key, nil
}
