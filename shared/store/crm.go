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

// Opportunities are the CRM opportunities, kept in their customer's partition.
type Opportunities interface {
	// CreateOpportunity stores an opportunity and its locator, in one transaction that
	// checks the customer exists.
	CreateOpportunity(ctx context.Context, o model.Opportunity) error
	// GetOpportunity reads an opportunity by uuid (its locator, then the record).
	GetOpportunity(ctx context.Context, accountID, uuid string) (model.Opportunity, error)
	// UpdateOpportunity replaces a stored opportunity; ErrNotFound when it is gone.
	UpdateOpportunity(ctx context.Context, o model.Opportunity) error
	// DeleteOpportunity removes an opportunity and its locator.
	DeleteOpportunity(ctx context.Context, o model.Opportunity) error
	// ListOpportunities reads one page of opportunities, newest first: one customer's
	// or the account's; the other filters are filter expressions.
	ListOpportunities(ctx context.Context, accountID string, f OpportunityFilter, limit int, start PageToken) (Page[model.Opportunity], error)
	// CustomerOpportunities reads every opportunity of a customer (merges and unmerges
	// move them).
	CustomerOpportunities(ctx context.Context, accountID, customerUUID string) ([]model.Opportunity, error)
	// MoveOpportunity makes an opportunity another customer's.
	MoveOpportunity(ctx context.Context, o model.Opportunity, toCustomerUUID string) error
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

// Tasks are the CRM tasks, kept in their customer's partition.
type Tasks interface {
	// CreateTask stores a task and its locator, in one transaction that checks the
	// customer exists.
	CreateTask(ctx context.Context, t model.Task) error
	// GetTask reads a task by uuid (its locator, then the record).
	GetTask(ctx context.Context, accountID, uuid string) (model.Task, error)
	// UpdateTask replaces a stored task; ErrNotFound when it is gone.
	UpdateTask(ctx context.Context, t model.Task) error
	// DeleteTask removes a task and its locator.
	DeleteTask(ctx context.Context, t model.Task) error
	// ListTasks reads one page of tasks, newest first: one customer's or the account's;
	// the other filters are filter expressions.
	ListTasks(ctx context.Context, accountID string, f TaskFilter, limit int, start PageToken) (Page[model.Task], error)
	// CustomerTasks reads every task of a customer (merges and unmerges move them).
	CustomerTasks(ctx context.Context, accountID, customerUUID string) ([]model.Task, error)
	// MoveTask makes a task another customer's (a contact it was about stays named).
	MoveTask(ctx context.Context, t model.Task, toCustomerUUID string) error
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
