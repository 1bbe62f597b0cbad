package crm

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
	"github.com/subsight/subsight/shared/timefmt"
)

// opportunityItem is an opportunity as stored (keys.Opportunities' layout).
type opportunityItem struct {
	recordHead
	Owner            string `dynamodbav:"owner"`
	OwnerKey         string `dynamodbav:"owner_key"` // lower-case, for the filter
	Pipeline         string `dynamodbav:"pipeline"`
	PipelineStage    string `dynamodbav:"pipeline_stage"`
	CloseDate        string `dynamodbav:"close_date"` // "2024-03-30", sorts as text
	Currency         string `dynamodbav:"currency"`
	AmountInCents    int64  `dynamodbav:"amount_in_cents"`
	Type             string `dynamodbav:"type"`
	ForecastCategory string `dynamodbav:"forecast_category"`
	WinLikelihood    int    `dynamodbav:"win_likelihood"`
	Custom           string `dynamodbav:"custom,omitempty"` // JSON list of model.CustomField
}

func newOpportunityItem(o model.Opportunity) (opportunityItem, error) {
	var custom []byte
	if len(o.Custom) > 0 {
		var err error
		if custom, err = json.Marshal(o.Custom); err != nil {
			return opportunityItem{}, err
		}
	}
	return opportunityItem{
		recordHead: newRecordHead(keys.Opportunities, o.RecordMeta),
		Owner:      o.Owner, OwnerKey: strings.ToLower(o.Owner), Pipeline: o.Pipeline, PipelineStage: o.PipelineStage,
		CloseDate: timefmt.Date(o.EstimatedCloseDate), Currency: o.Currency, AmountInCents: o.AmountInCents,
		Type: o.Type, ForecastCategory: o.ForecastCategory, WinLikelihood: o.WinLikelihood, Custom: string(custom),
	}, nil
}

func (it opportunityItem) opportunity() model.Opportunity {
	o := model.Opportunity{RecordMeta: it.meta(), Owner: it.Owner,
		Pipeline: it.Pipeline, PipelineStage: it.PipelineStage, Currency: it.Currency, AmountInCents: it.AmountInCents,
		Type: it.Type, ForecastCategory: it.ForecastCategory, WinLikelihood: it.WinLikelihood}
	o.EstimatedCloseDate, _ = time.Parse(time.DateOnly, it.CloseDate)
	if it.Custom != "" {
		d := json.NewDecoder(strings.NewReader(it.Custom))
		d.UseNumber() // numbers come back as they were sent
		_ = d.Decode(&o.Custom)
	}
	return o
}

// Create stores a new opportunity; ErrCustomerNotFound when its customer
// does not exist.
func (s opportunityRecords) Create(ctx context.Context, o model.Opportunity) error {
	it, err := newOpportunityItem(o)
	if err != nil {
		return err
	}
	return s.createRecord(ctx, keys.Opportunities, it.recordHead, it)
}

// Get reads an opportunity by uuid (two consistent reads).
func (s opportunityRecords) Get(ctx context.Context, accountID, uuid string) (model.Opportunity, error) {
	it, err := getRecord[opportunityItem](ctx, s.Store, keys.Opportunities, accountID, uuid)
	return it.opportunity(), err
}

// Update writes an opportunity read earlier with its new fields;
// store.ErrNotFound when it was deleted meanwhile.
func (s opportunityRecords) Update(ctx context.Context, o model.Opportunity) error {
	it, err := newOpportunityItem(o)
	if err != nil {
		return err
	}
	return s.replaceRecord(ctx, it)
}

// Delete removes an opportunity; store.ErrNotFound when already gone.
func (s opportunityRecords) Delete(ctx context.Context, o model.Opportunity) error {
	it, err := newOpportunityItem(o)
	if err != nil {
		return err
	}
	return s.deleteRecord(ctx, keys.Opportunities, it.recordHead)
}

// List reads one page of opportunities, newest first: one customer's
// (GSI2) or the account's (GSI1); the other filters are filter expressions.
func (s opportunityRecords) List(ctx context.Context, accountID string, f store.OpportunityFilter, limit int,
	start store.PageToken) (store.Page[model.Opportunity], error) {
	q := recordListing(keys.Opportunities, accountID, f.CustomerUUID)
	q.WhereEqual("owner_key", strings.ToLower(f.Owner))
	q.WhereEqual("pipeline", f.Pipeline)
	q.WhereEqual("pipeline_stage", f.PipelineStage)
	q.WhereBetween("close_date", f.CloseFrom, f.CloseTo)
	return table.ListPage(ctx, s.Store.t, q, limit, start, opportunityItem.opportunity, nil)
}

// OfCustomer reads every opportunity of a customer (merges and unmerges
// move them).
func (s opportunityRecords) OfCustomer(ctx context.Context, accountID, customerUUID string) ([]model.Opportunity, error) {
	return customerRecords(ctx, s.Store, keys.Opportunities, accountID, customerUUID, opportunityItem.opportunity)
}

// Move makes an opportunity another customer's.
func (s opportunityRecords) Move(ctx context.Context, o model.Opportunity, toCustomerUUID string) error {
	from, err := newOpportunityItem(o)
	if err != nil {
		return err
	}
	o.CustomerUUID = toCustomerUUID
	to, err := newOpportunityItem(o)
	if err != nil {
		return err
	}
	return s.moveRecord(ctx, keys.Opportunities, from.recordHead, to.recordHead, to)
}

// opportunityRecords are the store's opportunities (store.CRMRecords).
type opportunityRecords struct{ *Store }

// Opportunities are the CRM opportunities.
func (s *Store) Opportunities() store.CRMRecords[model.Opportunity, store.OpportunityFilter] {
	return opportunityRecords{s}
}
