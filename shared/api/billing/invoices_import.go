package billing

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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
)

// The synchronous invoice operations translate their body into a json_imports
// payload for one customer and apply it with the import worker's own step
// (imports.Pipeline.Apply), so both paths store records the same way.

// parseAs validates records as a json_imports payload; a field error is named from
// prefix ("invoices[2].").
func parseAs(prefix string, payload map[string]any) (model.ImportPayload, error) {
	payload["external_id"] = "sync"
	pl, err := model.ValidateImport(payload)
	var fe *model.FieldError
	if errors.As(err, &fe) {
		// The body's one invoice is the payload's invoices[0]: name it by the body's index.
		param := prefix + strings.TrimPrefix(fe.Param(), "invoices[0].")
		return pl, apperr.Unprocessable(param, "%s %s", param, fe.Message)
	}
	return pl, err
}

// applySync applies one customer's records of one data source and queues its
// recompute when anything changed; records the worker would report as failed are a 422.
func applySync(ctx context.Context, d *api.Deps, c model.Customer, dsUUID, customerExternalID string, part imports.Part) error {
	part.CustomerExternalID = customerExternalID
	m := imports.Message{AccountID: c.AccountID, DataSourceUUID: dsUUID, CustomerExternalID: customerExternalID,
		ImportID: "sync:" + strconv.FormatInt(d.Now().UnixNano(), 10)}
	st, changed, err := d.Imports.Apply(ctx, m, part)
	if err != nil {
		return err
	}
	if changed != "" {
		if err := d.Jobs.Send(ctx, jobs.Recompute(c.AccountID, changed, m.ImportID)); err != nil {
			return err
		}
	}
	for _, k := range []model.KindStatus{st.Customers, st.Invoices, st.LineItems, st.Transactions} {
		if k.Status == model.RecordsFailed && len(k.Errors) > 0 {
			return apperr.Unprocessable("invoices", "%s", k.Errors[0].Message)
		}
	}
	return nil
}

// customerExternalIDIn is the customer's external id in a data source ("" if none).
func customerExternalIDIn(c model.Customer, dsUUID string) string {
	if i := slices.Index(c.DataSourceUUIDs, dsUUID); i >= 0 && i < len(c.ExternalIDs) {
		return c.ExternalIDs[i]
	}
	if c.DataSourceUUID == dsUUID {
		return c.ExternalID
	}
	return ""
}

func without(m map[string]any, drop ...string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if !slices.Contains(drop, k) {
			out[k] = v
		}
	}
	return out
}

// ImportCustomerInvoices is POST /v1/import/customers/{customer_uuid}/invoices: 201
// with the stored invoices, each with "errors":{}.
func ImportCustomerInvoices(d *api.Deps) apigw.Endpoint {
	return upsertCustomerInvoices(d, http.StatusCreated)
}

// UpdateCustomerInvoices is PUT /v1/import/customers/{customer_uuid}/invoices (Ruby's
// CustomerInvoices#update!): the same upsert, answered 200.
func UpdateCustomerInvoices(d *api.Deps) apigw.Endpoint {
	return upsertCustomerInvoices(d, http.StatusOK)
}

// upsertCustomerInvoices imports a customer's invoices (an invoice of a used external id is
// updated) and answers status with them. With handle_as_user_edit=true the changes are
// user edits: what they change in existing invoices and their records is recorded in
// their edit histories, and the invoices and records they create are user-created.
func upsertCustomerInvoices(d *api.Deps, status int) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		c, err := importCustomer(ctx, d, r.AccountID, r.PathParam("customer_uuid"))
		if err != nil {
			return apigw.Response{}, err
		}
		userEdit, err := api.Flag(r, "handle_as_user_edit")
		if err != nil {
			return apigw.Response{}, err
		}
		var b struct {
			Invoices []map[string]any `json:"invoices"`
		}
		if err := r.Decode(&b); err != nil {
			return apigw.Response{}, err
		}
		if b.Invoices == nil {
			return apigw.Response{}, apperr.MissingParam("invoices")
		}
		parts := map[string]*imports.Part{}
		var order, uuids []string
		for i, inv := range b.Invoices {
			prefix := fmt.Sprintf("invoices[%d].", i)
			dsUUID := strField(inv, "data_source_uuid")
			if dsUUID == "" {
				dsUUID = c.DataSourceUUID
			}
			ext := customerExternalIDIn(c, dsUUID)
			if ext == "" {
				return apigw.Response{}, apperr.Unprocessable(prefix+"data_source_uuid", "The customer has no external id in data source %q", dsUUID)
			}
			payload, err := invoicePayload(ctx, d, c.AccountID, dsUUID, ext, prefix, inv)
			if err != nil {
				return apigw.Response{}, err
			}
			pl, err := parseAs(prefix, payload)
			if err != nil {
				return apigw.Response{}, err
			}
			pt, ok := parts[dsUUID]
			if !ok {
				pt = &imports.Part{}
				parts[dsUUID] = pt
				order = append(order, dsUUID)
			}
			pt.Invoices = append(pt.Invoices, pl.Invoices...)
			pt.LineItems = append(pt.LineItems, pl.LineItems...)
			pt.Transactions = append(pt.Transactions, pl.Transactions...)
			uuids = append(uuids, model.InvoiceUUID(c.AccountID, dsUUID, pl.Invoices[0].ExternalID))
		}
		var before map[string]model.Invoice
		if userEdit {
			if before, err = storage(d).GetInvoices(ctx, r.AccountID, uuids); err != nil {
				return apigw.Response{}, err
			}
		}
		for _, dsUUID := range order {
			if _, err := api.LiveDataSource(ctx, d, r.AccountID, dsUUID); err != nil {
				return apigw.Response{}, err
			}
			if err := applySync(ctx, d, c, dsUUID, customerExternalIDIn(c, dsUUID), *parts[dsUUID]); err != nil {
				return apigw.Response{}, err
			}
		}
		stored, err := storage(d).GetInvoices(ctx, r.AccountID, uuids)
		if err != nil {
			return apigw.Response{}, err
		}
		out := []jsonobj.Object{}
		for _, u := range uuids {
			inv, ok := stored[u]
			if !ok || inv.CustomerUUID != c.UUID {
				continue
			}
			if userEdit {
				rule := createdByUser
				if _, existed := before[u]; existed {
					rule = wholeInvoiceEdit
				}
				if inv, err = recordEdits(ctx, d, r, before[u], inv, rule); err != nil {
					return apigw.Response{}, err
				}
			}
			out = append(out, invoiceJSON(inv, false))
		}
		return apigw.JSON(status, jsonobj.Object{{Key: "invoices", Value: out}})
	}}
}

// invoicePayload turns one invoice of the body (nested line items and transactions,
// plans by uuid) into json_imports records.
func invoicePayload(ctx context.Context, d *api.Deps, accountID, dsUUID, customerExternalID, prefix string, inv map[string]any) (map[string]any, error) {
	ext := strField(inv, "external_id")
	record := without(inv, "line_items", "transactions", "data_source_uuid", "customer_uuid")
	record["customer_external_id"] = customerExternalID
	payload := map[string]any{"invoices": []any{record}}
	nested := func(name string) ([]any, error) {
		v, ok := inv[name]
		if !ok || v == nil {
			return nil, nil
		}
		list, ok := v.([]any)
		if !ok {
			return nil, apperr.Unprocessable(prefix+name, "%s%s must be an array", prefix, name)
		}
		return list, nil
	}
	lines, err := nested("line_items")
	if err != nil {
		return nil, err
	}
	var items []any
	for j, raw := range lines {
		li, ok := raw.(map[string]any)
		if !ok {
			return nil, apperr.Unprocessable(fmt.Sprintf("%sline_items[%d]", prefix, j), "must be a JSON object")
		}
		item := without(li, "plan_uuid", "invoice_external_id")
		item["invoice_external_id"] = ext
		if planUUID := strField(li, "plan_uuid"); planUUID != "" {
			pl, err := storage(d).GetPlanInDataSource(ctx, accountID, dsUUID, planUUID)
			if errors.Is(err, store.ErrNotFound) {
				return nil, apperr.Unprocessable(fmt.Sprintf("%sline_items[%d].plan_uuid", prefix, j), "Plan %q does not exist in this data source", planUUID)
			}
			if err != nil {
				return nil, err
			}
			item["plan_external_id"] = pl.ExternalID
		}
		items = append(items, item)
	}
	payload["line_items"] = items
	txs, err := nested("transactions")
	if err != nil {
		return nil, err
	}
	var trs []any
	for j, raw := range txs {
		t, ok := raw.(map[string]any)
		if !ok {
			return nil, apperr.Unprocessable(fmt.Sprintf("%stransactions[%d]", prefix, j), "must be a JSON object")
		}
		tr := without(t, "invoice_external_id")
		tr["invoice_external_id"] = ext
		trs = append(trs, tr)
	}
	payload["transactions"] = trs
	return payload, nil
}

// CreateInvoiceTransaction is POST /v1/import/invoices/{invoice_uuid}/transactions:
// 201 with the transaction (invoice_records.go).
func CreateInvoiceTransaction(d *api.Deps) apigw.Endpoint { return addRecord(d, transactions()) }

// unprefixed names a record's field without the payload's prefix ("transactions[0].").
func unprefixed(err error, prefix string) error {
	if e, ok := apperr.As(err); ok {
		e.Param = strings.TrimPrefix(e.Param, prefix)
		e.Message = strings.TrimPrefix(e.Message, prefix)
		return e
	}
	return err
}
