package customers

import (
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/timefmt"
)

type customerAttributesJSON struct {
	Custom map[string]any `json:"custom"`
	Stripe struct{}       `json:"stripe"`
	Tags   []string       `json:"tags"`
}

type addressJSON struct {
	Country    *string `json:"country"`
	State      *string `json:"state"`
	City       *string `json:"city"`
	AddressZip *string `json:"address_zip"`
}

// customerJSON is the customer object in ChartMogul's key order (docs/api.md, "Objects"):
// the reduced object's keys, then the rest.
type customerJSON struct {
	reducedCustomerJSON
	DataSourceUUID     string      `json:"data_source_uuid"`
	DataSourceUUIDs    []string    `json:"data_source_uuids"`
	ExternalIDs        []string    `json:"external_ids"`
	Company            string      `json:"company"`
	Country            *string     `json:"country"`
	State              *string     `json:"state"`
	City               *string     `json:"city"`
	Zip                *string     `json:"zip"`
	LeadCreatedAt      *string     `json:"lead_created_at"`
	FreeTrialStartedAt *string     `json:"free_trial_started_at"`
	Address            addressJSON `json:"address"`
	MRR                int64       `json:"mrr"`
	ARR                int64       `json:"arr"`
	BillingSystemURL   *string     `json:"billing-system-url"`
	ChartmogulURL      string      `json:"chartmogul-url"`
	ServiceURL         string      `json:"service-url"`
	BillingSystemType  string      `json:"billing-system-type"`
	Currency           string      `json:"currency"`
	CurrencySign       string      `json:"currency-sign"`
	Owner              *string     `json:"owner"`
	WebsiteURL         *string     `json:"website_url"`
	LastSeen           *string     `json:"last_seen"`
}

// reducedCustomerJSON is what the by-e-mail attribute operations list, and what the
// customer object starts with.
type reducedCustomerJSON struct {
	ID            int64                  `json:"id"`
	UUID          string                 `json:"uuid"`
	ExternalID    string                 `json:"external_id"`
	Name          string                 `json:"name"`
	Email         string                 `json:"email"`
	Status        string                 `json:"status"`
	CustomerSince *string                `json:"customer-since"`
	Attributes    customerAttributesJSON `json:"attributes"`
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func offsetPtr(t *model.Customer) *string {
	if t.CustomerSince == nil {
		return nil
	}
	s := timefmt.Offset(t.CustomerSince.UTC())
	return &s
}

func customerAttributes(c model.Customer) customerAttributesJSON {
	return customerAttributesJSON{Custom: model.AttrMapJSON(c.Custom), Tags: nonNil(c.Tags)}
}

func newCustomerJSON(c model.Customer, appURL string) customerJSON {
	sign := model.CurrencySigns[c.Currency]
	if sign == "" {
		sign = c.Currency
	}
	page := c.PageURL(appURL)
	return customerJSON{
		reducedCustomerJSON: newReducedCustomerJSON(c),
		DataSourceUUID:      c.DataSourceUUID, DataSourceUUIDs: nonNil(c.DataSourceUUIDs), ExternalIDs: nonNil(c.ExternalIDs),
		Company: c.Company, Country: api.Nullable(c.Country), State: api.Nullable(c.State), City: api.Nullable(c.City),
		Zip: api.Nullable(c.Zip), LeadCreatedAt: timefmt.MillisPtr(c.LeadCreatedAt),
		FreeTrialStartedAt: timefmt.MillisPtr(c.FreeTrialStartedAt),
		Address: addressJSON{Country: api.Nullable(model.CountryName(c.Country)), State: api.Nullable(model.StateName(c.State)),
			City: api.Nullable(c.City), AddressZip: api.Nullable(c.Zip)},
		MRR: c.MRR, ARR: c.ARR, ChartmogulURL: page, ServiceURL: page, BillingSystemType: c.BillingSystemType,
		Currency: c.Currency, CurrencySign: sign, Owner: api.Nullable(c.Owner), WebsiteURL: api.Nullable(c.WebsiteURL),
		LastSeen: timefmt.MillisPtr(c.LastSeen),
	}
}

func newReducedCustomerJSON(c model.Customer) reducedCustomerJSON {
	return reducedCustomerJSON{ID: c.ID, UUID: c.UUID, ExternalID: c.ExternalID, Name: c.Name, Email: c.Email,
		Status: c.Status, CustomerSince: offsetPtr(&c), Attributes: customerAttributes(c)}
}
