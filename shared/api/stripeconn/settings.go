package stripeconn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/logsafe"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// SettingsJSON is a Stripe source's settings as the API shows them (docs/stripe.md,
// "Settings"): churn recognition and refund handling are null while they follow the
// account's.
func SettingsJSON(s model.StripeSettings) jsonobj.Object {
	return jsonobj.Object{{Key: "deleted_customers", Value: s.DeletedCustomers}, {Key: "metered_usage", Value: s.MeteredUsage},
		{Key: "churn_recognition", Value: orNull(s.ChurnRecognition)}, {Key: "refund_handling", Value: orNull(s.RefundHandling)},
		{Key: "invoice_handling", Value: jsonobj.Object{{Key: "automatic", Value: rulesJSON(s.InvoiceHandling.Automatic)},
			{Key: "manual", Value: rulesJSON(s.InvoiceHandling.Manual)}}}}
}

func rulesJSON(r model.InvoiceRules) jsonobj.Object {
	return jsonobj.Object{{Key: "create_subscription_when_invoice_is", Value: r.CreateSubscriptionWhenInvoiceIs},
		{Key: "update_subscription_when_invoice_is", Value: r.UpdateSubscriptionWhenInvoiceIs},
		{Key: "prevent_subscription_for_invoice_voided", Value: r.PreventSubscriptionForInvoiceVoided},
		{Key: "prevent_subscription_for_invoice_written_off", Value: r.PreventSubscriptionForInvoiceWrittenOff}}
}

func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// applySettings applies a partial settings object (what PUT sends as "settings", what
// PATCH sends as its body) over base: a key not sent keeps base's value, also inside
// invoice_handling and its automatic and manual rules; null churn_recognition or
// refund_handling returns to the account's. The first unknown key or wrong value, in
// the keys' order, is a 422 naming its path (path is the object's own: "settings." or
// ""), never quoting what was sent.
func applySettings(base model.StripeSettings, sent map[string]json.RawMessage, path string) (model.StripeSettings, error) {
	out := base
	for _, name := range sortedKeys(sent) {
		raw, param := sent[name], path+name
		var err error
		switch name {
		case "deleted_customers":
			out.DeletedCustomers, err = enumOf(raw, param, model.StripeDeletedCustomers, false)
		case "metered_usage":
			out.MeteredUsage, err = enumOf(raw, param, model.StripeMeteredUsages, false)
		case "churn_recognition":
			out.ChurnRecognition, err = enumOf(raw, param, model.ChurnRecognitions, true)
		case "refund_handling":
			out.RefundHandling, err = enumOf(raw, param, model.RefundHandlings, true)
		case "invoice_handling":
			out.InvoiceHandling, err = invoiceHandlingOf(out.InvoiceHandling, raw, param)
		default:
			err = unknownSetting(param)
		}
		if err != nil {
			return base, err
		}
	}
	return out, nil
}

// invoiceHandlingOf applies a partial invoice_handling object over base.
func invoiceHandlingOf(base model.InvoiceHandling, raw json.RawMessage, param string) (model.InvoiceHandling, error) {
	sent, err := objectOf(raw, param)
	if err != nil {
		return base, err
	}
	out := base
	for _, name := range sortedKeys(sent) {
		var dst *model.InvoiceRules
		switch name {
		case "automatic":
			dst = &out.Automatic
		case "manual":
			dst = &out.Manual
		default:
			return base, unknownSetting(param + "." + name)
		}
		if *dst, err = invoiceRulesOf(*dst, sent[name], param+"."+name); err != nil {
			return base, err
		}
	}
	return out, nil
}

// invoiceRulesOf applies a partial automatic or manual rules object over base.
func invoiceRulesOf(base model.InvoiceRules, raw json.RawMessage, param string) (model.InvoiceRules, error) {
	sent, err := objectOf(raw, param)
	if err != nil {
		return base, err
	}
	out := base
	for _, name := range sortedKeys(sent) {
		p := param + "." + name
		switch name {
		case "create_subscription_when_invoice_is":
			out.CreateSubscriptionWhenInvoiceIs, err = enumOf(sent[name], p, model.InvoicePaymentStates, false)
		case "update_subscription_when_invoice_is":
			out.UpdateSubscriptionWhenInvoiceIs, err = enumOf(sent[name], p, model.InvoicePaymentStates, false)
		case "prevent_subscription_for_invoice_voided":
			out.PreventSubscriptionForInvoiceVoided, err = boolOf(sent[name], p)
		case "prevent_subscription_for_invoice_written_off":
			out.PreventSubscriptionForInvoiceWrittenOff, err = boolOf(sent[name], p)
		case "prevent_subscription_for_invoice_refunded":
			// ChartMogul's shape has it per collection method; here it is the source's
			// refund handling, for both.
			err = invalid(p, "unknown", p+" is not a setting of a Stripe data source; refund_handling sets it")
		default:
			err = unknownSetting(p)
		}
		if err != nil {
			return base, err
		}
	}
	return out, nil
}

func unknownSetting(param string) error {
	return invalid(param, "unknown", param+" is not a setting of a Stripe data source")
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// objectOf reads a JSON object (null or anything else is a 422).
func objectOf(raw json.RawMessage, param string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if isNull(raw) || json.Unmarshal(raw, &m) != nil {
		return nil, invalid(param, "invalid", param+" must be an object")
	}
	return m, nil
}

// enumOf reads one of allowed; null is "" where nullable (follow the account's).
func enumOf(raw json.RawMessage, param string, allowed []string, nullable bool) (string, error) {
	if nullable && isNull(raw) {
		return "", nil
	}
	var v string
	if json.Unmarshal(raw, &v) == nil && !isNull(raw) && slices.Contains(allowed, v) {
		return v, nil
	}
	msg := param + " must be one of " + strings.Join(allowed, ", ")
	if nullable {
		msg += ", or null to follow the account's setting"
	}
	return "", invalid(param, "invalid", msg)
}

func boolOf(raw json.RawMessage, param string) (bool, error) {
	var v bool
	if isNull(raw) || json.Unmarshal(raw, &v) != nil {
		return false, invalid(param, "invalid", param+" must be true or false")
	}
	return v, nil
}

func sortedKeys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// movesMetrics tells whether going from before to after changes what the metrics
// engine computes for the source's customers: churn recognition, refund handling and
// invoice handling do; deleted_customers acts only on later deletions, and
// metered_usage has one value.
func movesMetrics(before, after model.StripeSettings) bool {
	return before.ChurnRecognition != after.ChurnRecognition || before.RefundHandling != after.RefundHandling ||
		before.InvoiceHandling != after.InvoiceHandling
}

// recomputeSource queues the recomputation of every customer of the data source after a
// change of its settings (or their removal with the connection) written at `at`
// (jobs.RecomputeDataSource, run in steps by the jobs worker). If the job cannot be queued, undo takes the change back, so that the
// client's retry (it gets the error) makes the change again and queues the job then;
// without that, the retry would find nothing to change and the customers would keep
// the metrics of the old settings.
func recomputeSource(ctx context.Context, d *api.Deps, accountID, dsUUID string, at time.Time, undo func() error) error {
	err := d.Jobs.Send(ctx, jobs.RecomputeDataSource(accountID, dsUUID, at.UTC().Format(time.RFC3339Nano)))
	if err == nil {
		return nil
	}
	if uerr := undo(); uerr != nil {
		slog.ErrorContext(ctx, "stripe settings changed without their recomputation", "account_id", accountID,
			"data_source_uuid", dsUUID, "error", logsafe.Text(uerr.Error()))
	}
	return fmt.Errorf("stripeconn: queue the recomputation of the data source: %w", err)
}

// maxSettingsAttempts bounds the read-modify-write of a PATCH that other writers keep
// overtaking.
const maxSettingsAttempts = 5

// connectionOf reads the account's connection of a live data source: the data source's
// 404 for an unknown, another account's or a deleting one, the connection's when it is
// not connected (as GET of the connection answers).
func connectionOf(ctx context.Context, d *api.Deps, accountID, uuid string) (model.StripeConnection, error) {
	if _, err := api.LiveDataSource(ctx, d, accountID, uuid); err != nil {
		return model.StripeConnection{}, err
	}
	conn, err := storage(d).GetStripeConnection(ctx, uuid)
	if errors.Is(err, store.ErrNotFound) || (err == nil && conn.AccountID != accountID) {
		return model.StripeConnection{}, errConnectionNotFound()
	}
	return conn, err
}

// GetSettings is GET /v1/data_sources/{data_source_uuid}/stripe/settings: the Stripe
// source's settings.
func GetSettings(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		conn, err := connectionOf(ctx, d, r.AccountID, r.PathParam("data_source_uuid"))
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, SettingsJSON(conn.Settings))
	}}
}

// UpdateSettings is PATCH /v1/data_sources/{data_source_uuid}/stripe/settings: the
// settings sent (a partial settings object) replace the source's, the others stay; a
// change that moves metrics queues the recomputation of the source's customers. The
// write is conditional on the connection read, so a concurrent PUT, PATCH or DELETE is
// never overwritten (the PATCH reads again, or answers the 404 of a connection gone).
func UpdateSettings(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		uuid := r.PathParam("data_source_uuid")
		if _, err := api.LiveDataSource(ctx, d, r.AccountID, uuid); err != nil {
			return apigw.Response{}, err
		}
		var sent map[string]json.RawMessage
		if err := r.Decode(&sent); err != nil {
			return apigw.Response{}, err
		}
		for attempt := 1; ; attempt++ {
			conn, err := connectionOf(ctx, d, r.AccountID, uuid)
			if err != nil {
				return apigw.Response{}, err
			}
			settings, err := applySettings(conn.Settings, sent, "")
			if err != nil {
				return apigw.Response{}, err
			}
			if settings == conn.Settings {
				return apigw.JSON(http.StatusOK, SettingsJSON(settings))
			}
			next := conn
			next.Settings, next.UpdatedAt = settings, d.Now().UTC()
			err = storage(d).ReplaceStripeConnection(ctx, next, conn.UpdatedAt)
			if errors.Is(err, store.ErrConflict) && attempt < maxSettingsAttempts {
				continue
			}
			if err != nil {
				return apigw.Response{}, err
			}
			if movesMetrics(conn.Settings, settings) {
				undo := func() error { return storage(d).ReplaceStripeConnection(ctx, conn, next.UpdatedAt) }
				if err := recomputeSource(ctx, d, r.AccountID, uuid, next.UpdatedAt, undo); err != nil {
					return apigw.Response{}, err
				}
			}
			return apigw.JSON(http.StatusOK, SettingsJSON(settings))
		}
	}}
}
