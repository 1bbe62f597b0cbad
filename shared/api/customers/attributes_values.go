package customers

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"strings"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/model"
)

// typedAttr is one entry of the POST attributes/custom array (and of customer create).
type typedAttr struct {
	Type   string          `json:"type"`
	Key    string          `json:"key"`
	Value  json.RawMessage `json:"value"`
	Source string          `json:"source"`
}

// keyedAttr is one entry of the contact custom array.
type keyedAttr struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

// decodeValue reads a raw JSON value keeping numbers exact; a {"value":…,"source":…}
// wrapper (allowed on customer updates) is unwrapped.
func decodeValue(raw json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if m, ok := v.(map[string]any); ok {
		inner, has := m["value"]
		if !has {
			return nil, apperr.Unprocessable("custom", "A custom attribute value must be a string, number, boolean or timestamp")
		}
		return inner, nil
	}
	if _, ok := v.([]any); ok {
		return nil, apperr.Unprocessable("custom", "A custom attribute value must be a string, number, boolean or timestamp")
	}
	return v, nil
}

func badValue(key string, err error) *apperr.Error {
	return apperr.Unprocessable("custom", "Invalid value for custom attribute %q: %s", key, err.Error())
}

// defineTyped checks typed entries and defines their keys for the account's
// customers on first use (one conditional write per new key). A key already defined
// with another type, an unknown type or a value that does not fit is a 422; nothing
// is defined unless every entry is valid.
func defineTyped(ctx context.Context, d *api.Deps, accountID string, entries []typedAttr) (map[string]model.AttrValue, error) {
	out := map[string]model.AttrValue{}
	types := map[string]model.AttrType{}
	for _, e := range entries {
		if !model.ValidAttrKey(e.Key) {
			return nil, apperr.Unprocessable("custom", "Invalid custom attribute key %q: use letters, digits and underscores", e.Key)
		}
		t, ok := model.ParseAttrType(e.Type)
		if !ok {
			return nil, apperr.Unprocessable("custom", "Invalid type %q for custom attribute %q: use String, Integer, Decimal, Timestamp or Boolean", e.Type, e.Key)
		}
		raw, err := decodeValue(e.Value)
		if err != nil {
			return nil, badValue(e.Key, err)
		}
		v, err := model.CoerceAttrValue(t, raw)
		if err != nil {
			return nil, badValue(e.Key, err)
		}
		out[e.Key], types[e.Key] = v, t
	}
	defs, err := storage(d).AttrDefinitions(ctx, accountID, model.AttrObjectCustomer)
	if err != nil {
		return nil, err
	}
	for key, t := range types {
		if def, ok := defs[key]; ok && def.Type != t {
			return nil, apperr.Unprocessable("custom", "Custom attribute %q is defined with type %s", key, def.Type)
		}
	}
	for key, t := range types {
		if _, ok := defs[key]; ok {
			continue
		}
		def, err := storage(d).DefineAttribute(ctx, model.AttrDefinition{AccountID: accountID, Object: model.AttrObjectCustomer, Key: key, Type: t})
		if err != nil {
			return nil, err
		}
		if def.Type != t { // defined concurrently with another type
			return nil, apperr.Unprocessable("custom", "Custom attribute %q is defined with type %s", key, def.Type)
		}
	}
	return out, nil
}

// coerceDefined checks values against the definitions of their keys; an undefined
// key is a 422.
func coerceDefined(defs map[string]model.AttrDefinition, values map[string]json.RawMessage) (map[string]model.AttrValue, error) {
	out := make(map[string]model.AttrValue, len(values))
	for key, raw := range values {
		def, ok := defs[key]
		if !ok {
			return nil, apperr.Unprocessable("custom", "Custom attribute %q is not defined", key)
		}
		v, err := decodeValue(raw)
		if err != nil {
			return nil, badValue(key, err)
		}
		av, err := model.CoerceAttrValue(def.Type, v)
		if err != nil {
			return nil, badValue(key, err)
		}
		out[key] = av
	}
	return out, nil
}

// customMapFromBody reads a custom attribute body that is either a map of key to
// value or an array of {type?, key, value}, checked against existing definitions.
func customMapFromBody(ctx context.Context, d *api.Deps, accountID, object string, raw json.RawMessage) (map[string]model.AttrValue, error) {
	values := map[string]json.RawMessage{}
	trimmed := bytes.TrimSpace(raw)
	switch {
	case len(trimmed) == 0 || string(trimmed) == "null":
	case trimmed[0] == '{':
		if err := json.Unmarshal(trimmed, &values); err != nil {
			return nil, apperr.BadRequest("custom", "custom must be an object of key and value")
		}
	case trimmed[0] == '[':
		var entries []keyedAttr
		if err := json.Unmarshal(trimmed, &entries); err != nil {
			return nil, apperr.BadRequest("custom", "custom must be an array of key and value")
		}
		for _, e := range entries {
			values[e.Key] = e.Value
		}
	default:
		return nil, apperr.BadRequest("custom", "custom must be an object or an array")
	}
	if len(values) == 0 {
		return map[string]model.AttrValue{}, nil
	}
	defs, err := storage(d).AttrDefinitions(ctx, accountID, object)
	if err != nil {
		return nil, err
	}
	return coerceDefined(defs, values)
}

// mergeAttrs returns base with changes applied.
func mergeAttrs(base, changes map[string]model.AttrValue) map[string]model.AttrValue {
	out := maps.Clone(base)
	if out == nil {
		out = map[string]model.AttrValue{}
	}
	maps.Copy(out, changes)
	return out
}

// ruleError turns a model rule violation into a 422 of the endpoint's family.
func ruleError(err error) error {
	if re, ok := err.(*model.RuleError); ok {
		return apperr.Unprocessable(re.Param, "%s", re.Message)
	}
	return err
}

// requireEmail reads the e-mail of the by-e-mail operations.
func requireEmail(email string) (string, error) {
	email = strings.TrimSpace(email)
	if email == "" {
		return "", apperr.MissingParam("email")
	}
	return email, nil
}
