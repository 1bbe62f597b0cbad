package customers

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/optional"
)

// GetCustomerAttributes is GET /v1/customers/{customer_uuid}/attributes.
func GetCustomerAttributes(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		c, err := api.LoadCustomer(ctx, d, r.AccountID, r.PathParam("customer_uuid"))
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, struct {
			Tags   []string       `json:"tags"`
			Stripe struct{}       `json:"stripe"`
			Custom map[string]any `json:"custom"`
		}{Tags: nonNil(c.Tags), Custom: model.AttrMapJSON(c.Custom)})
	}}
}

type tagsBody struct {
	Email optional.Value[string]   `json:"email"`
	Tags  optional.Value[[]string] `json:"tags"`
}

func decodeTags(r *apigw.Request) (tagsBody, []string, error) {
	var b tagsBody
	if err := r.Decode(&b); err != nil {
		return b, nil, err
	}
	if !b.Tags.Present() {
		return b, nil, apperr.MissingParam("tags")
	}
	tags, err := model.CleanTags(b.Tags.V)
	if err != nil {
		return b, nil, ruleError(err)
	}
	return b, tags, nil
}

type tagsJSON struct {
	Tags []string `json:"tags"`
}

// AddTags is POST /v1/customers/{customer_uuid}/attributes/tags.
func AddTags(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		uuid := r.PathParam("customer_uuid")
		_, tags, err := decodeTags(r)
		if err != nil {
			return apigw.Response{}, err
		}
		c, err := updateCustomer(ctx, d, r.AccountID, uuid, func(c *model.Customer) error { c.AddTags(tags); return nil }, nil)
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, tagsJSON{Tags: nonNil(c.Tags)})
	}}
}

// RemoveTags is DELETE /v1/customers/{customer_uuid}/attributes/tags.
func RemoveTags(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		uuid := r.PathParam("customer_uuid")
		_, tags, err := decodeTags(r)
		if err != nil {
			return apigw.Response{}, err
		}
		c, err := updateCustomer(ctx, d, r.AccountID, uuid, func(c *model.Customer) error { c.RemoveTags(tags); return nil }, nil)
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, tagsJSON{Tags: nonNil(c.Tags)})
	}}
}

// byEmail applies change to every customer with the e-mail and answers the reduced
// customers; a 404 when none has it.
func byEmail(ctx context.Context, d *api.Deps, accountID, email string, change func(*model.Customer) error) (apigw.Response, error) {
	customers, err := storage(d).CustomersByEmail(ctx, accountID, email, false)
	if err != nil {
		return apigw.Response{}, err
	}
	if len(customers) == 0 {
		return apigw.Response{}, apperr.NotFound("email", "Can't find any customers with email: %q", email)
	}
	entries := make([]reducedCustomerJSON, 0, len(customers))
	for _, found := range customers {
		c, err := updateCustomer(ctx, d, accountID, found.UUID, change, nil)
		if err != nil {
			return apigw.Response{}, err
		}
		entries = append(entries, newReducedCustomerJSON(c))
	}
	return apigw.JSON(http.StatusOK, map[string]any{"entries": entries})
}

// AddTagsByEmail is POST /v1/customers/attributes/tags.
func AddTagsByEmail(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		b, tags, err := decodeTags(r)
		if err != nil {
			return apigw.Response{}, err
		}
		email, err := requireEmail(b.Email.V)
		if err != nil {
			return apigw.Response{}, err
		}
		return byEmail(ctx, d, r.AccountID, email, func(c *model.Customer) error { c.AddTags(tags); return nil })
	}}
}

type typedCustomBody struct {
	Email  optional.Value[string] `json:"email"`
	Custom json.RawMessage        `json:"custom"`
}

// decodeTypedCustom reads {"custom":[{type,key,value}]} and defines new keys.
func decodeTypedCustom(ctx context.Context, d *api.Deps, r *apigw.Request) (typedCustomBody, map[string]model.AttrValue, error) {
	var b typedCustomBody
	if err := r.Decode(&b); err != nil {
		return b, nil, err
	}
	raw := strings.TrimSpace(string(b.Custom))
	if raw == "" || raw == "null" {
		return b, nil, apperr.MissingParam("custom")
	}
	var entries []typedAttr
	if err := json.Unmarshal(b.Custom, &entries); err != nil {
		return b, nil, apperr.BadRequest("custom", "custom must be an array of objects with type, key and value")
	}
	values, err := defineTyped(ctx, d, r.AccountID, entries)
	return b, values, err
}

type customJSON struct {
	Custom map[string]any `json:"custom"`
}

// AddCustomAttributes is POST /v1/customers/{customer_uuid}/attributes/custom.
func AddCustomAttributes(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		uuid := r.PathParam("customer_uuid")
		if _, err := api.LoadCustomer(ctx, d, r.AccountID, uuid); err != nil {
			return apigw.Response{}, err
		}
		_, values, err := decodeTypedCustom(ctx, d, r)
		if err != nil {
			return apigw.Response{}, err
		}
		return saveCustomAttrs(ctx, d, r.AccountID, uuid, values)
	}}
}

// AddCustomAttributesByEmail is POST /v1/customers/attributes/custom.
func AddCustomAttributesByEmail(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		var probe typedCustomBody
		if err := r.Decode(&probe); err != nil {
			return apigw.Response{}, err
		}
		email, err := requireEmail(probe.Email.V)
		if err != nil {
			return apigw.Response{}, err
		}
		_, values, err := decodeTypedCustom(ctx, d, r)
		if err != nil {
			return apigw.Response{}, err
		}
		return byEmail(ctx, d, r.AccountID, email, func(c *model.Customer) error {
			c.Custom = mergeAttrs(c.Custom, values)
			return nil
		})
	}}
}

// UpdateCustomAttributes is PUT /v1/customers/{customer_uuid}/attributes/custom with
// {"custom":{key:value}}: the keys must be defined; other keys are kept.
func UpdateCustomAttributes(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		uuid := r.PathParam("customer_uuid")
		if _, err := api.LoadCustomer(ctx, d, r.AccountID, uuid); err != nil {
			return apigw.Response{}, err
		}
		var b typedCustomBody
		if err := r.Decode(&b); err != nil {
			return apigw.Response{}, err
		}
		if raw := strings.TrimSpace(string(b.Custom)); raw == "" || raw == "null" {
			return apigw.Response{}, apperr.MissingParam("custom")
		}
		values, err := customMapFromBody(ctx, d, r.AccountID, model.AttrObjectCustomer, b.Custom)
		if err != nil {
			return apigw.Response{}, err
		}
		return saveCustomAttrs(ctx, d, r.AccountID, uuid, values)
	}}
}

// RemoveCustomAttributes is DELETE /v1/customers/{customer_uuid}/attributes/custom
// with {"custom":["key",…]}: 204.
func RemoveCustomAttributes(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		uuid := r.PathParam("customer_uuid")
		if _, err := api.LoadCustomer(ctx, d, r.AccountID, uuid); err != nil {
			return apigw.Response{}, err
		}
		var b struct {
			Custom optional.Value[[]string] `json:"custom"`
		}
		if err := r.Decode(&b); err != nil {
			return apigw.Response{}, err
		}
		if !b.Custom.Present() {
			return apigw.Response{}, apperr.MissingParam("custom")
		}
		_, err := updateCustomer(ctx, d, r.AccountID, uuid, func(c *model.Customer) error {
			for _, k := range b.Custom.V {
				delete(c.Custom, k)
			}
			return nil
		}, nil)
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.NoContent()
	}}
}

// GetCustomAttributes is GET /v1/customers/{customer_uuid}/attributes/custom
// (what chartmogul-node's CustomAttribute.retrieve calls).
func GetCustomAttributes(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		c, err := api.LoadCustomer(ctx, d, r.AccountID, r.PathParam("customer_uuid"))
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, customJSON{Custom: model.AttrMapJSON(c.Custom)})
	}}
}

// saveCustomAttrs merges values into the customer's custom attributes and answers with
// all of them, as ChartMogul does for both POST and PUT.
func saveCustomAttrs(ctx context.Context, d *api.Deps, accountID, uuid string, values map[string]model.AttrValue) (apigw.Response, error) {
	c, err := updateCustomer(ctx, d, accountID, uuid, func(c *model.Customer) error {
		c.Custom = mergeAttrs(c.Custom, values)
		return nil
	}, nil)
	if err != nil {
		return apigw.Response{}, err
	}
	return apigw.JSON(http.StatusOK, customJSON{Custom: model.AttrMapJSON(c.Custom)})
}
