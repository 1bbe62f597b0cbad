package store

import (
	"context"
	"time"

	"github.com/subsight/subsight/shared/model"
)

// OpportunityFilter narrows an opportunity listing; empty fields do not filter.
// CloseFrom and CloseTo bound the estimated close date ("2024-03-30", inclusive).
type OpportunityFilter struct {
	CustomerUUID, Owner, Pipeline, PipelineStage string
	CloseFrom, CloseTo                           string
}

// CRMRecords are one kind of CRM record T (an opportunity, a task), kept in its
// customer's partition with a locator, and listed with the filters F.
type CRMRecords[T, F any] interface {
	// Create stores a record and its locator, in one transaction that checks the
	// customer exists.
	Create(ctx context.Context, rec T) error
	// Get reads a record by uuid (its locator, then the record).
	Get(ctx context.Context, accountID, uuid string) (T, error)
	// Update replaces a stored record; ErrNotFound when it is gone.
	Update(ctx context.Context, rec T) error
	// Delete removes a record and its locator.
	Delete(ctx context.Context, rec T) error
	// List reads one page of records, newest first: one customer's or the account's;
	// the other filters are filter expressions.
	List(ctx context.Context, accountID string, f F, limit int, start PageToken) (Page[T], error)
	// OfCustomer reads every record of a customer (merges and unmerges move them).
	OfCustomer(ctx context.Context, accountID, customerUUID string) ([]T, error)
	// Move makes a record another customer's (a contact a task was about stays named).
	Move(ctx context.Context, rec T, toCustomerUUID string) error
}

// Opportunities are the CRM opportunities.
type Opportunities interface {
	Opportunities() CRMRecords[model.Opportunity, OpportunityFilter]
}

// TaskFilter narrows a task listing; empty fields do not filter. A contact's tasks are
// read from its customer's (CustomerUUID must be the contact's customer). DueFrom and
// DueTo bound the due date (inclusive); Completed selects done (true) or open (false)
// tasks.
type TaskFilter struct {
	CustomerUUID, ContactUUID, Assignee string
	DueFrom, DueTo                      time.Time
	Completed                           *bool
}

// Tasks are the CRM tasks.
type Tasks interface {
	Tasks() CRMRecords[model.Task, TaskFilter]
}

// PlanGroups are the account's plan groups; a group keeps its plans' references in
// its own item, in the group's order.
type PlanGroups interface {
	// SavePlanGroup writes a plan group: a new one (create) only if its uuid is free
	// (ErrConflict otherwise), an existing one only if it still exists (ErrNotFound).
	SavePlanGroup(ctx context.Context, g model.PlanGroup, create bool) error
	// GetPlanGroup reads a plan group.
	GetPlanGroup(ctx context.Context, accountID, uuid string) (model.PlanGroup, error)
	// DeletePlanGroup removes a plan group; ErrNotFound when it does not exist.
	DeletePlanGroup(ctx context.Context, accountID, uuid string) error
	// ListPlanGroups reads one page of the account's plan groups, newest first.
	ListPlanGroups(ctx context.Context, accountID string, limit int, start PageToken) (Page[model.PlanGroup], error)
	// CountPlanGroups counts the account's plan groups (for the legacy total_pages).
	CountPlanGroups(ctx context.Context, accountID string) (int, error)
	// ListPlanGroupPlans reads one page of a group's plans in the group's order, from
	// start (the Next of an earlier page of this group), skipping plans deleted since.
	// Total is the number of plans the group holds.
	ListPlanGroupPlans(ctx context.Context, g model.PlanGroup, limit int, start PageToken) (Page[model.Plan], error)
	// PlanRefs finds the plans of the account with these uuids, in the order given;
	// missing lists the uuids that are no plan of the account.
	PlanRefs(ctx context.Context, accountID string, uuids []string) (refs []model.PlanRef, missing []string, err error)
}

// UnmergeRequest is a pending unmerge (POST /v1/customers/unmerges): the data source
// customer (DataSourceUUID, ExternalID) leaves CustomerUUID for a new customer,
// NewCustomerUUID (chosen when the request is accepted, so a redelivered job makes the
// same one), taking Move (tasks, opportunities, notes) with it.
type UnmergeRequest struct {
	AccountID       string    `dynamodbav:"account_id"`
	CustomerUUID    string    `dynamodbav:"customer_uuid"`
	DataSourceUUID  string    `dynamodbav:"data_source_uuid"`
	ExternalID      string    `dynamodbav:"external_id"`
	NewCustomerUUID string    `dynamodbav:"new_customer_uuid"`
	Move            []string  `dynamodbav:"move"`
	RequestedAt     time.Time `dynamodbav:"requested_at"`
}

// Unmerges are the pending unmerges and the customer an unmerge makes; the moves are
// those of Merges and of each record kind.
type Unmerges interface {
	// PutUnmergeRequest records an unmerge to carry out; a request for the same pair
	// that is still pending is replaced.
	PutUnmergeRequest(ctx context.Context, u UnmergeRequest) error
	// PendingUnmerges lists the unmerges waiting to leave a customer.
	PendingUnmerges(ctx context.Context, accountID, customerUUID string) ([]UnmergeRequest, error)
	// DeleteUnmergeRequest forgets an unmerge that has been carried out.
	DeleteUnmergeRequest(ctx context.Context, u UnmergeRequest) error
	// CreateSplitCustomer stores the customer an unmerge makes, whose external id
	// reservation exists already; a customer already stored under that uuid (a
	// redelivered job) is kept.
	CreateSplitCustomer(ctx context.Context, c model.Customer) error
}
