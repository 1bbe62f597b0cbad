package model

import (
	"slices"
	"time"
)

// Unmerge: what can be moved to the customer an unmerge makes, besides the data source
// customer's own records.
var UnmergeMovable = []string{"tasks", "opportunities", "notes"}

// HasSource tells whether a (data source, external id) pair is one of c's.
func (c Customer) HasSource(dsUUID, externalID string) bool {
	return c.sourceIndex(dsUUID, externalID) >= 0
}

func (c Customer) sourceIndex(dsUUID, externalID string) int {
	for i, ds := range c.DataSourceUUIDs {
		if ds == dsUUID && i < len(c.ExternalIDs) && c.ExternalIDs[i] == externalID {
			return i
		}
	}
	return -1
}

// WithoutSource is c without one of its (data source, external id) pairs; its primary
// pair becomes the first one left.
func (c Customer) WithoutSource(dsUUID, externalID string) Customer {
	i := c.sourceIndex(dsUUID, externalID)
	if i < 0 || len(c.DataSourceUUIDs) < 2 {
		return c
	}
	c.DataSourceUUIDs = slices.Delete(slices.Clone(c.DataSourceUUIDs), i, i+1)
	c.ExternalIDs = slices.Delete(slices.Clone(c.ExternalIDs), i, i+1)
	c.DataSourceUUID, c.ExternalID = c.DataSourceUUIDs[0], c.ExternalIDs[0]
	return c
}

// SplitFrom is the customer an unmerge makes of one of c's pairs: a new customer (uuid,
// integer id) of that data source customer alone, with c's profile (name, e-mail,
// company, location, lead and trial dates, owner, website, a lead status) and neither
// tags nor custom attributes, which stay with c (nothing tells which customer they
// came from). Its metrics come from its records once it is recomputed.
func (c Customer) SplitFrom(uuid string, id int64, dsUUID, externalID, system string, now time.Time) Customer {
	status := StatusNewLead
	if slices.Contains(LeadStatuses, c.Status) {
		status = c.Status
	}
	return Customer{AccountID: c.AccountID, ID: id, UUID: uuid, DataSourceUUID: dsUUID,
		DataSourceUUIDs: []string{dsUUID}, ExternalID: externalID, ExternalIDs: []string{externalID},
		Systems: []string{system}, Name: c.Name, Email: c.Email, Company: c.Company, City: c.City, Zip: c.Zip,
		Country: c.Country, State: c.State, LeadCreatedAt: c.LeadCreatedAt, FreeTrialStartedAt: c.FreeTrialStartedAt,
		Status: status, Tags: []string{}, Custom: map[string]AttrValue{}, BillingSystemType: c.BillingSystemType,
		Currency: c.Currency, Owner: c.Owner, WebsiteURL: c.WebsiteURL, CreatedAt: now, UpdatedAt: now}
}
