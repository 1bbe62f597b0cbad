package account

import (
	"context"
	"errors"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/parallel"
	"github.com/subsight/subsight/shared/store"
)

// dataSourceFlags are the with_* query flags of GET /v1/data_sources[/{uuid}]: each
// adds its block to every data source (docs/api.md, "Data sources").
type dataSourceFlags struct{ processing, autoChurn, invoiceHandling bool }

func dataSourceFlagsOf(r *apigw.Request) (dataSourceFlags, error) {
	var f dataSourceFlags
	var err error
	for _, p := range []struct {
		name string
		dst  *bool
	}{{"with_processing_status", &f.processing}, {"with_auto_churn_subscription_setting", &f.autoChurn},
		{"with_invoice_handling_setting", &f.invoiceHandling}} {
		if *p.dst, err = api.Flag(r, p.name); err != nil {
			return f, err
		}
	}
	return f, nil
}

// renderDataSources renders data sources with the blocks the flags ask for. The
// settings are the account's, which the metrics engine applies to every source, but a
// source connected to Stripe shows its own invoice handling (one GetItem per source,
// only with with_invoice_handling_setting); the processing status reads the sources'
// imports.
func renderDataSources(ctx context.Context, d *api.Deps, accountID string, f dataSourceFlags, sources []model.DataSource) ([]jsonobj.Object, error) {
	var acc model.Account
	if f.autoChurn || f.invoiceHandling {
		var err error
		if acc, err = storage(d).GetAccount(ctx, accountID); err != nil {
			return nil, err
		}
	}
	var stripe []*model.StripeSettings
	if f.invoiceHandling {
		var err error
		if stripe, err = stripeSettings(ctx, d, accountID, sources); err != nil {
			return nil, err
		}
	}
	out := make([]jsonobj.Object, len(sources))
	for i, ds := range sources {
		o := newDataSourceJSON(ds)
		if f.processing {
			ps, err := processingStatus(ctx, d, ds)
			if err != nil {
				return nil, err
			}
			o = append(o, jsonobj.Field{Key: "processing_status", Value: ps})
		}
		if f.autoChurn {
			// The interval is not configurable: the engine churns after 30 days.
			o = append(o, jsonobj.Field{Key: "auto_churn_subscription_setting", Value: jsonobj.Object{
				{Key: "enabled", Value: acc.Settings.AutoChurnSubscription}, {Key: "interval", Value: engine.DefaultAutoChurnDays}}})
		}
		if f.invoiceHandling {
			v := invoiceHandling(acc.Settings)
			if stripe[i] != nil {
				v = stripeInvoiceHandling(*stripe[i], acc.Settings)
			}
			o = append(o, jsonobj.Field{Key: "invoice_handling_setting", Value: v})
		}
		out[i] = o
	}
	return out, nil
}

// invoiceHandling is how the engine treats invoices (docs/metrics-engine.md §1.3,
// choice 2), in ChartMogul's invoice_handling_setting shape: an invoice counts as soon
// as it is issued, whatever its collection method; voided and written-off invoices
// never count; a fully refunded one does not count only with refund_full_only.
func invoiceHandling(s model.Settings) jsonobj.Object {
	rules := invoiceRulesJSON(model.InvoiceRules{CreateSubscriptionWhenInvoiceIs: "open", UpdateSubscriptionWhenInvoiceIs: "open",
		PreventSubscriptionForInvoiceVoided: true, PreventSubscriptionForInvoiceWrittenOff: true}, s.RefundHandling)
	return jsonobj.Object{{Key: "manual", Value: rules}, {Key: "automatic", Value: rules}}
}

// invoiceRulesJSON is one collection method's rules in ChartMogul's shape; refund is the
// refund handling that applies.
func invoiceRulesJSON(r model.InvoiceRules, refund string) jsonobj.Object {
	return jsonobj.Object{
		{Key: "create_subscription_when_invoice_is", Value: r.CreateSubscriptionWhenInvoiceIs},
		{Key: "update_subscription_when_invoice_is", Value: r.UpdateSubscriptionWhenInvoiceIs},
		{Key: "prevent_subscription_for_invoice_voided", Value: r.PreventSubscriptionForInvoiceVoided},
		{Key: "prevent_subscription_for_invoice_refunded", Value: refund == engine.RefundFullOnly},
		{Key: "prevent_subscription_for_invoice_written_off", Value: r.PreventSubscriptionForInvoiceWrittenOff},
	}
}

// stripeSettings are the sources' own Stripe settings, nil for a source not connected
// to Stripe: one GetItem per source, in parallel.
func stripeSettings(ctx context.Context, d *api.Deps, accountID string, sources []model.DataSource) ([]*model.StripeSettings, error) {
	out := make([]*model.StripeSettings, len(sources))
	errs := make([]error, len(sources))
	parallel.For(len(sources), stripeReadConcurrency, func(i int) {
		conn, err := storage(d).GetStripeConnection(ctx, sources[i].UUID)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			errs[i] = err
		case conn.AccountID == accountID:
			out[i] = &conn.Settings
		}
	})
	return out, errors.Join(errs...)
}

// stripeReadConcurrency bounds the connection reads of one listing.
const stripeReadConcurrency = 8

// stripeInvoiceHandling is a Stripe source's own invoice handling in ChartMogul's
// shape; a fully refunded invoice counts for nothing under the source's refund
// handling, else the account's.
func stripeInvoiceHandling(s model.StripeSettings, account model.Settings) jsonobj.Object {
	refund := s.RefundHandling
	if refund == "" {
		refund = account.RefundHandling
	}
	return jsonobj.Object{{Key: "manual", Value: invoiceRulesJSON(s.InvoiceHandling.Manual, refund)},
		{Key: "automatic", Value: invoiceRulesJSON(s.InvoiceHandling.Automatic, refund)}}
}

// processingStatus counts the customers of the source's json_imports by how far their
// records are: processed (imported), failed, pending (queued, not applied yet). It
// reads the source's imports (one Query a page) and each import's customer entries
// (one Query each, in parallel).
func processingStatus(ctx context.Context, d *api.Deps, ds model.DataSource) (jsonobj.Object, error) {
	var processed, failed, pending int
	var start store.PageToken
	for {
		page, err := storage(d).ListImports(ctx, ds.AccountID, ds.UUID, apigw.MaxPerPage, start)
		if err != nil {
			return nil, err
		}
		done := make([][]model.ImportCustomerStatus, len(page.Items))
		errs := make([]error, len(page.Items))
		parallel.For(len(page.Items), api.ImportProgressConcurrency, func(i int) {
			done[i], errs[i] = storage(d).ImportCustomerStatuses(ctx, ds.AccountID, page.Items[i].ID)
		})
		for i, imp := range page.Items {
			if errs[i] != nil {
				return nil, errs[i]
			}
			for _, c := range done[i] {
				if c.Status == model.RecordsFailed {
					failed++
				} else {
					processed++
				}
			}
			pending += max(imp.Customers-len(done[i]), 0)
		}
		if !page.HasMore {
			break
		}
		start = page.Next
	}
	return jsonobj.Object{{Key: "processed", Value: processed}, {Key: "failed", Value: failed}, {Key: "pending", Value: pending}}, nil
}
