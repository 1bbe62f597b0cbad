package series

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/subsight/subsight/shared/metrics/engine"
)

// fxPortfolio is a USD account with customers billed in GBP, EUR and USD, renewed monthly
// from January to June 2024 at drifting rates, with real changes among the renewals:
//
//	G (GB): GBP 50.00 on silver; 60.00 from April; renews on gold at 70.00 in May.
//	E (DE): EUR 40.00 on silver; from March a set successor on gold at 45.00; cancelled 2024-06-10.
//	U (US): USD 30.00 on silver; 35.00 from March.
func fxPortfolio(t *testing.T) (customers []Customer, results []engine.Result) {
	t.Helper()
	silver := engine.Plan{UUID: "pl_s", Name: "Silver", IntervalCount: 1, IntervalUnit: "month"}
	gold := engine.Plan{UUID: "pl_g", Name: "Gold", IntervalCount: 1, IntervalUnit: "month"}
	rates := engine.RateTable{}
	gbp := []float64{1.25, 1.27, 1.2611, 1.24, 1.2777, 1.2333}
	eur := []float64{1.09, 1.0851, 1.08, 1.0937, 1.071, 1.0802}
	for i := range 6 {
		day := at("2024-01-01").AddDate(0, i, 0).Format(time.DateOnly)
		rates[day+"/GBP"], rates[day+"/EUR"] = gbp[i], eur[i]
	}
	type line struct {
		sub, set string
		plan     engine.Plan
		month    int // 1 = January 2024
		amount   int64
		cancel   string
	}
	build := func(country, currency string, lines []line) {
		var invoices []engine.Invoice
		for i, l := range lines {
			s := at("2024-01-01").AddDate(0, l.month-1, 0)
			it := engine.LineItem{Type: engine.ItemSubscription, SubscriptionExternalID: l.sub, SubscriptionSetExternalID: l.set,
				PlanUUID: l.plan.UUID, ServicePeriodStart: s, ServicePeriodEnd: s.AddDate(0, 1, 0), AmountInCents: l.amount, Quantity: 1}
			if l.cancel != "" {
				it.CancelledAt = at(l.cancel)
			}
			invoices = append(invoices, engine.Invoice{UUID: fmt.Sprintf("%s-%d", country, i), DataSourceUUID: "ds", Date: s,
				Currency: currency, LineItems: []engine.LineItem{it}})
		}
		r := engine.Compute(engine.Input{Now: at("2024-06-20"), Settings: engine.Settings{Currency: "USD"},
			Plans: []engine.Plan{silver, gold}, Invoices: invoices, Rates: rates})
		if len(r.InvalidInvoices) > 0 {
			t.Fatalf("%s: invalid invoices %+v", country, r.InvalidInvoices)
		}
		customers = append(customers, Customer{UUID: country, Country: country, Movements: r.Movements,
			ExchangeRateImpacts: r.ExchangeRateImpacts})
		results = append(results, r)
	}
	var g, e, u []line
	for m := 1; m <= 6; m++ {
		switch {
		case m < 4:
			g = append(g, line{"g", "", silver, m, 5000, ""})
		case m == 4:
			g = append(g, line{"g", "", silver, m, 6000, ""})
		default:
			g = append(g, line{"g", "", gold, m, 7000, ""})
		}
		if m < 3 {
			cancel := ""
			if m == 2 {
				cancel = "2024-03-01"
			}
			e = append(e, line{"e1", "set", silver, m, 4000, cancel})
		} else {
			cancel := ""
			if m == 6 {
				cancel = "2024-06-10"
			}
			e = append(e, line{"e2", "set", gold, m, 4500, cancel})
		}
		amount := int64(3000)
		if m >= 3 {
			amount = 3500
		}
		u = append(u, line{"u", "", silver, m, amount, ""})
	}
	build("GB", "GBP", g)
	build("DE", "EUR", e)
	build("US", "USD", u)
	return customers, results
}

// TestExchangeRateImpactIdentity: over a multi-currency account, in every entry of every
// interval and filter, MRR at the start + the five movements + the exchange-rate impact =
// MRR at the end; the last MRR is what the customers' subscriptions add up to; and the
// movement sums carry no exchange-rate amount.
func TestExchangeRateImpactIdentity(t *testing.T) {
	customers, results := fxPortfolio(t)
	filters := []Filter{{}, {Countries: []string{"GB"}}, {Plans: []string{"pl_s"}}, {Plans: []string{"pl_g"}},
		{Plans: []string{"pl_s", "pl_g"}}, {Countries: []string{"DE", "GB"}, Plans: []string{"pl_g"}}}
	anyImpact := false
	for _, f := range filters {
		a := aggregate(customers, utcMonday, f)
		for _, iv := range Intervals {
			resp, err := Compute(a, utcMonday, Query{"2023-12-01", "2024-06-20", iv})
			if err != nil {
				t.Fatal(err)
			}
			mrr := int64(0)
			for _, e := range resp.Entries {
				v := e.Values
				mrr += v.NewBusiness + v.Expansion + v.Contraction + v.Churn + v.Reactivation + v.ExchangeRateImpact
				if mrr != v.MRR {
					t.Fatalf("%+v %s %s: start + movements + impact = %d, MRR %d", f, iv, e.Date, mrr, v.MRR)
				}
				anyImpact = anyImpact || v.ExchangeRateImpact != 0
			}
			if want := subscriptionsMRR(customers, results, f); mrr != want {
				t.Errorf("%+v %s: series end at %d, the subscriptions add up to %d", f, iv, mrr, want)
			}
		}
	}
	if !anyImpact {
		t.Fatal("no exchange-rate impact at all: the test proves nothing")
	}

	// By month, unfiltered: February is a pure drift (no movement), the movements are the
	// real changes valued at the new period's rate.
	resp, _ := Compute(aggregate(customers, utcMonday, Filter{}), utcMonday, Query{"2024-01-01", "2024-06-30", Month})
	type row struct{ mrr, nb, exp, con, churn, fx int64 }
	var got []row
	for _, e := range resp.Entries {
		v := e.Values
		got = append(got, row{v.MRR, v.NewBusiness, v.Expansion, v.Contraction, v.Churn, v.ExchangeRateImpact})
	}
	// Customer MRR is truncated, so impacts are differences of truncated values.
	// Jan: G 5000 × 1.25 = 6250, E 4000 × 1.09 = 4360, U 3000: 13610 new business.
	// Feb: G 6350 (+100), E 4340.4 (4340, −20): impact 80, no movement.
	// Mar: G 6305.5 (−45); E repriced 4000 × 1.08 = 4320 (−20), then its successor
	// 4500 × 1.08 = 4860 (expansion 540); U +500: impact −65, expansion 1040.
	// Apr: G repriced 5000 × 1.24 = 6200 (−105), then 6000 × 1.24 = 7440 (expansion 1240);
	// E 4921.65 (+61): impact −44. May: G repriced 6000 × 1.2777 = 7666.2 (+226), gold
	// 7000 × 1.2777 = 8943.9 (expansion 1277); E 4819.5 (−102): impact 124.
	// Jun: G 8633.1 (−310), E 4860.9 (+41): impact −269; E churns −4860: 8633 + 3500.
	want := []row{
		{13610, 13610, 0, 0, 0, 0},
		{13690, 0, 0, 0, 0, 80},
		{14665, 0, 1040, 0, 0, -65},
		{15861, 0, 1240, 0, 0, -44},
		{17262, 0, 1277, 0, 0, 124},
		{12133, 0, 0, 0, -4860, -269},
	}
	if !slices.Equal(got, want) {
		t.Errorf("by month:\n got %v\nwant %v", got, want)
	}
}

// subscriptionsMRR is what the engine's subscription rows on the filter's plans and
// countries add up to (what the series must end at).
func subscriptionsMRR(customers []Customer, results []engine.Result, f Filter) int64 {
	var total int64
	for i, c := range customers {
		if len(f.Countries) > 0 && !slices.Contains(f.Countries, c.Country) {
			continue
		}
		if len(f.Plans) == 0 {
			total += results[i].MRR
			continue
		}
		for _, s := range results[i].Subscriptions {
			if s.Status == engine.SubscriptionActive && slices.Contains(f.Plans, s.PlanUUID) {
				total += s.MRR
			}
		}
	}
	return total
}
