package crm

import (
	"context"
	"errors"
	"time"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

type attrDefinitionItem struct {
	PK        string    `dynamodbav:"PK"`
	SK        string    `dynamodbav:"SK"`
	ET        string    `dynamodbav:"et"`
	AccountID string    `dynamodbav:"account_id"`
	Object    string    `dynamodbav:"object"`
	Key       string    `dynamodbav:"key"`
	Type      string    `dynamodbav:"type"`
	CreatedAt time.Time `dynamodbav:"created_at"`
}

func (it attrDefinitionItem) definition() model.AttrDefinition {
	return model.AttrDefinition{AccountID: it.AccountID, Object: it.Object, Key: it.Key,
		Type: model.AttrType(it.Type), CreatedAt: it.CreatedAt}
}

// DefineAttribute defines a custom attribute key unless it is defined already, by a
// conditional write, and returns the definition in force (the existing one when the
// key was defined before, possibly with another type).
func (s *Store) DefineAttribute(ctx context.Context, d model.AttrDefinition) (model.AttrDefinition, error) {
	if d.CreatedAt.IsZero() {
		d.CreatedAt = s.t.Now()
	}
	k := keys.AttrDefinition(d.AccountID, d.Object, d.Key)
	err := s.t.PutNew(ctx, attrDefinitionItem{PK: k.PK, SK: k.SK, ET: keys.TypeAttrDefinition,
		AccountID: d.AccountID, Object: d.Object, Key: d.Key, Type: string(d.Type), CreatedAt: d.CreatedAt})
	if err == nil {
		return d, nil
	}
	if !errors.Is(err, store.ErrConflict) {
		return model.AttrDefinition{}, err
	}
	return table.GetOne(ctx, s.t, k, func(it attrDefinitionItem) model.AttrDefinition { return it.definition() })
}

// AttrDefinitions returns the account's definitions for an object type, by key.
func (s *Store) AttrDefinitions(ctx context.Context, accountID, object string) (map[string]model.AttrDefinition, error) {
	var items []attrDefinitionItem
	if err := s.t.QueryPrefix(ctx, keys.AccountPartition(accountID), keys.AttrDefinitionPrefix(object), &items); err != nil {
		return nil, err
	}
	out := make(map[string]model.AttrDefinition, len(items))
	for _, it := range items {
		out[it.Key] = it.definition()
	}
	return out, nil
}
