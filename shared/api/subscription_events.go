package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/app"
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

// eventJSON renders a subscription event (§2.9).
func eventJSON(e model.SubscriptionEvent) jsonobj.Object {
	var external any
	if e.ExternalID != "" {
		external = e.ExternalID
	}
	return jsonobj.Object{{Key: "id", Value: e.ID}, {Key: "data_source_uuid", Value: e.DataSourceUUID},
		{Key: "customer_external_id", Value: e.CustomerExternalID},
		{Key: "subscription_set_external_id", Value: e.SubscriptionSetExternalID},
		{Key: "subscription_external_id", Value: e.SubscriptionExternalID},
		{Key: "plan_external_id", Value: e.PlanExternalID},
		{Key: "event_date", Value: timefmt.Seconds(e.EventDate)},
		{Key: "effective_date", Value: timefmt.Seconds(e.EffectiveDate)},
		{Key: "event_type", Value: e.EventType}, {Key: "external_id", Value: external},
		{Key: "errors", Value: jsonobj.Object{}},
		{Key: "created_at", Value: timefmt.Seconds(e.CreatedAt)}, {Key: "updated_at", Value: timefmt.Seconds(e.UpdatedAt)},
		{Key: "quantity", Value: e.Quantity}, {Key: "currency", Value: e.Currency},
		{Key: "amount_in_cents", Value: e.AmountInCents}, {Key: "tax_amount_in_cents", Value: e.TaxAmountInCents},
		{Key: "retracted_event_id", Value: e.RetractedEventID}, {Key: "event_order", Value: e.EventOrder}}
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
func findEvent(ctx context.Context, d *app.Deps, accountID string, obj map[string]any) (model.SubscriptionEvent, error) {
	if raw := strField(obj, "id"); raw != "" {
		id, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return model.SubscriptionEvent{}, errEventNotFound()
		}
		e, err := d.Store.GetSubscriptionEvent(ctx, accountID, id)
		if errors.Is(err, store.ErrNotFound) {
			return e, errEventNotFound()
		}
		return e, err
	}
	dsUUID, ext := strField(obj, "data_source_uuid"), strField(obj, "external_id")
	if dsUUID == "" || ext == "" {
		return model.SubscriptionEvent{}, apperr.MissingParam("id")
	}
	// An event created with this external id has it in its id; one given it by a
	// later update is found by walking the account's events.
	id := imports.EventID(accountID, dsUUID, model.EventFields{ExternalID: ext})
	e, err := d.Store.GetSubscriptionEvent(ctx, accountID, id)
	if err == nil && e.DataSourceUUID == dsUUID && e.ExternalID == ext {
		return e, nil
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return e, err
	}
	var found *model.SubscriptionEvent
	err = d.Store.EachSubscriptionEvent(ctx, accountID, 0, func(ev model.SubscriptionEvent) bool {
		if ev.DataSourceUUID == dsUUID && ev.ExternalID == ext {
			found = &ev
			return false
		}
		return true
	})
	if err != nil {
		return model.SubscriptionEvent{}, err
	}
	if found == nil {
		return model.SubscriptionEvent{}, errEventNotFound()
	}
	return *found, nil
}

// eventOwner resolves the customer of an event's customer_external_id and checks
// that its plan exists in the data source.
func eventOwner(ctx context.Context, d *app.Deps, accountID, dsUUID string, f model.EventFields) (string, error) {
	cus, err := d.Store.CustomerUUIDByExternalID(ctx, accountID, dsUUID, f.CustomerExternalID)
	if errors.Is(err, store.ErrNotFound) {
		return "", apperr.Unprocessable("customer_external_id", "Customer %q does not exist in this data source", f.CustomerExternalID)
	}
	if err != nil {
		return "", err
	}
	if f.PlanExternalID != nil && *f.PlanExternalID != "" {
		_, err := d.Store.GetPlanByExternalID(ctx, accountID, dsUUID, *f.PlanExternalID)
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
func recomputeEventCustomers(ctx context.Context, d *app.Deps, accountID string, eventID int64, customers ...string) error {
	seen := map[string]bool{}
	for _, c := range customers {
		if c == "" || seen[c] {
			continue
		}
		seen[c] = true
		job := jobs.Message{Type: jobs.RecomputeCustomer, AccountID: accountID, CustomerUUID: c,
			Nonce: "subscription_event:" + strconv.FormatInt(eventID, 10) + ":" + strconv.FormatInt(d.Now().UnixNano(), 10)}
		if err := d.Jobs.Send(ctx, job); err != nil {
			return err
		}
	}
	return nil
}

// CreateSubscriptionEvent is POST /v1/subscription_events: 201 with the event. The
// id derives from the external id (or the content), so a retried create returns the
// same event; another event with that external id is a 422.
func CreateSubscriptionEvent(d *app.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		obj, err := eventBody(r)
		if err != nil {
			return apigw.Response{}, err
		}
		dsUUID := strField(obj, "data_source_uuid")
		if dsUUID == "" {
			return apigw.Response{}, apperr.MissingParam("data_source_uuid")
		}
		ds, err := liveDataSource(ctx, d, r.AccountID, dsUUID)
		if err != nil {
			return apigw.Response{}, err
		}
		fields, err := model.ReadSubscriptionEvent(obj, true)
		if err != nil {
			return apigw.Response{}, importError(err)
		}
		cus, err := eventOwner(ctx, d, r.AccountID, ds.UUID, fields)
		if err != nil {
			return apigw.Response{}, err
		}
		now := d.Now()
		ev := model.SubscriptionEvent{AccountID: r.AccountID, ID: imports.EventID(r.AccountID, ds.UUID, fields),
			DataSourceUUID: ds.UUID, CustomerUUID: cus, EventFields: fields, CreatedAt: now, UpdatedAt: now}
		if err := d.Store.IndexSubscriptionEvents(ctx, r.AccountID, cus, map[int64]int64{ev.ID: ev.EffectiveDate.Unix()}, nil); err != nil {
			return apigw.Response{}, err
		}
		switch err := d.Store.CreateSubscriptionEvent(ctx, ev); {
		case errors.Is(err, store.ErrEventExists):
			old, gerr := d.Store.GetSubscriptionEvent(ctx, r.AccountID, ev.ID)
			if gerr != nil {
				return apigw.Response{}, gerr
			}
			if old.CustomerUUID != cus || !sameEventFields(old.EventFields, fields) {
				return apigw.Response{}, apperr.Unprocessable("external_id", "external_id %q has already been taken", fields.ExternalID)
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

// UpdateSubscriptionEvent is PATCH /v1/subscription_events: the sent fields replace
// the stored ones and the result is validated as a whole. 200 with the event.
func UpdateSubscriptionEvent(d *app.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		obj, err := eventBody(r)
		if err != nil {
			return apigw.Response{}, err
		}
		old, err := findEvent(ctx, d, r.AccountID, obj)
		if err != nil {
			return apigw.Response{}, err
		}
		merged, err := mergeEventFields(old.EventFields, obj)
		if err != nil {
			return apigw.Response{}, err
		}
		fields, err := model.ReadSubscriptionEvent(merged, true)
		if err != nil {
			return apigw.Response{}, importError(err)
		}
		cus, err := eventOwner(ctx, d, r.AccountID, old.DataSourceUUID, fields)
		if err != nil {
			return apigw.Response{}, err
		}
		ev := old
		ev.EventFields, ev.CustomerUUID, ev.UpdatedAt = fields, cus, d.Now()
		if err := d.Store.IndexSubscriptionEvents(ctx, r.AccountID, cus, map[int64]int64{ev.ID: ev.EffectiveDate.Unix()}, nil); err != nil {
			return apigw.Response{}, err
		}
		if err := d.Store.ReplaceSubscriptionEvent(ctx, ev); errors.Is(err, store.ErrNotFound) {
			return apigw.Response{}, errEventNotFound()
		} else if err != nil {
			return apigw.Response{}, err
		}
		if cus != old.CustomerUUID {
			if err := d.Store.IndexSubscriptionEvents(ctx, r.AccountID, old.CustomerUUID, nil, []int64{ev.ID}); err != nil {
				return apigw.Response{}, err
			}
		}
		if err := recomputeEventCustomers(ctx, d, r.AccountID, ev.ID, cus, old.CustomerUUID); err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, eventJSON(ev))
	}}
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
func DeleteSubscriptionEvent(d *app.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		obj, err := eventBody(r)
		if err != nil {
			return apigw.Response{}, err
		}
		ev, err := findEvent(ctx, d, r.AccountID, obj)
		if err != nil {
			return apigw.Response{}, err
		}
		if err := d.Store.DeleteSubscriptionEvent(ctx, r.AccountID, ev.ID); err != nil {
			return apigw.Response{}, err
		}
		if err := d.Store.IndexSubscriptionEvents(ctx, r.AccountID, ev.CustomerUUID, nil, []int64{ev.ID}); err != nil {
			return apigw.Response{}, err
		}
		if err := recomputeEventCustomers(ctx, d, r.AccountID, ev.ID, ev.CustomerUUID); err != nil {
			return apigw.Response{}, err
		}
		return apigw.NoContent()
	}}
}

// cursorAfter reads the id a list cursor continues after.
func cursorAfter(d *app.Deps, r *apigw.Request, scope string) (int64, error) {
	raw := r.Query("cursor")
	if raw == "" {
		return 0, nil
	}
	k, err := d.Cursors.Decode(r.AccountID, scope, raw)
	if err != nil {
		return 0, apperr.BadRequest("cursor", "Invalid cursor")
	}
	after, err := strconv.ParseInt(attrString(k["after"]), 10, 64)
	if err != nil || after < 0 {
		return 0, apperr.BadRequest("cursor", "Invalid cursor")
	}
	return after, nil
}

// ListSubscriptionEvents is GET /v1/subscription_events, in id order; the first page
// carries meta with the total.
func ListSubscriptionEvents(d *app.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		perPage, err := r.PerPage()
		if err != nil {
			return apigw.Response{}, err
		}
		match, err := eventFilter(r)
		if err != nil {
			return apigw.Response{}, err
		}
		const scope = "subscription-events"
		after, err := cursorAfter(d, r, scope)
		if err != nil {
			return apigw.Response{}, err
		}
		first := r.Query("cursor") == ""
		var page []model.SubscriptionEvent
		total := 0
		err = d.Store.EachSubscriptionEvent(ctx, r.AccountID, after, func(e model.SubscriptionEvent) bool {
			if !match(e) {
				return true
			}
			total++
			if len(page) <= perPage {
				page = append(page, e)
			}
			// Only the first page counts every match (for meta).
			return first || len(page) <= perPage
		})
		if err != nil {
			return apigw.Response{}, err
		}
		hasMore := len(page) > perPage
		page = page[:min(perPage, len(page))]
		out := make([]jsonobj.Object, len(page))
		var next map[string]types.AttributeValue
		var nextKey any
		for i, e := range page {
			out[i] = eventJSON(e)
			next = map[string]types.AttributeValue{"after": &types.AttributeValueMemberS{Value: strconv.FormatInt(e.ID, 10)}}
		}
		if hasMore {
			nextKey = page[len(page)-1].ID
		}
		cur, err := d.Cursors.Encode(r.AccountID, scope, next)
		if err != nil {
			return apigw.Response{}, err
		}
		body := jsonobj.Object{{Key: "subscription_events", Value: out}}
		if first {
			pageNo := 1
			if total == 0 {
				pageNo = 0
			}
			body = append(body, jsonobj.Field{Key: "meta", Value: jsonobj.Object{{Key: "next_key", Value: nextKey},
				{Key: "prev_key", Value: nil}, {Key: "before_key", Value: timefmt.Millis(d.Now())},
				{Key: "page", Value: pageNo}, {Key: "total_pages", Value: (total + perPage - 1) / perPage}}})
		}
		body = append(body, jsonobj.Field{Key: "cursor", Value: cur}, jsonobj.Field{Key: "has_more", Value: hasMore})
		return apigw.JSON(http.StatusOK, body)
	}}
}

// eventFilter builds the list's filter from the query (§4.9).
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
	return func(e model.SubscriptionEvent) bool {
		for _, c := range checks {
			if !c(e) {
				return false
			}
		}
		return true
	}, nil
}
