package store

import (
	"context"
	"errors"

	"github.com/subsight/subsight/shared/model"
)

// Errors of plan writes.
var (
	// ErrPlanReferenced: a subscription or invoice uses the plan, so its interval
	// cannot change and it cannot be deleted.
	ErrPlanReferenced = errors.New("plan is referenced")
	// ErrDataSourceNotLive: the data source is missing or being deleted.
	ErrDataSourceNotLive = errors.New("data source is not live")
)

// PlanUpdate holds the fields a PATCH sets; nil leaves a field unchanged.
type PlanUpdate struct {
	Name          *string
	IntervalCount *int
	IntervalUnit  *string
}

// PlanFilter selects plans of an account; empty fields do not filter. System is the
// stored billing-system name (see model.SystemFilter).
type PlanFilter struct {
	DataSourceUUID string
	ExternalID     string
	System         string
}

// Plans are the plans and the references that keep a used plan's interval fixed.
type Plans interface {
	// CreatePlan stores a new plan, its external-id reservation and its locator in one
	// transaction that also checks the data source is live. ErrConflict: the external id
	// is taken in that data source; ErrDataSourceNotLive: the source is gone or deleting.
	CreatePlan(ctx context.Context, p model.Plan) error
	// GetPlan reads a plan by uuid: the locator, then the plan (both consistent reads).
	GetPlan(ctx context.Context, accountID, planUUID string) (model.Plan, error)
	// GetPlanInDataSource reads a plan whose data source is known (one read).
	GetPlanInDataSource(ctx context.Context, accountID, dsUUID, planUUID string) (model.Plan, error)
	// GetPlanByExternalID finds a plan of a data source by external id (two consistent
	// reads); the import pipeline resolves line items' plans with it.
	GetPlanByExternalID(ctx context.Context, accountID, dsUUID, externalID string) (model.Plan, error)
	// PlanUUIDByExternalID finds the uuid of a data source's plan from its external id
	// (one consistent read of its reservation; the plan itself may since be gone).
	PlanUUIDByExternalID(ctx context.Context, accountID, dsUUID, externalID string) (string, error)
	// UpdatePlan changes a plan. An interval change is conditional on the reference
	// marker, so it cannot race with an import that starts using the plan; writing the
	// interval the plan already has is always allowed. ErrNotFound: the plan is gone;
	// ErrPlanReferenced: the interval would change on a referenced plan.
	UpdatePlan(ctx context.Context, p model.Plan, u PlanUpdate) (model.Plan, error)
	// DeletePlan removes an unreferenced plan with its external-id reservation and
	// locator. ErrNotFound: already gone; ErrPlanReferenced: in use.
	DeletePlan(ctx context.Context, p model.Plan) error
	// MarkPlanReferenced records one more reference to a plan on its own; ErrNotFound if
	// the plan does not exist in that data source.
	MarkPlanReferenced(ctx context.Context, accountID, dsUUID, planUUID string) error
	// ReleasePlanReference records that one reference to a plan is gone; ErrNotFound if
	// the plan does not exist or has no reference left.
	ReleasePlanReference(ctx context.Context, accountID, dsUUID, planUUID string) error
	// AddPlanReferences adds n references to a plan at once (one per customer index
	// that starts using it); ErrNotFound if the plan is gone.
	AddPlanReferences(ctx context.Context, accountID, dsUUID, planUUID string, n int) error
	// ListPlans reads one page of the account's plans in creation order, from start (the
	// Next of an earlier page of the same filter). The most selective key answers:
	// external id (GSI2), else data source (its partition), else the account (GSI1); the
	// other filters are filter expressions.
	ListPlans(ctx context.Context, accountID string, f PlanFilter, limit int, start PageToken) (Page[model.Plan], error)
	// CountPlans counts the plans that match f (for the legacy total_pages field).
	CountPlans(ctx context.Context, accountID string, f PlanFilter) (int, error)
}

// DataSources are the data sources and the steps of a data source's purge.
type DataSources interface {
	// CreateDataSource stores a new data source.
	CreateDataSource(ctx context.Context, ds model.DataSource) error
	// GetDataSource reads a data source, including one being deleted.
	GetDataSource(ctx context.Context, accountID, dsUUID string) (model.DataSource, error)
	// ListDataSources returns every data source of the account in creation order
	// (an account has few, so one query reads them all).
	ListDataSources(ctx context.Context, accountID string) ([]model.DataSource, error)
	// MarkDataSourceDeleting hides a data source from the API until its data is purged.
	MarkDataSourceDeleting(ctx context.Context, accountID, dsUUID string) error
	// DeleteDataSource removes the data source item itself (after its data is gone).
	DeleteDataSource(ctx context.Context, accountID, dsUUID string) error
	// DeletePartition deletes every item of a partition, 25 at a time; used by purges,
	// which run in the jobs worker and are safe to repeat.
	DeletePartition(ctx context.Context, pk string) (int, error)
	// DeletePartitionExcept deletes the items of a partition whose sort key does not
	// start with keep, 25 at a time (emptying a data source keeps its customers'
	// external-id reservations).
	DeletePartitionExcept(ctx context.Context, pk, keep string) (int, error)
	// DeletePartitionWhile is DeletePartitionExcept asking more() before each page of
	// keys it reads (one Query, up to 1 MB); done is false when it stopped with items
	// left (a purge's step out of time).
	DeletePartitionWhile(ctx context.Context, pk, keep string, more func() bool) (deleted int, done bool, err error)
	// ImportIDs lists the ids of a data source's imports (from their locators), whose
	// per-customer status items live in partitions of their own.
	ImportIDs(ctx context.Context, accountID, dsUUID string) ([]string, error)
	// DeleteCustomerSourceBilling removes what a customer has from one data source (a
	// merged customer can have several): its invoices with their line items and
	// transactions, its subscriptions and subscription events, their index entries and
	// the index's plans of that source. The rest of the customer's records stay.
	DeleteCustomerSourceBilling(ctx context.Context, accountID, customerUUID, dsUUID string) error
}
