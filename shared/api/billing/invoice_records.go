package billing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/imports"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/jsonbody"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// The line item and transaction operations (docs/api.md, "Line items and
// transactions"). Each constructor serves both forms of its route: the record's uuid in
// the path, or data_source_uuid and external_id in the query string. Records live
// inside their invoice: a change rewrites the invoice (conditional on its updated_at)
// and is applied with the import worker's own step, so that subscriptions, plans and
// locators follow as they do for imports.

// CreateInvoiceLineItem is POST /v1/import/invoices/{invoice_uuid}/line_items: 201 with
// the line item.
func CreateInvoiceLineItem(d *api.Deps) apigw.Endpoint { return addRecord(d, lineItems()) }

// GetLineItem is GET /v1/line_items/{line_item_uuid} and GET
// /v1/line_items?data_source_uuid=&external_id=.
func GetLineItem(d *api.Deps) apigw.Endpoint { return getRecord(d, lineItems()) }

// UpdateLineItem is PATCH /v1/line_items/{line_item_uuid} and PATCH
// /v1/line_items?data_source_uuid=&external_id=.
func UpdateLineItem(d *api.Deps) apigw.Endpoint { return updateRecord(d, lineItems()) }

// DeleteLineItem is DELETE /v1/line_items/{line_item_uuid} and DELETE
// /v1/line_items?data_source_uuid=&external_id=: 204.
func DeleteLineItem(d *api.Deps) apigw.Endpoint { return deleteRecord(d, lineItems()) }

// SetLineItemDisabled is PATCH /v1/line_items/{line_item_uuid}/disabled_state and PATCH
// /v1/line_items/disabled_state?data_source_uuid=&external_id=.
func SetLineItemDisabled(d *api.Deps) apigw.Endpoint { return setRecordDisabled(d, lineItems()) }

// GetTransaction is GET /v1/transactions/{transaction_uuid} and GET
// /v1/transactions?data_source_uuid=&external_id=.
func GetTransaction(d *api.Deps) apigw.Endpoint { return getRecord(d, transactions()) }

// UpdateTransaction is PATCH /v1/transactions/{transaction_uuid} and its by-external-id form.
func UpdateTransaction(d *api.Deps) apigw.Endpoint { return updateRecord(d, transactions()) }

// DeleteTransaction is DELETE /v1/transactions/{transaction_uuid} and its by-external-id form.
func DeleteTransaction(d *api.Deps) apigw.Endpoint { return deleteRecord(d, transactions()) }

// SetTransactionDisabled is PATCH /v1/transactions/{transaction_uuid}/disabled_state and
// its by-external-id form.
func SetTransactionDisabled(d *api.Deps) apigw.Endpoint { return setRecordDisabled(d, transactions()) }

// getRecord answers the record; a disabled one only with with_disabled=true (as
// ChartMogul's retrieve), else it is not found; with include_edit_histories=true, with
// its edit_history_summary.
func getRecord(d *api.Deps, k recordKind) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		withDisabled, err := api.Flag(r, "with_disabled")
		if err != nil {
			return apigw.Response{}, err
		}
		edits, err := api.Flag(r, "include_edit_histories")
		if err != nil {
			return apigw.Response{}, err
		}
		h, err := k.locate(ctx, d, r)
		if err != nil {
			return apigw.Response{}, err
		}
		if k.state(&h.inv, k.index(h)).Disabled && !withDisabled {
			return apigw.Response{}, k.notFound()
		}
		if edits {
			return apigw.JSON(http.StatusOK, k.renderWithEdits(h))
		}
		return apigw.JSON(http.StatusOK, k.render(h))
	}}
}

func setRecordDisabled(d *api.Deps, k recordKind) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		return setDisabled(ctx, d, r, k.disabling(ctx, d, r))
	}}
}

// addRecord adds a line item or transaction to an invoice. One sent without an external
// id takes a position no stored record of the invoice uses, so it adds instead of
// replacing. Line items may also come as {"line_items": [...]} (chartmogul-go's
// CreateLineItems), answered as {"line_items": [...]}: all are checked before any is
// added. With handle_as_user_edit=true the records added are user-created.
func addRecord(d *api.Deps, k recordKind) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		inv, err := loadInvoice(ctx, d, r.AccountID, r.PathParam("invoice_uuid"))
		if err != nil {
			return apigw.Response{}, err
		}
		var sent map[string]any
		if err := r.Decode(&sent); err != nil {
			return apigw.Response{}, err
		}
		if sent == nil {
			sent = map[string]any{}
		}
		userEdit, err := api.Flag(r, "handle_as_user_edit")
		if err != nil {
			return apigw.Response{}, err
		}
		if list, wrapped := sent[k.payloadKey]; wrapped && k.payloadKey == "line_items" {
			return addRecords(ctx, d, r, k, inv, list, userEdit)
		}
		rec := without(sent, "invoice_external_id", "invoice_uuid", "plan_uuid", "uuid")
		if err := k.planRef(ctx, d, inv, sent, rec); err != nil {
			return apigw.Response{}, err
		}
		uuids, err := applyRecords(ctx, d, k, inv, []map[string]any{rec}, k.freePositions(inv, []map[string]any{rec}))
		if err != nil {
			return apigw.Response{}, unprefixed(err, k.payloadKey+"[0].")
		}
		h, err := storedRecord(ctx, d, k, inv, uuids[0])
		if err != nil {
			return apigw.Response{}, err
		}
		if userEdit {
			if h.inv, err = recordEdits(ctx, d, r, inv, h.inv, k.recordsCreatedByUser(uuids)); err != nil {
				return apigw.Response{}, err
			}
		}
		if k.created != nil {
			return apigw.JSON(http.StatusCreated, k.created(h.inv, k.index(h)))
		}
		return apigw.JSON(http.StatusCreated, k.render(h))
	}}
}

// addRecords adds the records of a {"line_items": [...]} body: 201 with them in the
// same shape; a record that is not an object, or one the import step refuses, is a 422
// naming it (line_items[i]) and nothing is added.
func addRecords(ctx context.Context, d *api.Deps, r *apigw.Request, k recordKind, inv model.Invoice, list any, userEdit bool) (apigw.Response, error) {
	items, ok := list.([]any)
	if !ok || len(items) == 0 {
		return apigw.Response{}, apperr.Unprocessable(k.payloadKey, "%s must be a non-empty array", k.payloadKey)
	}
	recs := make([]map[string]any, len(items))
	for i, it := range items {
		sent, ok := it.(map[string]any)
		if !ok {
			return apigw.Response{}, apperr.Unprocessable(fmt.Sprintf("%s[%d]", k.payloadKey, i), "must be a JSON object")
		}
		recs[i] = without(sent, "invoice_external_id", "invoice_uuid", "plan_uuid", "uuid")
		if err := k.planRef(ctx, d, inv, sent, recs[i]); err != nil {
			if e, ok := apperr.As(err); ok {
				e.Param = fmt.Sprintf("%s[%d].%s", k.payloadKey, i, e.Param)
			}
			return apigw.Response{}, err
		}
	}
	uuids, err := applyRecords(ctx, d, k, inv, recs, k.freePositions(inv, recs))
	if err != nil {
		return apigw.Response{}, err
	}
	stored, err := storage(d).GetInvoice(ctx, inv.AccountID, inv.UUID)
	if err != nil {
		return apigw.Response{}, err
	}
	if userEdit {
		if stored, err = recordEdits(ctx, d, r, inv, stored, k.recordsCreatedByUser(uuids)); err != nil {
			return apigw.Response{}, err
		}
	}
	out := make([]jsonobj.Object, len(uuids))
	for i, uuid := range uuids {
		if k.find(&stored, uuid) < 0 {
			return apigw.Response{}, fmt.Errorf("%s %s not stored", k.param, uuid)
		}
		out[i] = k.render(heldRecord{inv: stored, uuid: uuid})
	}
	return apigw.JSON(http.StatusCreated, jsonobj.Object{{Key: k.payloadKey, Value: out}})
}

// updateRecord applies the sent fields to the record (the others keep their values;
// external_id cannot change, since it is the record's identity).
func updateRecord(d *api.Deps, k recordKind) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		var sent map[string]any
		if err := r.Decode(&sent); err != nil {
			return apigw.Response{}, err
		}
		h, err := k.locate(ctx, d, r)
		if err != nil {
			return apigw.Response{}, err
		}
		i := k.index(h)
		rec, err := k.importRecord(ctx, d, h.inv, i)
		if err != nil {
			return apigw.Response{}, err
		}
		if changesExternalID(sent, strField(rec, "external_id")) {
			return apigw.Response{}, apperr.Unprocessable("external_id", "The external_id of a %s cannot change", strings.ToLower(k.name))
		}
		for key, v := range without(sent, "uuid", "invoice_uuid", "invoice_external_id", "plan_uuid", "external_id",
			"disabled", "disabled_at", "disabled_by", "errors") {
			rec[key] = v
		}
		if err := k.planRef(ctx, d, h.inv, sent, rec); err != nil {
			return apigw.Response{}, err
		}
		position := -1
		if p, ok := strings.CutPrefix(k.key(h.inv, i), "p:"); ok {
			position, _ = strconv.Atoi(p)
		}
		if _, err := applyRecords(ctx, d, k, h.inv, []map[string]any{rec}, []int{position}); err != nil {
			return apigw.Response{}, unprefixed(err, k.payloadKey+"[0].")
		}
		stored, err := storedRecord(ctx, d, k, h.inv, h.uuid)
		if err != nil {
			return apigw.Response{}, err
		}
		if k.revise != nil {
			if err := k.revise(ctx, d, h.inv, i, &stored.inv); err != nil {
				return apigw.Response{}, err
			}
		}
		if stored.inv, err = recordEdits(ctx, d, r, h.inv, stored.inv, k.recordEdit(h.uuid)); err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, k.render(stored))
	}}
}

// deleteRecord removes the record from its invoice; the customer is recomputed.
func deleteRecord(d *api.Deps, k recordKind) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		for range statusAttempts {
			h, err := k.locate(ctx, d, r)
			if err != nil {
				return apigw.Response{}, err
			}
			i := k.index(h)
			next := k.remove(cloneInvoice(h.inv), i)
			next.UpdatedAt = d.Now()
			if err := storage(d).SaveInvoice(ctx, h.inv, next); errors.Is(err, store.ErrConflict) {
				continue
			} else if err != nil {
				return apigw.Response{}, err
			}
			if k.revise != nil {
				if err := k.revise(ctx, d, h.inv, i, nil); err != nil {
					return apigw.Response{}, err
				}
			}
			if err := storage(d).DeleteRecordLocators(ctx, r.AccountID, []string{h.uuid}); err != nil {
				return apigw.Response{}, err
			}
			job := jobs.Recompute(r.AccountID, h.inv.CustomerUUID, "delete:"+h.uuid+":"+version(next.UpdatedAt.UnixNano()))
			if err := d.Jobs.Send(ctx, job); err != nil {
				return apigw.Response{}, err
			}
			return apigw.NoContent()
		}
		return apigw.Response{}, errors.New("delete record: the invoice kept changing")
	}}
}

// applyRecords validates recs as json_imports records of the invoice (at positions[i]
// when one has no external id) and applies them with the import worker's step, all or
// none; it returns the records' uuids. Field errors name the record (line_items[i].…).
func applyRecords(ctx context.Context, d *api.Deps, k recordKind, inv model.Invoice, recs []map[string]any, positions []int) ([]string, error) {
	list := make([]any, len(recs))
	for i, rec := range recs {
		rec["invoice_external_id"] = inv.ExternalID
		list[i] = rec
	}
	pl, err := parseAs("", map[string]any{k.payloadKey: list})
	if err != nil {
		return nil, err
	}
	var part imports.Part
	keys := make([]string, len(recs))
	for i, li := range pl.LineItems {
		if li.ExternalID == "" {
			li.Position = positions[i]
		}
		part.LineItems, keys[i] = append(part.LineItems, li), model.LineItemKey(li.ExternalID, li.Position)
	}
	for i, t := range pl.Transactions {
		if t.ExternalID == "" {
			t.Position = positions[i]
		}
		part.Transactions, keys[i] = append(part.Transactions, t), model.LineItemKey(t.ExternalID, t.Position)
	}
	c, err := storage(d).GetCustomer(ctx, inv.AccountID, inv.CustomerUUID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errInvoiceNotFound()
	}
	if err != nil {
		return nil, err
	}
	if err := applySync(ctx, d, c, inv.DataSourceUUID, inv.CustomerExternalID, part); err != nil {
		return nil, err
	}
	uuids := make([]string, len(keys))
	for i, key := range keys {
		uuids[i] = k.uuidOf(inv.AccountID, inv.DataSourceUUID, inv.UUID, key)
	}
	return uuids, nil
}

// storedRecord reads the record back from its invoice after a change.
func storedRecord(ctx context.Context, d *api.Deps, k recordKind, inv model.Invoice, uuid string) (heldRecord, error) {
	stored, err := storage(d).GetInvoice(ctx, inv.AccountID, inv.UUID)
	if err != nil {
		return heldRecord{}, err
	}
	if k.find(&stored, uuid) < 0 {
		return heldRecord{}, fmt.Errorf("%s %s not stored", k.param, uuid)
	}
	return heldRecord{inv: stored, uuid: uuid}, nil
}

// freePositions gives each of recs without an external id a position no record of
// the kind in the invoice (nor an earlier one of recs) uses; the others get -1.
func (k recordKind) freePositions(inv model.Invoice, recs []map[string]any) []int {
	used := map[string]bool{}
	for i := range k.count(inv) {
		used[k.key(inv, i)] = true
	}
	out := make([]int, len(recs))
	p := k.count(inv)
	for i, rec := range recs {
		out[i] = -1
		if strField(rec, "external_id") != "" {
			continue
		}
		for used[model.LineItemKey("", p)] {
			p++
		}
		out[i] = p
		used[model.LineItemKey("", p)] = true
	}
	return out
}

// planRef turns a sent plan_uuid into the plan_external_id of an import record (line
// items only): the plan must be one of the invoice's data source.
func (k recordKind) planRef(ctx context.Context, d *api.Deps, inv model.Invoice, sent, rec map[string]any) error {
	planUUID := strField(sent, "plan_uuid")
	if k.payloadKey != "line_items" || planUUID == "" {
		return nil
	}
	pl, err := storage(d).GetPlanInDataSource(ctx, inv.AccountID, inv.DataSourceUUID, planUUID)
	if errors.Is(err, store.ErrNotFound) {
		return apperr.Unprocessable("plan_uuid", "Plan %q does not exist in this data source", planUUID)
	}
	if err != nil {
		return err
	}
	rec["plan_external_id"] = pl.ExternalID
	return nil
}

// importRecord is the stored record as a json_imports record, the base an update
// changes.
func (k recordKind) importRecord(ctx context.Context, d *api.Deps, inv model.Invoice, i int) (map[string]any, error) {
	var fields any
	planUUID := ""
	if k.payloadKey == "line_items" {
		fields, planUUID = inv.LineItems[i].LineItemFields, inv.LineItems[i].PlanUUID
	} else {
		fields = inv.Transactions[i].TransactionFields
	}
	b, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	var rec map[string]any // numbers as json.Number, as the validation reads a body
	if err := jsonbody.Number(b, &rec); err != nil {
		return nil, err
	}
	if planUUID != "" {
		pl, err := storage(d).GetPlanInDataSource(ctx, inv.AccountID, inv.DataSourceUUID, planUUID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		rec["plan_external_id"] = pl.ExternalID
	}
	return rec, nil
}

// reviseLineItem brings the customer's subscriptions and index in line after the line
// item at i of inv (as it was) changed (as it is in now) or went (now nil). A change
// that leaves its subscription, plan, start and cancellation as they were needs none.
func reviseLineItem(ctx context.Context, d *api.Deps, inv model.Invoice, i int, now *model.Invoice) error {
	li := inv.LineItems[i]
	if li.SubscriptionUUID == "" && li.PlanUUID == "" {
		return nil
	}
	if now != nil {
		if j := now.LineItemIndex(li.UUID); j >= 0 {
			n := now.LineItems[j]
			if n.SubscriptionUUID == li.SubscriptionUUID && n.PlanUUID == li.PlanUUID &&
				api.SameTime(n.ServicePeriodStart, li.ServicePeriodStart) && api.SameTime(n.CancelledAt, li.CancelledAt) {
				return nil
			}
		}
	}
	return storage(d).ReviseBilling(ctx, inv.AccountID, inv.CustomerUUID, nil, []model.LineItem{li}, d.Now())
}

// changesExternalID tells whether a body sends another external id than the record's
// (clients echo it back; null stands for none).
func changesExternalID(sent map[string]any, current string) bool {
	v, ok := sent["external_id"]
	switch {
	case !ok:
		return false
	case v == nil:
		return current != ""
	}
	return strField(sent, "external_id") != current
}
