package imports

import (
	"strings"
	"time"

	"github.com/subsight/subsight/shared/model"
)

// newImportedCustomer is the customer an import creates for an external id of a
// data source that has none yet.
func newImportedCustomer(m Message, uuid string, id int64, r model.ImportCustomer, now time.Time) model.Customer {
	c := model.Customer{AccountID: m.AccountID, ID: id, UUID: uuid, DataSourceUUID: m.DataSourceUUID,
		DataSourceUUIDs: []string{m.DataSourceUUID}, ExternalID: m.CustomerExternalID, ExternalIDs: []string{m.CustomerExternalID},
		Systems: []string{m.System}, Status: model.StatusNewLead, Tags: []string{}, Custom: map[string]model.AttrValue{},
		BillingSystemType: model.BillingSystemCustom, Currency: m.Currency, CreatedAt: now, UpdatedAt: now, Version: 1}
	applyImportedFields(&c, r)
	return c
}

// applyImportedFields copies the fields a record sent onto c and reports whether
// anything changed.
func applyImportedFields(c *model.Customer, r model.ImportCustomer) bool {
	changed := false
	set := func(dst *string, v *string) {
		if v != nil && *dst != *v {
			*dst, changed = *v, true
		}
	}
	setTime := func(dst **time.Time, v *time.Time) {
		if v != nil && (*dst == nil || !(*dst).Equal(*v)) {
			t := *v
			*dst, changed = &t, true
		}
	}
	set(&c.Name, r.Name)
	set(&c.Email, r.Email)
	set(&c.Company, r.Company)
	set(&c.Country, r.Country)
	set(&c.City, r.City)
	set(&c.Zip, r.Zip)
	if r.State != nil {
		// As ChartMogul: a state that is not a US state of a US customer is dropped.
		code := strings.TrimPrefix(strings.ToUpper(*r.State), "US-")
		if model.StateName(code) == "" || (c.Country != "" && c.Country != "US") {
			code = ""
		}
		set(&c.State, &code)
	}
	setTime(&c.LeadCreatedAt, r.LeadCreatedAt)
	setTime(&c.FreeTrialStartedAt, r.FreeTrialStartedAt)
	return changed
}
