package crm

import (
	"context"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
	"github.com/subsight/subsight/shared/timefmt"
)

// taskItem is a task as stored (keys.Tasks' layout).
type taskItem struct {
	recordHead
	TaskDetails string     `dynamodbav:"task_details"`
	Assignee    string     `dynamodbav:"assignee"`
	AssigneeKey string     `dynamodbav:"assignee_key"` // lower-case, for the filter
	DueDate     time.Time  `dynamodbav:"due_date"`
	DueKey      string     `dynamodbav:"due_key"` // fixed-width, sorts as text
	CompletedAt *time.Time `dynamodbav:"completed_at,omitempty"`
}

func newTaskItem(t model.Task) taskItem {
	return taskItem{
		recordHead:  newRecordHead(keys.Tasks, t.RecordMeta),
		TaskDetails: t.TaskDetails, Assignee: t.Assignee, AssigneeKey: strings.ToLower(t.Assignee),
		DueDate: t.DueDate, DueKey: timefmt.Nanos(t.DueDate), CompletedAt: t.CompletedAt,
	}
}

func (it taskItem) task() model.Task {
	return model.Task{RecordMeta: it.meta(), TaskDetails: it.TaskDetails, Assignee: it.Assignee, DueDate: it.DueDate,
		CompletedAt: it.CompletedAt}
}

// Create stores a new task; ErrCustomerNotFound when its customer does not exist.
func (s taskRecords) Create(ctx context.Context, t model.Task) error {
	it := newTaskItem(t)
	return s.createRecord(ctx, keys.Tasks, it.recordHead, it)
}

// Get reads a task by uuid (two consistent reads).
func (s taskRecords) Get(ctx context.Context, accountID, uuid string) (model.Task, error) {
	it, err := getRecord[taskItem](ctx, s.Store, keys.Tasks, accountID, uuid)
	return it.task(), err
}

// Update writes a task read earlier with its new fields; store.ErrNotFound when it was
// deleted meanwhile.
func (s taskRecords) Update(ctx context.Context, t model.Task) error {
	return s.replaceRecord(ctx, newTaskItem(t))
}

// Delete removes a task; store.ErrNotFound when already gone.
func (s taskRecords) Delete(ctx context.Context, t model.Task) error {
	return s.deleteRecord(ctx, keys.Tasks, newTaskItem(t).recordHead)
}

// List reads one page of tasks, newest first: one customer's (GSI2) or the
// account's (GSI1); the other filters are filter expressions.
func (s taskRecords) List(ctx context.Context, accountID string, f store.TaskFilter, limit int,
	start store.PageToken) (store.Page[model.Task], error) {
	q := recordListing(keys.Tasks, accountID, f.CustomerUUID)
	q.WhereEqual("contact_uuid", f.ContactUUID)
	q.WhereEqual("assignee_key", strings.ToLower(f.Assignee))
	var from, to string
	if !f.DueFrom.IsZero() {
		from = timefmt.Nanos(f.DueFrom)
	}
	if !f.DueTo.IsZero() {
		to = timefmt.Nanos(f.DueTo)
	}
	q.WhereBetween("due_key", from, to)
	if f.Completed != nil {
		cond := "attribute_not_exists(completed_at)"
		if *f.Completed {
			cond = "attribute_exists(completed_at)"
		}
		q.Where(cond, nil, nil)
	}
	return table.ListPage(ctx, s.Store.t, q, limit, start, taskItem.task, nil)
}

// OfCustomer reads every task of a customer (merges and unmerges move them).
func (s taskRecords) OfCustomer(ctx context.Context, accountID, customerUUID string) ([]model.Task, error) {
	return customerRecords(ctx, s.Store, keys.Tasks, accountID, customerUUID, taskItem.task)
}

// Move makes a task another customer's (a contact it was about stays named).
func (s taskRecords) Move(ctx context.Context, t model.Task, toCustomerUUID string) error {
	from := newTaskItem(t)
	t.CustomerUUID = toCustomerUUID
	to := newTaskItem(t)
	return s.moveRecord(ctx, keys.Tasks, from.recordHead, to.recordHead, to)
}

// taskRecords are the store's tasks (store.CRMRecords).
type taskRecords struct{ *Store }

// Tasks are the CRM tasks.
func (s *Store) Tasks() store.CRMRecords[model.Task, store.TaskFilter] { return taskRecords{s} }
