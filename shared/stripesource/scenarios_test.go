package stripesource

import (
	"testing"
	"time"

	"github.com/stripe/stripe-go/v84"
	"github.com/subsight/subsight/shared/metrics/engine"
)

type mrrCheck struct {
	on  string // a UTC date, noon: after the day's changes
	mrr int64
}

// TestScenariosMRR builds Stripe objects with stripe-go's types, maps them, runs the
// records through the metrics engine and compares the MRR with what ChartMogul shows for
// the same Stripe data (docs/stripe.md, "Mapping rules").
func TestScenariosMRR(t *testing.T) {
	const excl, incl = stripe.InvoiceLineItemTaxTaxBehaviorExclusive, stripe.InvoiceLineItemTaxTaxBehaviorInclusive
	annual := recurring("price_year", stripe.PriceRecurringIntervalYear, 1)
	quarterly := recurring("price_quarter", stripe.PriceRecurringIntervalMonth, 3)
	weekly := recurring("price_week", stripe.PriceRecurringIntervalWeek, 1)
	cat := catalog(monthly("price_m"), monthly("price_m2"), annual, quarterly, weekly, monthly("price_base"),
		monthly("price_addon"), oneOffPrice("price_setup"), meteredPrice("price_usage"))
	cancelled := subscription("sub_1", "si_1")
	cancelled.Status, cancelled.CanceledAt, cancelled.EndedAt = stripe.SubscriptionStatusCanceled, day("2026-03-10"), day("2026-04-01")
	scheduled := subscription("sub_1", "si_1")
	scheduled.CancelAtPeriodEnd, scheduled.CanceledAt = true, day("2026-03-10")
	scheduled.Items.Data[0].CurrentPeriodEnd = day("2026-04-01")
	immediate := subscription("sub_1", "si_1")
	immediate.Status, immediate.CanceledAt, immediate.EndedAt = stripe.SubscriptionStatusCanceled, day("2026-03-15"), day("2026-03-15")
	refund := &stripe.Refund{ID: "re_1", Amount: 120000, Currency: "usd", Status: stripe.RefundStatusSucceeded, Created: day("2026-03-15")}
	refunded, _ := Refund(refund, "in_1")
	partial := *refund
	partial.Amount = 95000
	partlyRefunded, _ := Refund(&partial, "in_1")
	unpaidCancel := subscription("sub_1", "si_1")
	unpaidCancel.Status, unpaidCancel.CanceledAt, unpaidCancel.EndedAt = stripe.SubscriptionStatusCanceled, day("2026-04-22"), day("2026-04-22")
	unpaidCancel.CancellationDetails = &stripe.SubscriptionCancellationDetails{Reason: stripe.SubscriptionCancellationDetailsReasonPaymentFailed}
	failing := openInvoice("in_4", "2026-04-01", subLine("il_4", "sub_1", "si_1", "price_m", 5000, 1, "2026-04-01", "2026-05-01"))
	failing.AttemptCount = 1
	firstFailure := FailedPayment(failing, at("2026-04-01"))
	recovered := paidInvoice("in_4", "2026-04-01", subLine("il_4", "sub_1", "si_1", "price_m", 5000, 1, "2026-04-01", "2026-05-01"))
	recovered.Payments.Data[0].StatusTransitions.PaidAt = day("2026-04-05")
	monthlyFrom := func(from string, n int, amount int64) []*stripe.Invoice {
		var out []*stripe.Invoice
		start := at(from)
		for i := range n {
			s, e := start.AddDate(0, i, 0).Format(time.DateOnly), start.AddDate(0, i+1, 0).Format(time.DateOnly)
			out = append(out, paidInvoice("in_"+s, s, subLine("il_"+s, "sub_1", "si_1", "price_m", amount, 1, s, e)))
		}
		return out
	}

	tests := []struct {
		name      string
		currency  string
		invoices  []*stripe.Invoice
		extra     Records
		settings  func(*engine.Settings)
		rates     engine.RateTable
		checks    []mrrCheck
		movements int   // -1: not checked
		quantity  int64 // the subscription's quantity at the end; 0: not checked
	}{
		{name: "1 monthly $50 x 3 seats", invoices: []*stripe.Invoice{
			paidInvoice("in_1", "2026-01-10", subLine("il_1", "sub_1", "si_1", "price_m", 15000, 3, "2026-01-10", "2026-02-10"))},
			checks: []mrrCheck{{"2026-01-09", 0}, {"2026-01-10", 15000}, {"2026-01-31", 15000}}, movements: 1, quantity: 3},
		{name: "2 annual $1,200 renewed at the same price", invoices: []*stripe.Invoice{
			paidInvoice("in_1", "2026-01-01", subLine("il_1", "sub_1", "si_1", "price_year", 120000, 1, "2026-01-01", "2027-01-01")),
			paidInvoice("in_2", "2027-01-01", subLine("il_2", "sub_1", "si_1", "price_year", 120000, 1, "2027-01-01", "2028-01-01"))},
			checks: []mrrCheck{{"2026-01-01", 10000}, {"2026-12-31", 10000}, {"2027-06-01", 10000}}, movements: 1},
		{name: "2 quarterly $300", invoices: []*stripe.Invoice{
			paidInvoice("in_1", "2026-01-01", subLine("il_1", "sub_1", "si_1", "price_quarter", 30000, 1, "2026-01-01", "2026-04-01"))},
			checks: []mrrCheck{{"2026-02-15", 10000}}, movements: 1},
		{name: "3 weekly $10 (7 days)", invoices: []*stripe.Invoice{
			paidInvoice("in_1", "2026-01-01", subLine("il_1", "sub_1", "si_1", "price_week", 1000, 1, "2026-01-01", "2026-01-08"))},
			checks: []mrrCheck{{"2026-01-05", 4348}}, movements: 1},
		{name: "4 base + add-on + setup fee + metered usage", invoices: []*stripe.Invoice{
			paidInvoice("in_1", "2026-02-01",
				subLine("il_1a", "sub_1", "si_A", "price_base", 10000, 1, "2026-02-01", "2026-03-01"),
				subLine("il_1b", "sub_1", "si_B", "price_addon", 5000, 1, "2026-02-01", "2026-03-01"),
				itemLine("il_1c", "price_setup", 20000, "2026-02-01")),
			paidInvoice("in_2", "2026-03-01",
				subLine("il_2a", "sub_1", "si_A", "price_base", 10000, 1, "2026-03-01", "2026-04-01"),
				subLine("il_2b", "sub_1", "si_B", "price_addon", 5000, 1, "2026-03-01", "2026-04-01"),
				subLine("il_2c", "sub_1", "si_C", "price_usage", 3500, 3500, "2026-02-01", "2026-03-01"))},
			checks: []mrrCheck{{"2026-02-15", 15000}, {"2026-03-15", 15000}}, movements: 2},
		{name: "5 20% forever coupon on $100", invoices: []*stripe.Invoice{
			paidInvoice("in_1", "2026-01-01", discounted(subLine("il_1", "sub_1", "si_1", "price_m", 10000, 1, "2026-01-01", "2026-02-01"), 2000, "TWENTY")),
			paidInvoice("in_2", "2026-02-01", discounted(subLine("il_2", "sub_1", "si_1", "price_m", 10000, 1, "2026-02-01", "2026-03-01"), 2000, "TWENTY"))},
			checks: []mrrCheck{{"2026-01-15", 8000}, {"2026-02-15", 8000}}, movements: 1},
		{name: "6 $10-off once coupon on $50", invoices: []*stripe.Invoice{
			paidInvoice("in_1", "2026-01-01", discounted(subLine("il_1", "sub_1", "si_1", "price_m", 5000, 1, "2026-01-01", "2026-02-01"), 1000, "TENOFF")),
			paidInvoice("in_2", "2026-02-01", subLine("il_2", "sub_1", "si_1", "price_m", 5000, 1, "2026-02-01", "2026-03-01"))},
			checks: []mrrCheck{{"2026-01-15", 4000}, {"2026-02-15", 5000}}, movements: 2},
		{name: "6 50% repeating 3 months on $100", invoices: []*stripe.Invoice{
			paidInvoice("in_1", "2026-01-01", discounted(subLine("il_1", "sub_1", "si_1", "price_m", 10000, 1, "2026-01-01", "2026-02-01"), 5000, "HALF")),
			paidInvoice("in_2", "2026-02-01", discounted(subLine("il_2", "sub_1", "si_1", "price_m", 10000, 1, "2026-02-01", "2026-03-01"), 5000, "HALF")),
			paidInvoice("in_3", "2026-03-01", discounted(subLine("il_3", "sub_1", "si_1", "price_m", 10000, 1, "2026-03-01", "2026-04-01"), 5000, "HALF")),
			paidInvoice("in_4", "2026-04-01", subLine("il_4", "sub_1", "si_1", "price_m", 10000, 1, "2026-04-01", "2026-05-01"))},
			checks: []mrrCheck{{"2026-01-15", 5000}, {"2026-03-15", 5000}, {"2026-04-15", 10000}}, movements: 2},
		{name: "6 annual $1,200 with $120 once", invoices: []*stripe.Invoice{
			paidInvoice("in_1", "2026-01-01", discounted(subLine("il_1", "sub_1", "si_1", "price_year", 120000, 1, "2026-01-01", "2027-01-01"), 12000, "ONCE120")),
			paidInvoice("in_2", "2027-01-01", subLine("il_2", "sub_1", "si_1", "price_year", 120000, 1, "2027-01-01", "2028-01-01"))},
			checks: []mrrCheck{{"2026-06-15", 9000}, {"2027-01-15", 10000}}, movements: 2},
		{name: "7 $100 + 20% VAT exclusive", invoices: []*stripe.Invoice{
			paidInvoice("in_1", "2026-01-01", taxed(subLine("il_1", "sub_1", "si_1", "price_m", 10000, 1, "2026-01-01", "2026-02-01"), 2000, 10000, excl))},
			checks: []mrrCheck{{"2026-01-15", 10000}}, movements: 1},
		{name: "8 $120 incl. 20% VAT", invoices: []*stripe.Invoice{
			paidInvoice("in_1", "2026-01-01", taxed(subLine("il_1", "sub_1", "si_1", "price_m", 12000, 1, "2026-01-01", "2026-02-01"), 2000, 10000, incl))},
			checks: []mrrCheck{{"2026-01-15", 10000}}, movements: 1},
		{name: "8 $120 incl. VAT with a 50% coupon", invoices: []*stripe.Invoice{
			paidInvoice("in_1", "2026-01-01", taxed(discounted(subLine("il_1", "sub_1", "si_1", "price_m", 12000, 1, "2026-01-01", "2026-02-01"), 6000, "HALF"), 1000, 5000, incl))},
			checks: []mrrCheck{{"2026-01-15", 5000}}, movements: 1},
		{name: "8 $120 with tax handled outside Stripe", invoices: []*stripe.Invoice{
			paidInvoice("in_1", "2026-01-01", subLine("il_1", "sub_1", "si_1", "price_m", 12000, 1, "2026-01-01", "2026-02-01"))},
			checks: []mrrCheck{{"2026-01-15", 12000}}, movements: 1},
		{name: "9 upgrade $50 to $150 mid-cycle, prorations on the next invoice", invoices: []*stripe.Invoice{
			paidInvoice("in_1", "2026-04-01", subLine("il_1", "sub_1", "si_1", "price_m", 5000, 1, "2026-04-01", "2026-05-01")),
			paidInvoice("in_2", "2026-05-01",
				prorationLine(subLine("il_2a", "sub_1", "si_1", "price_m", -2500, 1, "2026-04-16", "2026-05-01")),
				prorationLine(subLine("il_2b", "sub_1", "si_1", "price_m2", 7500, 1, "2026-04-16", "2026-05-01")),
				subLine("il_2c", "sub_1", "si_1", "price_m2", 15000, 1, "2026-05-01", "2026-06-01"))},
			checks: []mrrCheck{{"2026-04-10", 5000}, {"2026-04-20", 15000}, {"2026-05-15", 15000}}, movements: 2},
		{name: "10 3 to 5 seats, invoiced at once", invoices: []*stripe.Invoice{
			paidInvoice("in_1", "2026-04-01", subLine("il_1", "sub_1", "si_1", "price_m", 15000, 3, "2026-04-01", "2026-05-01")),
			paidInvoice("in_2", "2026-04-16",
				prorationLine(subLine("il_2a", "sub_1", "si_1", "price_m", -7500, 3, "2026-04-16", "2026-05-01")),
				prorationLine(subLine("il_2b", "sub_1", "si_1", "price_m", 12500, 5, "2026-04-16", "2026-05-01"))),
			paidInvoice("in_3", "2026-05-01", subLine("il_3", "sub_1", "si_1", "price_m", 25000, 5, "2026-05-01", "2026-06-01"))},
			checks: []mrrCheck{{"2026-04-10", 15000}, {"2026-04-20", 25000}, {"2026-05-15", 25000}}, movements: 2, quantity: 5},
		{name: "12 cancel at period end, ended", invoices: monthlyFrom("2026-03-01", 1, 5000),
			extra:  Records{ImportPayload: payloadOfEvents(Cancellations(cancelled, false, time.Time{}))},
			checks: []mrrCheck{{"2026-03-20", 5000}, {"2026-04-01", 0}}, movements: 2},
		{name: "12 cancel at period end, only scheduled", invoices: monthlyFrom("2026-03-01", 1, 5000),
			extra:  Records{ImportPayload: payloadOfEvents(Cancellations(scheduled, false, time.Time{}))},
			checks: []mrrCheck{{"2026-03-20", 5000}, {"2026-04-01", 0}}, movements: 2},
		{name: "13 annual cancelled at once and refunded", invoices: []*stripe.Invoice{
			paidInvoice("in_1", "2026-01-01", subLine("il_1", "sub_1", "si_1", "price_year", 120000, 1, "2026-01-01", "2027-01-01"))},
			extra:  Records{ImportPayload: withTransactions(payloadOfEvents(Cancellations(immediate, false, time.Time{})), refunded)},
			checks: []mrrCheck{{"2026-02-15", 10000}, {"2026-03-15", 0}}, movements: 2},
		{name: "14 failed renewal, then paid", invoices: append(monthlyFrom("2026-01-01", 3, 5000), recovered),
			extra:  Records{ImportPayload: withTransactions(payloadOfEvents(nil), firstFailure)},
			checks: []mrrCheck{{"2026-01-15", 5000}, {"2026-04-03", 5000}, {"2026-04-15", 5000}}, movements: 1},
		{name: "15 first invoice voided", invoices: []*stripe.Invoice{
			withStatus(openInvoice("in_1", "2026-02-01", subLine("il_1", "sub_1", "si_1", "price_m", 5000, 1, "2026-02-01", "2026-03-01")), stripe.InvoiceStatusVoid)},
			checks: []mrrCheck{{"2026-02-15", 0}}, movements: 0},
		{name: "16 trial, then paid", invoices: []*stripe.Invoice{
			paidInvoice("in_1", "2026-01-01", subLine("il_1", "sub_1", "si_1", "price_m", 0, 1, "2026-01-01", "2026-01-15")),
			paidInvoice("in_2", "2026-01-15", subLine("il_2", "sub_1", "si_1", "price_m", 5000, 1, "2026-01-15", "2026-02-15"))},
			checks: []mrrCheck{{"2026-01-10", 0}, {"2026-01-20", 5000}}, movements: 1},
		{name: "18 renewal marked uncollectible", invoices: append(monthlyFrom("2026-01-01", 5, 5000),
			withStatus(openInvoice("in_6", "2026-06-01", subLine("il_6", "sub_1", "si_1", "price_m", 5000, 1, "2026-06-01", "2026-07-01")), stripe.InvoiceStatusUncollectible)),
			checks: []mrrCheck{{"2026-05-15", 5000}, {"2026-06-15", 5000}}, movements: 1},
		{name: "11 downgrade at renewal", invoices: []*stripe.Invoice{
			paidInvoice("in_1", "2026-04-01", subLine("il_1", "sub_1", "si_1", "price_m2", 15000, 1, "2026-04-01", "2026-05-01")),
			paidInvoice("in_2", "2026-05-01", subLine("il_2", "sub_1", "si_1", "price_m", 5000, 1, "2026-05-01", "2026-06-01"))},
			checks: []mrrCheck{{"2026-04-15", 15000}, {"2026-05-15", 5000}}, movements: 2},
		{name: "13 churn at the end of the final service period", invoices: []*stripe.Invoice{
			paidInvoice("in_1", "2026-01-01", subLine("il_1", "sub_1", "si_1", "price_year", 120000, 1, "2026-01-01", "2027-01-01"))},
			extra:    Records{ImportPayload: withTransactions(payloadOfEvents(Cancellations(immediate, false, time.Time{})), refunded)},
			settings: func(s *engine.Settings) { s.ChurnRecognition = engine.ChurnAtPeriodEnd },
			checks:   []mrrCheck{{"2026-03-20", 10000}, {"2026-12-31", 10000}, {"2027-01-01", 0}}, movements: 2},
		{name: "13 full refund with refund_full_only", invoices: []*stripe.Invoice{
			paidInvoice("in_1", "2026-01-01", subLine("il_1", "sub_1", "si_1", "price_year", 120000, 1, "2026-01-01", "2027-01-01"))},
			extra:    Records{ImportPayload: withTransactions(payloadOfEvents(Cancellations(immediate, false, time.Time{})), refunded)},
			settings: func(s *engine.Settings) { s.RefundHandling = engine.RefundFullOnly },
			checks:   []mrrCheck{{"2026-01-15", 0}, {"2026-02-15", 0}}, movements: 0},
		{name: "13 partial refund with refund_full_only", invoices: []*stripe.Invoice{
			paidInvoice("in_1", "2026-01-01", subLine("il_1", "sub_1", "si_1", "price_year", 120000, 1, "2026-01-01", "2027-01-01"))},
			extra:    Records{ImportPayload: withTransactions(payloadOfEvents(Cancellations(immediate, false, time.Time{})), partlyRefunded)},
			settings: func(s *engine.Settings) { s.RefundHandling = engine.RefundFullOnly },
			checks:   []mrrCheck{{"2026-02-15", 10000}, {"2026-03-15", 0}}, movements: 2},
		{name: "14 retries exhausted, Stripe cancels", invoices: append(monthlyFrom("2026-01-01", 3, 5000), failing),
			extra:  Records{ImportPayload: withTransactions(payloadOfEvents(Cancellations(unpaidCancel, false, time.Time{})), firstFailure)},
			checks: []mrrCheck{{"2026-04-10", 5000}, {"2026-04-22", 0}}, movements: 2},
		{name: "17 EUR customer, USD account", invoices: []*stripe.Invoice{
			paidInvoice("in_1", "2017-05-01", inCurrency(subLine("il_1", "sub_1", "si_1", "price_m", 10000, 1, "2017-05-01", "2017-06-01"), "eur"))},
			rates:  engine.RateTable{"2017-05-01/EUR": 1.09086},
			checks: []mrrCheck{{"2017-05-15", 10908}}, movements: 1},
		{name: "20 paused, Stripe voids the renewals", invoices: append(monthlyFrom("2026-03-01", 1, 5000),
			withStatus(openInvoice("in_4", "2026-04-01", subLine("il_4", "sub_1", "si_1", "price_m", 5000, 1, "2026-04-01", "2026-05-01")), stripe.InvoiceStatusVoid),
			withStatus(openInvoice("in_5", "2026-05-01", subLine("il_5", "sub_1", "si_1", "price_m", 5000, 1, "2026-05-01", "2026-06-01")), stripe.InvoiceStatusVoid),
			paidInvoice("in_6", "2026-06-01", subLine("il_6", "sub_1", "si_1", "price_m", 5000, 1, "2026-06-01", "2026-07-01"))),
			checks: []mrrCheck{{"2026-03-15", 5000}, {"2026-04-15", 5000}, {"2026-05-15", 5000}, {"2026-06-15", 5000}}, movements: 1},
		{name: "zero-decimal currency: ¥1,000 a month", currency: "JPY", invoices: []*stripe.Invoice{
			paidInvoice("in_1", "2026-01-01", inCurrency(subLine("il_1", "sub_1", "si_1", "price_m", 1000, 1, "2026-01-01", "2026-02-01"), "jpy"))},
			checks: []mrrCheck{{"2026-01-15", 100000}}, movements: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			currency := tc.currency
			if currency == "" {
				currency = "USD"
			}
			recs := mapAll(t, cat, tc.invoices, tc.extra)
			in := engineInput(recs, currency, at("2028-06-01"))
			if tc.settings != nil {
				tc.settings(&in.Settings)
			}
			if tc.rates != nil {
				in.Rates = tc.rates
			}
			res := engine.Compute(in)
			if len(res.InvalidInvoices) > 0 {
				t.Fatalf("invalid invoices: %+v", res.InvalidInvoices)
			}
			for _, c := range tc.checks {
				if got := mrrAt(res, at(c.on).Add(12*time.Hour)); got != c.mrr {
					t.Errorf("MRR on %s = %d, want %d (timeline %+v)", c.on, got, c.mrr, res.MRRTimeline)
				}
			}
			if tc.quantity != 0 && (len(res.Subscriptions) != 1 || res.Subscriptions[0].Quantity != tc.quantity) {
				t.Errorf("subscriptions %+v, want one of quantity %d", res.Subscriptions, tc.quantity)
			}
			if tc.movements >= 0 && len(res.Movements) != tc.movements {
				t.Errorf("%d movements, want %d: %+v", len(res.Movements), tc.movements, res.Movements)
			}
		})
	}
}
