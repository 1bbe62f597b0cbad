package crm

import (
	"context"
	"strings"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/timefmt"
)

// tasks is the CRM kind of /v1/tasks (docs/api.md, "Objects").
var tasks = crmKind[model.Task, *model.Task]{
	param: "task_uuid", noun: "Task", contacts: true, notModified: true,
	prepare: withMember(model.ReadTask, "assignee", func(v *model.Task) *string { return &v.Assignee }),
	render:  taskJSON,
	get: func(ctx context.Context, d *api.Deps, accountID, uuid string) (model.Task, error) {
		return storage(d).Tasks().Get(ctx, accountID, uuid)
	},
	create: func(ctx context.Context, d *api.Deps, t model.Task) error { return storage(d).Tasks().Create(ctx, t) },
	update: func(ctx context.Context, d *api.Deps, t model.Task) error { return storage(d).Tasks().Update(ctx, t) },
	remove: func(ctx context.Context, d *api.Deps, t model.Task) error { return storage(d).Tasks().Delete(ctx, t) },
}

// taskJSON is the task object, keys in ChartMogul's order (task_uuid, not uuid); a task
// made for a contact also names it (associated_object, associated_object_uuid).
func taskJSON(t model.Task) jsonobj.Object {
	o := jsonobj.Object{{Key: "task_uuid", Value: t.UUID}, {Key: "customer_uuid", Value: t.CustomerUUID}}
	o = append(o, associatedContact(t.ContactUUID)...)
	return append(o, jsonobj.Field{Key: "task_details", Value: t.TaskDetails}, jsonobj.Field{Key: "assignee", Value: t.Assignee},
		jsonobj.Field{Key: "due_date", Value: timefmt.Millis(t.DueDate)},
		jsonobj.Field{Key: "completed_at", Value: timefmt.MillisPtr(t.CompletedAt)},
		jsonobj.Field{Key: "created_at", Value: timefmt.Millis(t.CreatedAt)},
		jsonobj.Field{Key: "updated_at", Value: timefmt.Millis(t.UpdatedAt)})
}

// associatedContact are the keys that name the contact a record was made for (none for
// a customer's own record, as recorded).
func associatedContact(contactUUID string) jsonobj.Object {
	if contactUUID == "" {
		return nil
	}
	return jsonobj.Object{{Key: "associated_object", Value: "contact"}, {Key: "associated_object_uuid", Value: contactUUID}}
}

// CreateTask is POST /v1/tasks: customer_uuid (or a contact's
// associated_object_identifier), task_details, assignee (a team member) and due_date
// are required; completed_at is optional.
func CreateTask(d *api.Deps) apigw.Endpoint { return crmCreate(d, tasks) }

// GetTask is GET /v1/tasks/{task_uuid}.
func GetTask(d *api.Deps) apigw.Endpoint { return crmGet(d, tasks) }

// UpdateTask is PATCH /v1/tasks/{task_uuid}; completed_at null reopens the task.
func UpdateTask(d *api.Deps) apigw.Endpoint { return crmUpdate(d, tasks) }

// DeleteTask is DELETE /v1/tasks/{task_uuid}: 200 {}.
func DeleteTask(d *api.Deps) apigw.Endpoint { return crmDelete(d, tasks) }

// taskFilters are the filters of GET /v1/tasks.
var taskFilters = []string{"customer_uuid", "contact_uuid", "assignee", "due_date_on_or_after", "due_date_on_or_before", "completed"}

// ListTasks is GET /v1/tasks: newest first, filtered by customer, contact, assignee,
// due date (inclusive bounds; a date alone as upper bound covers its day) and
// completed (true or false).
func ListTasks(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		f := store.TaskFilter{CustomerUUID: r.Query("customer_uuid"), Assignee: strings.TrimSpace(r.Query("assignee"))}
		var err error
		if f.DueFrom, err = api.TimeParam(r, "due_date_on_or_after", false); err != nil {
			return apigw.Response{}, err
		}
		if f.DueTo, err = api.TimeParam(r, "due_date_on_or_before", true); err != nil {
			return apigw.Response{}, err
		}
		switch c := strings.ToLower(r.Query("completed")); c {
		case "":
		case "true", "false":
			done := c == "true"
			f.Completed = &done
		default:
			return apigw.Response{}, apperr.BadRequest("completed", "Invalid value for parameter \"completed\": %q (true or false)", r.Query("completed"))
		}
		pg, err := api.ReadCursor(d, r, api.FilteredListing(r, "tasks", taskFilters))
		if err != nil {
			return apigw.Response{}, err
		}
		var ok bool
		if f.CustomerUUID, f.ContactUUID, ok, err = recordOwner(ctx, d, r, true); err != nil {
			return apigw.Response{}, err
		}
		page := store.Page[model.Task]{}
		if ok {
			if page, err = storage(d).Tasks().List(ctx, r.AccountID, f, pg.PerPage, pg.Start); err != nil {
				return apigw.Response{}, err
			}
		}
		return pg.Render(d, r, api.Page{Key: "entries", Entries: api.Each(page.Items, func(t model.Task) any { return taskJSON(t) }), Next: page.Next, HasMore: page.HasMore})
	}}
}
