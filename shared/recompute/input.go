package recompute

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// Records are a customer's stored billing records, already in engine form. Plans are
// loaded by this package from the uuids the records use.
type Records struct {
	Invoices            []engine.Invoice
	Events              []engine.SubscriptionEvent
	CancellationHistory []engine.CancellationHistory
}

// Source reads one customer's records. The import pipeline's store provides them; the
// indirection keeps this package testable and independent of their item layout.
type Source interface {
	CustomerRecords(ctx context.Context, accountID, customerUUID string) (Records, error)
}

// settings maps the account settings to the engine's.
func settings(acc model.Account) engine.Settings {
	return engine.Settings{
		Currency:                          acc.Currency,
		ChurnRecognition:                  acc.Settings.ChurnRecognition,
		ChurnWhenZeroMRR:                  acc.Settings.ChurnWhenZeroMRR,
		AutoChurnSubscription:             acc.Settings.AutoChurnSubscription,
		AutoChurnAfterDays:                engine.DefaultAutoChurnDays,
		RefundHandling:                    acc.Settings.RefundHandling,
		ProximateMovementReclassification: acc.Settings.ProximateMovementReclassification,
	}
}

// loadPlans reads every plan the records refer to, from its data source's partition
// (one read each). A plan deleted meanwhile is left out: the engine then ignores the
// items that use it.
func loadPlans(ctx context.Context, st store.Plans, accountID string, recs Records) ([]engine.Plan, error) {
	type ref struct{ ds, plan string }
	var refs []ref
	add := func(ds, plan string) {
		if plan != "" && !slices.Contains(refs, ref{ds, plan}) {
			refs = append(refs, ref{ds, plan})
		}
	}
	for _, inv := range recs.Invoices {
		for _, li := range inv.LineItems {
			add(inv.DataSourceUUID, li.PlanUUID)
		}
	}
	for _, ev := range recs.Events {
		add(ev.DataSourceUUID, ev.PlanUUID)
	}
	out := make([]engine.Plan, 0, len(refs))
	for _, r := range refs {
		p, err := st.GetPlanInDataSource(ctx, accountID, r.ds, r.plan)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, enginePlan(p))
	}
	return out, nil
}

func enginePlan(p model.Plan) engine.Plan {
	return engine.Plan{UUID: p.UUID, ExternalID: p.ExternalID, Name: p.Name,
		IntervalCount: p.IntervalCount, IntervalUnit: p.IntervalUnit}
}

// loadRates reads, per foreign currency, the rates of the days the records need: one
// query per currency over the span of its days.
func loadRates(ctx context.Context, st store.FXRates, accountID, accountCurrency string, recs Records) (engine.RateTable, error) {
	span := map[string][2]string{}
	need := func(currency string, t time.Time) {
		if currency == "" || currency == accountCurrency || t.IsZero() {
			return
		}
		day := t.UTC().Format(time.DateOnly)
		s, ok := span[currency]
		if !ok {
			span[currency] = [2]string{day, day}
			return
		}
		span[currency] = [2]string{min(s[0], day), max(s[1], day)}
	}
	for _, inv := range recs.Invoices {
		for _, li := range inv.LineItems {
			need(inv.Currency, li.ServicePeriodStart)
		}
	}
	for _, ev := range recs.Events {
		need(ev.Currency, ev.EffectiveDate)
	}
	table := engine.RateTable{}
	currencies := make([]string, 0, len(span))
	for c := range span {
		currencies = append(currencies, c)
	}
	slices.Sort(currencies)
	for _, c := range currencies {
		rates, err := st.FXRatesBetween(ctx, accountID, c, span[c][0], span[c][1])
		if err != nil {
			return nil, err
		}
		for day, r := range rates {
			table[day+"/"+c] = r
		}
	}
	return table, nil
}

// connections maps the stored connected pairs to the engine's.
func connections(cs []store.Connection) []engine.Connection {
	out := make([]engine.Connection, len(cs))
	for i, c := range cs {
		out[i] = engine.Connection{SubscriptionUUIDs: [2]string{c.A, c.B}}
	}
	return out
}

// loadSourceRules reads the own rules of each data source the records come from: a
// Stripe source's settings, stored with its connection (one read per data source; the
// batch's customers share them, sharedPlans). A source without a connection, or whose
// connection is another account's, has none.
func loadSourceRules(ctx context.Context, st store.StripeConnections, accountID string, recs Records) (map[string]engine.SourceRules, error) {
	var sources []string
	add := func(ds string) {
		if ds != "" && !slices.Contains(sources, ds) {
			sources = append(sources, ds)
		}
	}
	for _, inv := range recs.Invoices {
		add(inv.DataSourceUUID)
	}
	for _, ev := range recs.Events {
		add(ev.DataSourceUUID)
	}
	var out map[string]engine.SourceRules
	for _, ds := range sources {
		conn, err := st.GetStripeConnection(ctx, ds)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("stripe connection of %s: %w", ds, err)
		}
		if conn.AccountID != accountID {
			continue
		}
		if out == nil {
			out = map[string]engine.SourceRules{}
		}
		out[ds] = sourceRules(conn.Settings)
	}
	return out, nil
}

// sourceRules maps a Stripe source's settings to the engine's rules.
func sourceRules(s model.StripeSettings) engine.SourceRules {
	return engine.SourceRules{ChurnRecognition: s.ChurnRecognition, RefundHandling: s.RefundHandling,
		Automatic: invoiceRules(s.InvoiceHandling.Automatic), Manual: invoiceRules(s.InvoiceHandling.Manual)}
}

func invoiceRules(r model.InvoiceRules) engine.InvoiceRules {
	return engine.InvoiceRules{CreateWhen: r.CreateSubscriptionWhenInvoiceIs, UpdateWhen: r.UpdateSubscriptionWhenInvoiceIs,
		PreventVoided: r.PreventSubscriptionForInvoiceVoided, PreventWrittenOff: r.PreventSubscriptionForInvoiceWrittenOff}
}
