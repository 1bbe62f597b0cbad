package customers

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/optional"
)

// customerBody is the body of customer create and update; every field is optional
// on update.
type customerBody struct {
	DataSourceUUID     api.Text                           `json:"data_source_uuid"`
	ExternalID         api.Text                           `json:"external_id"`
	Name               api.Text                           `json:"name"`
	Email              api.Text                           `json:"email"`
	Company            api.Text                           `json:"company"`
	City               api.Text                           `json:"city"`
	Zip                api.Text                           `json:"zip"`
	Country            api.Text                           `json:"country"`
	State              api.Text                           `json:"state"`
	LeadCreatedAt      api.Text                           `json:"lead_created_at"`
	FreeTrialStartedAt api.Text                           `json:"free_trial_started_at"`
	Owner              api.Text                           `json:"owner"`
	WebsiteURL         api.Text                           `json:"website_url"`
	Status             api.Text                           `json:"status"`
	Attributes         optional.Value[customerAttrsBody]  `json:"attributes"`
	PrimaryContact     optional.Value[primaryContactBody] `json:"primary_contact"`
}

type customerAttrsBody struct {
	Tags   optional.Value[[]string] `json:"tags"`
	Custom json.RawMessage          `json:"custom"`
}

// primaryContactBody is the contact at position 1 that a customer body may carry.
type primaryContactBody struct {
	FirstName api.Text `json:"first_name"`
	LastName  api.Text `json:"last_name"`
	Email     api.Text `json:"email"`
	Title     api.Text `json:"title"`
	Phone     api.Text `json:"phone"`
	LinkedIn  api.Text `json:"linked_in"`
	Twitter   api.Text `json:"twitter"`
	Notes     api.Text `json:"notes"`
}

// stringField applies an optional free-text field: null clears it.
func stringField(dst *string, v api.Text, param string) error {
	if !v.Set {
		return nil
	}
	if v.Null {
		*dst = ""
		return nil
	}
	s, err := model.Text(param, strings.TrimSpace(v.V))
	if err != nil {
		return ruleError(err)
	}
	*dst = s
	return nil
}

// validatedField applies an optional field through a validator: null clears it.
func validatedField(dst *string, v api.Text, check func(string) (string, error)) error {
	if !v.Set {
		return nil
	}
	if v.Null {
		*dst = ""
		return nil
	}
	s, err := check(v.V)
	if err != nil {
		return ruleError(err)
	}
	*dst = s
	return nil
}

// applyCustomerFields applies every scalar field of b to c, checking each rule; it
// reads the store only to check the owner. It stops at the first broken rule.
func applyCustomerFields(ctx context.Context, d *api.Deps, accountID string, c *model.Customer, b customerBody) error {
	now := d.Now()
	if b.Name.Set {
		name := strings.TrimSpace(b.Name.V)
		if b.Name.Null || name == "" {
			return apperr.Unprocessable("name", "A name is required for each customer.")
		}
		if err := stringField(&c.Name, b.Name, "name"); err != nil {
			return err
		}
	}
	steps := []error{
		validatedField(&c.Email, b.Email, model.EmailAddress),
		stringField(&c.Company, b.Company, "company"),
		stringField(&c.City, b.City, "city"),
		stringField(&c.Zip, b.Zip, "zip"),
		validatedField(&c.Country, b.Country, model.Country),
		validatedField(&c.State, b.State, model.USState),
		validatedField(&c.WebsiteURL, b.WebsiteURL, model.WebsiteURL),
		timeField(&c.LeadCreatedAt, b.LeadCreatedAt, "lead_created_at", now),
		timeField(&c.FreeTrialStartedAt, b.FreeTrialStartedAt, "free_trial_started_at", now),
	}
	for _, err := range steps {
		if err != nil {
			return err
		}
	}
	if b.Status.Set {
		if b.Status.Null {
			return apperr.Unprocessable("status", "Status must be one of %s", strings.Join(model.LeadStatuses, ", "))
		}
		st, err := model.LeadStatus(b.Status.V)
		if err != nil {
			return ruleError(err)
		}
		if c.Status != "" && !model.IsLead(c.Status) && st != c.Status {
			return apperr.Unprocessable("status", "The status of a customer with subscriptions is computed and cannot be set")
		}
		c.Status = st
	}
	if err := ruleError(c.CheckDates()); err != nil {
		return err
	}
	if err := ruleError(c.CheckState()); err != nil {
		return err
	}
	return applyOwner(ctx, d, accountID, c, b.Owner)
}

func timeField(dst **time.Time, v api.Text, param string, now time.Time) error {
	if !v.Set {
		return nil
	}
	if v.Null || strings.TrimSpace(v.V) == "" {
		*dst = nil
		return nil
	}
	t, err := model.PastTime(param, v.V, now)
	if err != nil {
		return ruleError(err)
	}
	*dst = &t
	return nil
}

func applyOwner(ctx context.Context, d *api.Deps, accountID string, c *model.Customer, v api.Text) error {
	if !v.Set {
		return nil
	}
	email := strings.TrimSpace(v.V)
	if v.Null || email == "" {
		c.Owner = ""
		return nil
	}
	m, err := api.TeamMember(ctx, d, accountID, email, apperr.Unprocessable("owner", "%q is not a team member of this account", email))
	if err != nil {
		return err
	}
	c.Owner = m.Email
	return nil
}

// applyCustomerAttributes replaces tags and custom attributes when sent. On update
// custom keys must be defined already; on create a typed array defines them.
func applyCustomerAttributes(ctx context.Context, d *api.Deps, accountID string, c *model.Customer, a optional.Value[customerAttrsBody], create bool) error {
	if !a.Present() {
		return nil
	}
	if a.V.Tags.Set {
		tags, err := model.CleanTags(a.V.Tags.V)
		if err != nil {
			return ruleError(err)
		}
		c.Tags = tags
	}
	raw := strings.TrimSpace(string(a.V.Custom))
	if raw == "" {
		return nil
	}
	if create && strings.HasPrefix(raw, "[") && hasTypes(a.V.Custom) {
		var entries []typedAttr
		if err := json.Unmarshal(a.V.Custom, &entries); err != nil {
			return apperr.BadRequest("custom", "custom must be an array of type, key and value")
		}
		custom, err := defineTyped(ctx, d, accountID, entries)
		if err != nil {
			return err
		}
		c.Custom = custom
		return nil
	}
	custom, err := customMapFromBody(ctx, d, accountID, model.AttrObjectCustomer, a.V.Custom)
	if err != nil {
		return err
	}
	c.Custom = custom
	return nil
}

// hasTypes tells whether a custom array carries types (the create form).
func hasTypes(raw json.RawMessage) bool {
	var entries []map[string]json.RawMessage
	if json.Unmarshal(raw, &entries) != nil {
		return false
	}
	return slices.ContainsFunc(entries, func(e map[string]json.RawMessage) bool { _, ok := e["type"]; return ok })
}
