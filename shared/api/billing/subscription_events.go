package billing

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/imports"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/timefmt"
)

func errEventNotFound() *apperr.Error {
	return apperr.NotFound("subscription_event", "Subscription event not found")
}

// eventJSON renders a subscription event (docs/api.md, "Objects"). The numbers a client
// sent as strings are echoed as strings, and retracted_event_id is always a string: both
// official clients type it so, and a number there makes the Python client raise.
func eventJSON(e model.SubscriptionEvent) jsonobj.Object {
	var external any
	if e.ExternalID != "" {
		external = e.ExternalID
	}
	echoed := func(field string, v *int64) any {
		if v == nil {
			return nil
		}
		if slices.Contains(e.SentAsString, field) {
			return strconv.FormatInt(*v, 10)
		}
		return *v
	}
	var retracted any
	if e.RetractedEventID != nil {
		retracted = strconv.FormatInt(*e.RetractedEventID, 10)
	}
	o := jsonobj.Object{{Key: "id", Value: e.ID}, {Key: "data_source_uuid", Value: e.DataSourceUUID},
		{Key: "customer_external_id", Value: e.CustomerExternalID},
		{Key: "subscription_set_external_id", Value: e.SubscriptionSetExternalID},
		{Key: "subscription_external_id", Value: e.SubscriptionExternalID},
		{Key: "plan_external_id", Value: e.PlanExternalID},
		{Key: "event_date", Value: timefmt.Seconds(e.EventDate)},
		{Key: "effective_date", Value: timefmt.Seconds(e.EffectiveDate)},
		{Key: "event_type", Value: e.EventType}, {Key: "external_id", Value: external},
		{Key: "errors", Value: jsonobj.Object{}},
		{Key: "created_at", Value: timefmt.Seconds(e.CreatedAt)}, {Key: "updated_at", Value: timefmt.Seconds(e.UpdatedAt)},
		{Key: "quantity", Value: echoed("quantity", e.Quantity)}, {Key: "currency", Value: e.Currency},
		{Key: "amount_in_cents", Value: echoed("amount_in_cents", e.AmountInCents)},
		{Key: "tax_amount_in_cents", Value: echoed("tax_amount_in_cents", e.TaxAmountInCents)},
		{Key: "retracted_event_id", Value: retracted}}
	// event_order is documented but absent from every recording: shown only when set.
	if e.EventOrder != nil {
		o = append(o, jsonobj.Field{Key: "event_order", Value: echoed("event_order", e.EventOrder)})
	}
	return o
}

// eventBody reads {"subscription_event":{…}}; for DELETE the ruby client's query
// string form subscription_event[field]=… is accepted too.
func eventBody(r *apigw.Request) (map[string]any, error) {
	var b struct {
		Event map[string]any `json:"subscription_event"`
	}
	if err := r.Decode(&b); err != nil {
		return nil, err
	}
	if b.Event == nil {
		for k, v := range r.Event.QueryStringParameters {
			if f, ok := strings.CutPrefix(k, "subscription_event["); ok && strings.HasSuffix(f, "]") {
				if b.Event == nil {
					b.Event = map[string]any{}
				}
				b.Event[strings.TrimSuffix(f, "]")] = v
			}
		}
	}
	if b.Event == nil {
		return nil, apperr.MissingParam("subscription_event")
	}
	return b.Event, nil
}

func strField(obj map[string]any, name string) string {
	switch v := obj[name].(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return ""
}

// findEvent finds the event a body identifies: by id, or by data_source_uuid and
// external_id.
func findEvent(ctx context.Context, d *api.Deps, accountID string, obj map[string]any) (model.SubscriptionEvent, error) {
	if raw := strField(obj, "id"); raw != "" {
		id, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return model.SubscriptionEvent{}, errEventNotFound()
		}
		e, err := storage(d).GetSubscriptionEvent(ctx, accountID, id)
		if errors.Is(err, store.ErrNotFound) {
			return e, errEventNotFound()
		}
		return e, err
	}
	dsUUID, ext := strField(obj, "data_source_uuid"), strField(obj, "external_id")
	if dsUUID == "" || ext == "" {
		return model.SubscriptionEvent{}, apperr.MissingParam("id")
	}
	e, err := storage(d).SubscriptionEventByExternalID(ctx, accountID, dsUUID, ext)
	if errors.Is(err, store.ErrNotFound) {
		return e, errEventNotFound()
	}
	return e, err
}

// eventOwner resolves the customer of an event's customer_external_id and checks
// that its plan exists in the data source.
func eventOwner(ctx context.Context, d *api.Deps, accountID, dsUUID string, f model.EventFields) (string, error) {
	cus, err := storage(d).CustomerUUIDByExternalID(ctx, accountID, dsUUID, f.CustomerExternalID)
	if errors.Is(err, store.ErrNotFound) {
		return "", apperr.Unprocessable("customer_external_id", "Customer %q does not exist in this data source", f.CustomerExternalID)
	}
	if err != nil {
		return "", err
	}
	if f.PlanExternalID != nil && *f.PlanExternalID != "" {
		_, err := storage(d).GetPlanByExternalID(ctx, accountID, dsUUID, *f.PlanExternalID)
		if errors.Is(err, store.ErrNotFound) {
			return "", apperr.Unprocessable("plan_external_id", "Plan %q does not exist in this data source", *f.PlanExternalID)
		}
		if err != nil {
			return "", err
		}
	}
	return cus, nil
}

// recomputeEventCustomers queues the recompute of the customers an event change touched.
func recomputeEventCustomers(ctx context.Context, d *api.Deps, accountID string, eventID int64, customers ...string) error {
	seen := map[string]bool{}
	for _, c := range customers {
		if c == "" || seen[c] {
			continue
		}
		seen[c] = true
		job := jobs.Recompute(accountID, c,
			"subscription_event:"+strconv.FormatInt(eventID, 10)+":"+strconv.FormatInt(d.Now().UnixNano(), 10))
		if err := d.Jobs.Send(ctx, job); err != nil {
			return err
		}
	}
	return nil
}

// CreateSubscriptionEvent is POST /v1/subscription_events: 201 with the event. The
// id derives from the external id (or the content), so a retried create returns the
// same event; another event with that external id is a 422.
func CreateSubscriptionEvent(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		obj, err := eventBody(r)
		if err != nil {
			return apigw.Response{}, err
		}
		dsUUID := strField(obj, "data_source_uuid")
		if dsUUID == "" {
			return apigw.Response{}, apperr.MissingParam("data_source_uuid")
		}
		ds, err := api.LiveDataSource(ctx, d, r.AccountID, dsUUID)
		if err != nil {
			return apigw.Response{}, err
		}
		fields, err := model.ReadSubscriptionEvent(obj, true)
		if err != nil {
			return apigw.Response{}, api.ImportError(err)
		}
		cus, err := eventOwner(ctx, d, r.AccountID, ds.UUID, fields)
		if err != nil {
			return apigw.Response{}, err
		}
		now := d.Now()
		ev := model.SubscriptionEvent{AccountID: r.AccountID, ID: imports.EventID(r.AccountID, ds.UUID, fields),
			DataSourceUUID: ds.UUID, CustomerUUID: cus, EventFields: fields, CreatedAt: now, UpdatedAt: now}
		if err := storage(d).IndexSubscriptionEvents(ctx, r.AccountID, cus, map[int64]int64{ev.ID: ev.EffectiveDate.Unix()}, nil); err != nil {
			return apigw.Response{}, err
		}
		switch err := storage(d).CreateSubscriptionEvent(ctx, ev); {
		case errors.Is(err, store.ErrEventExternalIDTaken):
			// Nothing was written at ev.ID: the index must not keep it.
			if err := storage(d).IndexSubscriptionEvents(ctx, r.AccountID, cus, nil, []int64{ev.ID}); err != nil {
				return apigw.Response{}, err
			}
			return apigw.Response{}, errEventExternalIDTaken(fields.ExternalID)
		case errors.Is(err, store.ErrEventExists):
			old, gerr := storage(d).GetSubscriptionEvent(ctx, r.AccountID, ev.ID)
			if gerr != nil {
				return apigw.Response{}, gerr
			}
			if old.CustomerUUID != cus {
				// Another customer's event holds the id: this customer's index must not list it.
				if err := storage(d).IndexSubscriptionEvents(ctx, r.AccountID, cus, nil, []int64{ev.ID}); err != nil {
					return apigw.Response{}, err
				}
			}
			if old.CustomerUUID != cus || !sameEventFields(old.EventFields, fields) {
				return apigw.Response{}, errEventExternalIDTaken(fields.ExternalID)
			}
			ev = old
		case err != nil:
			return apigw.Response{}, err
		}
		if err := recomputeEventCustomers(ctx, d, r.AccountID, ev.ID, cus); err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusCreated, eventJSON(ev))
	}}
}

func sameEventFields(a, b model.EventFields) bool {
	a.EventDate, a.EffectiveDate = a.EventDate.UTC(), a.EffectiveDate.UTC()
	b.EventDate, b.EffectiveDate = b.EventDate.UTC(), b.EffectiveDate.UTC()
	return reflect.DeepEqual(a, b)
}

func errEventExternalIDTaken(ext string) *apperr.Error {
	return apperr.Unprocessable("external_id", "external_id %q has already been taken", ext)
}

// maxEventAttempts bounds the re-reads of an event that changed between its read
// and its write (retryChanged).
const maxEventAttempts = 3

// UpdateSubscriptionEvent is PATCH /v1/subscription_events: the sent fields replace
// the stored ones and the result is validated as a whole. 200 with the event. A new
// external_id must be free in the data source (422 otherwise, the event unchanged).
func UpdateSubscriptionEvent(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		obj, err := eventBody(r)
		if err != nil {
			return apigw.Response{}, err
		}
		var ev, old model.SubscriptionEvent
		if err := retryChanged(func() (err error) {
			ev, old, err = updateEvent(ctx, d, r.AccountID, obj)
			return err
		}); err != nil {
			return apigw.Response{}, err
		}
		if err := recomputeEventCustomers(ctx, d, r.AccountID, ev.ID, ev.CustomerUUID, old.CustomerUUID); err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, eventJSON(ev))
	}}
}

// retryChanged runs attempt again, reading the event afresh, while it fails with
// store.ErrConflict (the event changed between its read and its write), at most
// maxEventAttempts times.
func retryChanged(attempt func() error) error {
	for range maxEventAttempts {
		if err := attempt(); !errors.Is(err, store.ErrConflict) {
			return err
		}
	}
	return apperr.Conflict("subscription_event", "The subscription event is being changed by another request")
}

// updateEvent applies one PATCH to the event as it is now; store.ErrConflict when it
// changed before the write.
func updateEvent(ctx context.Context, d *api.Deps, accountID string, obj map[string]any) (ev, old model.SubscriptionEvent, err error) {
	old, err = findEvent(ctx, d, accountID, obj)
	if err != nil {
		return ev, old, err
	}
	merged, err := mergeEventFields(old.EventFields, obj)
	if err != nil {
		return ev, old, err
	}
	fields, err := model.ReadSubscriptionEvent(merged, true)
	if err != nil {
		return ev, old, api.ImportError(err)
	}
	cus, err := eventOwner(ctx, d, accountID, old.DataSourceUUID, fields)
	if err != nil {
		return ev, old, err
	}
	ev = old
	ev.EventFields, ev.CustomerUUID, ev.UpdatedAt = fields, cus, d.Now()
	if err := storage(d).IndexSubscriptionEvents(ctx, accountID, cus, map[int64]int64{ev.ID: ev.EffectiveDate.Unix()}, nil); err != nil {
		return ev, old, err
	}
	if err := storage(d).SaveSubscriptionEvent(ctx, old, ev); err != nil {
		if cus != old.CustomerUUID {
			// Not written: the new customer's index must not keep it.
			if uerr := storage(d).IndexSubscriptionEvents(ctx, accountID, cus, nil, []int64{ev.ID}); uerr != nil {
				return ev, old, uerr
			}
		}
		if errors.Is(err, store.ErrEventExternalIDTaken) {
			return ev, old, errEventExternalIDTaken(fields.ExternalID)
		}
		return ev, old, err
	}
	if cus != old.CustomerUUID {
		if err := storage(d).IndexSubscriptionEvents(ctx, accountID, old.CustomerUUID, nil, []int64{ev.ID}); err != nil {
			return ev, old, err
		}
	}
	return ev, old, nil
}

// mergeEventFields lays the sent fields over the stored ones (identifiers and
// read-only fields excepted), as a body the validation reads.
func mergeEventFields(old model.EventFields, sent map[string]any) (map[string]any, error) {
	raw, err := json.Marshal(old)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var merged map[string]any
	if err := dec.Decode(&merged); err != nil {
		return nil, err
	}
	// Stored numbers keep the JSON type they were sent with until a PATCH sends them again.
	delete(merged, "sent_as_string")
	for _, f := range old.SentAsString {
		if n, ok := merged[f].(json.Number); ok {
			merged[f] = n.String()
		}
	}
	for k, v := range sent {
		switch k {
		case "id", "data_source_uuid", "errors", "created_at", "updated_at":
		default:
			merged[k] = v
		}
	}
	return merged, nil
}

// DeleteSubscriptionEvent is DELETE /v1/subscription_events (JSON body or query
// string). 204.
func DeleteSubscriptionEvent(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		obj, err := eventBody(r)
		if err != nil {
			return apigw.Response{}, err
		}
		var ev model.SubscriptionEvent
		// ErrConflict: a merge moved it to another customer meanwhile.
		if err := retryChanged(func() (err error) {
			if ev, err = findEvent(ctx, d, r.AccountID, obj); err != nil {
				return err
			}
			return storage(d).DeleteSubscriptionEvent(ctx, ev)
		}); err != nil {
			return apigw.Response{}, err
		}
		if err := storage(d).IndexSubscriptionEvents(ctx, r.AccountID, ev.CustomerUUID, nil, []int64{ev.ID}); err != nil {
			return apigw.Response{}, err
		}
		if err := recomputeEventCustomers(ctx, d, r.AccountID, ev.ID, ev.CustomerUUID); err != nil {
			return apigw.Response{}, err
		}
		return apigw.NoContent()
	}}
}

// ListSubscriptionEvents is GET /v1/subscription_events, in id order. A page is a
// bounded number of Queries: with a selective filter it can come back short, with
// has_more and a cursor where the reading stopped. The first page carries meta;
// total_pages is null when counting would take more than one more Query.
func ListSubscriptionEvents(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		pg, err := api.ReadCursor(d, r, api.Listing{Scope: "subscription-events", Params: eventFilterParams, Legacy: true})
		if err != nil {
			return apigw.Response{}, err
		}
		match, err := eventFilter(r)
		if err != nil {
			return apigw.Response{}, err
		}
		page, err := api.ReadPage(pg, func(limit int, start store.PageToken) (store.Page[model.SubscriptionEvent], error) {
			return storage(d).ListSubscriptionEvents(ctx, r.AccountID, match, limit, start)
		})
		if err != nil {
			return apigw.Response{}, err
		}
		withDisabled, _ := api.Flag(r, "with_disabled") // checked by eventFilter
		out := make([]jsonobj.Object, len(page.Items))
		for i, e := range page.Items {
			if out[i] = eventJSON(e); withDisabled {
				out[i] = append(out[i], disabledFields(e.DisabledState)...)
			}
		}
		var legacy jsonobj.Object
		if pg.Legacy() {
			meta, err := eventsMeta(ctx, d, r.AccountID, match, page, pg)
			if err != nil {
				return apigw.Response{}, err
			}
			legacy = jsonobj.Object{{Key: "meta", Value: meta}}
		}
		return pg.Render(d, r, api.Page{Key: "subscription_events", Entries: out, Legacy: legacy, Next: page.Next, HasMore: page.HasMore})
	}}
}

// eventsMeta is the legacy meta of the first page or of page=N (docs/api.md,
// "Pagination"); page and total_pages are 0 for an empty listing.
func eventsMeta(ctx context.Context, d *api.Deps, accountID string, match func(model.SubscriptionEvent) bool,
	page store.Page[model.SubscriptionEvent], pg api.Paging) (jsonobj.Object, error) {
	var nextKey any
	if page.HasMore && len(page.Items) > 0 {
		nextKey = page.Items[len(page.Items)-1].ID
	}
	total, known := pg.Skipped()+len(page.Items), true
	if page.TotalKnown {
		total = page.Total
	}
	if page.HasMore {
		var err error
		if total, known, err = storage(d).CountSubscriptionEvents(ctx, accountID, match); err != nil {
			return nil, err
		}
	}
	var totalPages any
	pageNo := pg.Page
	if known {
		totalPages = (total + pg.PerPage - 1) / pg.PerPage
		if total == 0 {
			pageNo = 0
		}
	}
	return jsonobj.Object{{Key: "next_key", Value: nextKey}, {Key: "prev_key", Value: nil},
		{Key: "before_key", Value: timefmt.Millis(d.Now())}, {Key: "page", Value: pageNo},
		{Key: "total_pages", Value: totalPages}}, nil
}

// eventFilterParams are the filters of GET /v1/subscription_events.
var eventFilterParams = []string{"data_source_uuid", "external_id", "customer_external_id", "customer_uuid",
	"subscription_external_id", "event_type", "plan_external_id", "event_date", "effective_date"}

// eventFilter builds the list's filter from the query (docs/api.md, "Endpoints").
func eventFilter(r *apigw.Request) (func(model.SubscriptionEvent) bool, error) {
	type check func(model.SubscriptionEvent) bool
	var checks []check
	text := map[string]func(model.SubscriptionEvent) string{
		"data_source_uuid":         func(e model.SubscriptionEvent) string { return e.DataSourceUUID },
		"external_id":              func(e model.SubscriptionEvent) string { return e.ExternalID },
		"customer_external_id":     func(e model.SubscriptionEvent) string { return e.CustomerExternalID },
		"customer_uuid":            func(e model.SubscriptionEvent) string { return e.CustomerUUID },
		"subscription_external_id": func(e model.SubscriptionEvent) string { return e.SubscriptionExternalID },
		"event_type":               func(e model.SubscriptionEvent) string { return e.EventType },
		"plan_external_id": func(e model.SubscriptionEvent) string {
			if e.PlanExternalID == nil {
				return ""
			}
			return *e.PlanExternalID
		},
	}
	for name, get := range text {
		if want := r.Query(name); want != "" {
			checks = append(checks, func(e model.SubscriptionEvent) bool { return get(e) == want })
		}
	}
	for name, get := range map[string]func(model.SubscriptionEvent) int64{
		"event_date":     func(e model.SubscriptionEvent) int64 { return e.EventDate.Unix() },
		"effective_date": func(e model.SubscriptionEvent) int64 { return e.EffectiveDate.Unix() },
	} {
		if raw := r.Query(name); raw != "" {
			t, err := timefmt.Parse(raw)
			if err != nil {
				return nil, apperr.BadRequest(name, "%q is not a valid ISO 8601 date", raw)
			}
			checks = append(checks, func(e model.SubscriptionEvent) bool { return get(e) == t.Unix() })
		}
	}
	withDisabled, err := api.Flag(r, "with_disabled")
	if err != nil {
		return nil, err
	}
	if !withDisabled {
		checks = append(checks, func(e model.SubscriptionEvent) bool { return !e.Disabled })
	}
	if len(checks) == 0 {
		return nil, nil // every event
	}
	return func(e model.SubscriptionEvent) bool {
		for _, c := range checks {
			if !c(e) {
				return false
			}
		}
		return true
	}, nil
}
