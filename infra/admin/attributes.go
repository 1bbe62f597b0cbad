package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/subsight/subsight/shared/model"
)

// defineAttribute defines a custom attribute key for an account's contacts or
// customers. Contact keys can only be defined here; customer keys are also defined
// by the API on first use.
func defineAttribute(ctx context.Context, e env, args []string) error {
	fs := newFlags("define-attribute")
	account := fs.String("account", "", "account id")
	object := fs.String("object", model.AttrObjectContact, "contact or customer")
	key := fs.String("key", "", "attribute key (letters, digits, underscores)")
	typ := fs.String("type", "", "String, Integer, Decimal, Timestamp or Boolean")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if _, err := requireAccount(ctx, e, *account); err != nil {
		return err
	}
	if !slices.Contains([]string{model.AttrObjectContact, model.AttrObjectCustomer}, *object) {
		return fmt.Errorf("-object must be contact or customer, not %q", *object)
	}
	if !model.ValidAttrKey(*key) {
		return fmt.Errorf("-key %q must be letters, digits and underscores", *key)
	}
	t, ok := model.ParseAttrType(*typ)
	if !ok {
		names := make([]string, len(model.AttrTypes))
		for i, at := range model.AttrTypes {
			names[i] = string(at)
		}
		return fmt.Errorf("-type %q must be one of %s", *typ, strings.Join(names, ", "))
	}
	def, err := e.store.DefineAttribute(ctx, model.AttrDefinition{AccountID: *account, Object: *object, Key: *key, Type: t})
	if err != nil {
		return err
	}
	if def.Type != t {
		return fmt.Errorf("%s attribute %q is already defined with type %s", *object, *key, def.Type)
	}
	return printJSON(e.stdout, map[string]string{"account_id": *account, "object": def.Object, "key": def.Key, "type": string(def.Type)})
}
