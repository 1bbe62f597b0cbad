package stripesync

import (
	"context"
	"errors"
	"log/slog"
	"maps"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/stripesource"
)

// attributes sets a customer's custom attributes from its Stripe metadata: each key a
// String attribute (defined as such for the account when it is new); a key the account
// defined with another type, or one the attributes cannot hold, is logged and left out.
// A key removed in Stripe goes only while the customer still holds the value Stripe
// had: the attribute is this source's, not one set since through the API or another
// source. changed is the customer's uuid when its attributes changed.
func (a *applying) attributes(ctx context.Context, ca stripesource.CustomerAttributes) (changed string, err error) {
	for _, k := range ca.Refused {
		a.refusedAttribute(ctx, ca.CustomerExternalID, k, "the key or its value does not fit a custom attribute")
	}
	if len(ca.Set)+len(ca.Removed) == 0 {
		return "", nil
	}
	set, err := a.stringAttributes(ctx, ca)
	if err != nil {
		return "", err
	}
	uuid, err := a.Store.CustomerUUIDByExternalID(ctx, a.conn.AccountID, a.conn.DataSourceUUID, ca.CustomerExternalID)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	saved, err := a.changeCustomer(ctx, uuid, "its attributes were set", func(c model.Customer) (model.Customer, bool) {
		next := c
		next.Custom = maps.Clone(c.Custom)
		if next.Custom == nil {
			next.Custom = map[string]model.AttrValue{}
		}
		maps.Copy(next.Custom, set)
		for k, was := range ca.Removed {
			if _, kept := set[k]; !kept && next.Custom[k] == was {
				delete(next.Custom, k)
			}
		}
		return next, !maps.Equal(c.Custom, next.Custom)
	})
	if err != nil || !saved {
		return "", err
	}
	return uuid, nil
}

// stringAttributes are the values of ca.Set whose keys are (or are now) String
// attributes of the account.
func (a *applying) stringAttributes(ctx context.Context, ca stripesource.CustomerAttributes) (map[string]model.AttrValue, error) {
	defs, err := a.Store.AttrDefinitions(ctx, a.conn.AccountID, model.AttrObjectCustomer)
	if err != nil {
		return nil, err
	}
	out := map[string]model.AttrValue{}
	for k, v := range ca.Set {
		def, ok := defs[k]
		if !ok {
			if def, err = a.Store.DefineAttribute(ctx, model.AttrDefinition{AccountID: a.conn.AccountID,
				Object: model.AttrObjectCustomer, Key: k, Type: model.AttrString}); err != nil {
				return nil, err
			}
		}
		if def.Type != model.AttrString {
			a.refusedAttribute(ctx, ca.CustomerExternalID, k, "the account defines it as "+string(def.Type))
			continue
		}
		out[k] = v
	}
	return out, nil
}

func (a *applying) refusedAttribute(ctx context.Context, customerID, key, reason string) {
	slog.WarnContext(ctx, "stripe metadata not kept as a custom attribute", "account_id", a.conn.AccountID,
		"data_source_uuid", a.conn.DataSourceUUID, "customer", customerID, "key", key, "reason", reason)
}
