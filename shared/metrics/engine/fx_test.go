package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func gbp(inv Invoice) Invoice { inv.Currency = "GBP"; return inv }

// withRates sets rates given as day (GBP) or day/currency, rate pairs.
func withRates(in Input, pairs ...any) Input {
	t := RateTable{}
	for i := 0; i+1 < len(pairs); i += 2 {
		key := pairs[i].(string)
		if !strings.Contains(key, "/") {
			key += "/GBP"
		}
		t[key] = pairs[i+1].(float64)
	}
	in.Rates = t
	return in
}

func inSet(it LineItem, set string) LineItem { it.SubscriptionSetExternalID = set; return it }

func cancelledAt(it LineItem, when string) LineItem { it.CancelledAt = at(when); return it }

// impacts renders exchange-rate impacts as "date amount customer-mrr".
func impacts(r Result) []string {
	var out []string
	for _, f := range r.ExchangeRateImpacts {
		out = append(out, fmt.Sprintf("%s %d %d", strings.TrimSuffix(f.At.UTC().Format("2006-01-02T15:04"), "T00:00"), f.Amount, f.CustomerMRR))
	}
	return out
}

// checkChain: movements and impacts, impacts first at an instant, follow the customer's MRR
// to the cent (each starts where the previous ended and the last ends at the MRR), which is
// what makes start MRR + movements + impacts = end MRR in the account series.
func checkChain(t *testing.T, r Result) {
	t.Helper()
	type change struct {
		at            time.Time
		fx            bool
		before, after int64
	}
	var all []change
	for _, f := range r.ExchangeRateImpacts {
		if f.Amount != f.CustomerMRR-f.CustomerMRRBefore {
			t.Errorf("impact %+v: amount is not the change of customer MRR", f)
		}
		all = append(all, change{f.At, true, f.CustomerMRRBefore, f.CustomerMRR})
	}
	for _, m := range r.Movements {
		all = append(all, change{m.At, false, m.CustomerMRRBefore, m.CustomerMRR})
	}
	slices.SortStableFunc(all, func(a, b change) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		if a.fx != b.fx && a.fx {
			return -1
		} else if a.fx != b.fx {
			return 1
		}
		return 0
	})
	mrr := int64(0)
	for _, c := range all {
		if c.before != mrr {
			t.Errorf("change at %s starts from %d, the MRR was %d", c.at, c.before, mrr)
		}
		mrr = c.after
	}
	if mrr != r.MRR {
		t.Errorf("movements and impacts end at %d, MRR is %d", mrr, r.MRR)
	}
}

// TestExchangeRateImpact: a foreign-currency renewal converted at a new rate makes no
// movement; the MRR follows the new rate and the difference is an exchange-rate impact. A
// real change at the same renewal is a movement valued at the new rate; churn and
// reactivation are valued at the rate of the period they end or start.
func TestExchangeRateImpact(t *testing.T) {
	jan, feb := item(monthly, "2024-01-01", "2024-02-01", 5000), item(monthly, "2024-02-01", "2024-03-01", 5000)
	tests := []struct {
		name    string
		in      Input
		want    want
		impacts []string
	}{
		{"rate up: GBP 50.00 at 1.25 then 1.27, no expansion", withRates(input("2024-02-10",
			gbp(invoice("1", "2024-01-01", jan)), gbp(invoice("2", "2024-02-01", feb))), "2024-01-01", 1.25, "2024-02-01", 1.27),
			want{mrr: 6350, arr: 76200, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 6250 6250"}},
			[]string{"2024-02-01 100 6350"}},
		{"rate down: 1.25 then 1.23, no contraction", withRates(input("2024-02-10",
			gbp(invoice("1", "2024-01-01", jan)), gbp(invoice("2", "2024-02-01", feb))), "2024-01-01", 1.25, "2024-02-01", 1.23),
			want{mrr: 6150, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 6250 6250"}},
			[]string{"2024-02-01 -100 6150"}},
		{"same rate: no impact", withRates(input("2024-02-10",
			gbp(invoice("1", "2024-01-01", jan)), gbp(invoice("2", "2024-02-01", feb))), "2024-01-01", 1.25, "2024-02-01", 1.25),
			want{mrr: 6250, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 6250 6250"}}, nil},
		{"rate up and price up: impact of the old price, expansion of the change at the new rate", withRates(input("2024-02-10",
			gbp(invoice("1", "2024-01-01", jan)), gbp(invoice("2", "2024-02-01", item(monthly, "2024-02-01", "2024-03-01", 6000)))),
			"2024-01-01", 1.25, "2024-02-01", 1.27),
			want{mrr: 7620, status: StatusActive, since: "2024-01-01",
				moves: []string{"2024-01-01 new_biz 6250 6250", "2024-02-01 expansion 1270 7620"}},
			[]string{"2024-02-01 100 6350"}},
		{"rate up and fewer seats: contraction at the new rate, impact positive", withRates(input("2024-02-10",
			gbp(invoice("1", "2024-01-01", withQuantity(jan, 5))),
			gbp(invoice("2", "2024-02-01", withQuantity(item(monthly, "2024-02-01", "2024-03-01", 4000), 4)))),
			"2024-01-01", 1.25, "2024-02-01", 1.27),
			want{mrr: 5080, status: StatusActive, since: "2024-01-01",
				moves: []string{"2024-01-01 new_biz 6250 6250", "2024-02-01 contraction -1270 5080"}},
			[]string{"2024-02-01 100 6350"}},
		{"rate change with a plan change (upgrade)", withRates(input("2024-02-10",
			gbp(invoice("1", "2024-01-01", jan)), gbp(invoice("2", "2024-02-01", item(gold, "2024-02-01", "2024-03-01", 8000)))),
			"2024-01-01", 1.25, "2024-02-01", 1.2),
			want{mrr: 9600, status: StatusActive, since: "2024-01-01",
				moves: []string{"2024-01-01 new_biz 6250 6250", "2024-02-01 expansion 3600 9600"}},
			[]string{"2024-02-01 -250 6000"}},
		{"churn after a rate change: the MRR at the latest rate is lost", withRates(input("2024-03-10",
			gbp(invoice("1", "2024-01-01", jan)), gbp(invoice("2", "2024-02-01", cancelledAt(feb, "2024-02-15")))),
			"2024-01-01", 1.25, "2024-02-01", 1.27),
			want{mrr: 0, status: StatusCancelled, since: "2024-01-01",
				moves: []string{"2024-01-01 new_biz 6250 6250", "2024-02-15 churn -6350 0"}},
			[]string{"2024-02-01 100 6350"}},
		{"churn after a rate and price change: the changed MRR at the new rate is lost", withRates(input("2024-03-10",
			gbp(invoice("1", "2024-01-01", jan)),
			gbp(invoice("2", "2024-02-01", cancelledAt(item(monthly, "2024-02-01", "2024-03-01", 6000), "2024-02-15")))),
			"2024-01-01", 1.25, "2024-02-01", 1.27),
			want{mrr: 0, status: StatusCancelled, since: "2024-01-01",
				moves: []string{"2024-01-01 new_biz 6250 6250", "2024-02-01 expansion 1270 7620", "2024-02-15 churn -7620 0"}},
			[]string{"2024-02-01 100 6350"}},
		{"reactivation at a new rate: valued at that rate, no impact", withRates(input("2024-03-10",
			gbp(invoice("1", "2024-01-01", cancelledAt(jan, "2024-02-01"))),
			gbp(invoice("3", "2024-03-01", item(monthly, "2024-03-01", "2024-04-01", 5000)))),
			"2024-01-01", 1.25, "2024-03-01", 1.3),
			want{mrr: 6500, status: StatusActive, since: "2024-01-01",
				moves: []string{"2024-01-01 new_biz 6250 6250", "2024-02-01 churn -6250 0", "2024-03-01 reactivation 6500 6500"}}, nil},
		{"cancelled and restarted at the same instant: one netted change, rate split out", withRates(input("2024-02-10",
			gbp(invoice("1", "2024-01-01", cancelledAt(jan, "2024-02-01"))),
			gbp(invoice("2", "2024-02-01", item(monthly, "2024-02-01", "2024-03-01", 6000)))),
			"2024-01-01", 1.25, "2024-02-01", 1.27),
			want{mrr: 7620, status: StatusActive, since: "2024-01-01",
				moves: []string{"2024-01-01 new_biz 6250 6250", "2024-02-01 expansion 1270 7620"}},
			[]string{"2024-02-01 100 6350"}},
		{"mid-period upgrade at its own rate, then a renewal at a third rate: every part repriced", withRates(input("2024-07-10",
			gbp(invoice("1", "2024-06-01", item(monthly, "2024-06-01", "2024-07-01", 5000))),
			gbp(invoice("2", "2024-06-16", prorated(item(monthly, "2024-06-16", "2024-07-01", 1250), ProrationDifferential))),
			gbp(invoice("3", "2024-07-01", item(monthly, "2024-07-01", "2024-08-01", 7500)))),
			"2024-06-01", 1.25, "2024-06-16", 1.26, "2024-07-01", 1.27),
			want{mrr: 9525, status: StatusActive, since: "2024-06-01",
				moves: []string{"2024-06-01 new_biz 6250 6250", "2024-06-16 expansion 3150 9400"}},
			[]string{"2024-07-01 125 9525"}},
		{"plan change through a set successor: repriced at the successor's rate", withRates(input("2024-02-10",
			gbp(invoice("1", "2024-01-01", cancelledAt(inSet(jan, "set"), "2024-02-01"))),
			gbp(invoice("2", "2024-02-01", inSet(onSub(item(gold, "2024-02-01", "2024-03-01", 6000), "b"), "set")))),
			"2024-01-01", 1.25, "2024-02-01", 1.27),
			want{mrr: 7620, status: StatusActive, since: "2024-01-01",
				moves: []string{"2024-01-01 new_biz 6250 6250", "2024-02-01 expansion 1270 7620"}},
			[]string{"2024-02-01 100 6350"}},
		{"renewal billed in another currency: a real change, no impact", withRates(input("2024-02-10",
			gbp(invoice("1", "2024-01-01", jan)), eur(invoice("2", "2024-02-01", feb))),
			"2024-01-01", 1.25, "2024-02-01", 1.27, "2024-02-01/EUR", 1.08),
			want{mrr: 5400, status: StatusActive, since: "2024-01-01",
				moves: []string{"2024-01-01 new_biz 6250 6250", "2024-02-01 contraction -850 5400"}}, nil},
		{"one subscription in GBP, one in USD: only the GBP one is repriced", withRates(input("2024-02-10",
			gbp(invoice("1", "2024-01-01", jan)), gbp(invoice("2", "2024-02-01", feb)),
			invoice("3", "2024-01-01", onSub(item(gold, "2024-01-01", "2024-02-01", 1000), "usd")),
			invoice("4", "2024-02-01", onSub(item(gold, "2024-02-01", "2024-03-01", 1000), "usd"))),
			"2024-01-01", 1.25, "2024-02-01", 1.27),
			want{mrr: 7350, status: StatusActive, since: "2024-01-01",
				moves: []string{"2024-01-01 new_biz 6250 6250", "2024-01-01 new_biz 1000 7250"}},
			[]string{"2024-02-01 100 7350"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Compute(tt.in)
			check(t, r, tt.want)
			if got := impacts(r); !slices.Equal(got, tt.impacts) {
				t.Errorf("impacts:\n got %q\nwant %q", got, tt.impacts)
			}
			checkChain(t, r)
		})
	}
}

// TestExchangeRateImpactCents: with rates that leave fractions of a cent, two foreign
// subscriptions renewed at drifting rates still make no movement after their purchase, and
// movements plus impacts follow the truncated customer MRR exactly.
func TestExchangeRateImpactCents(t *testing.T) {
	rates := []float64{1.2345, 1.2391, 1.2287, 1.23, 1.2417, 1.19}
	var invoices []Invoice
	var pairs []any
	start := at("2024-01-01")
	for i, r := range rates {
		s, e := start.AddDate(0, i, 0), start.AddDate(0, i+1, 0)
		day, end := s.Format(time.DateOnly), e.Format(time.DateOnly)
		pairs = append(pairs, day, r)
		invoices = append(invoices, gbp(invoice(fmt.Sprintf("i%d", i), day,
			item(monthly, day, end, 3333), onSub(item(gold, day, end, 1001), "b"))))
	}
	r := Compute(withRates(input("2024-06-10", invoices...), pairs...))
	check(t, r, want{mrr: 5157, status: StatusActive, since: "2024-01-01",
		moves: []string{"2024-01-01 new_biz 4114 4114", "2024-01-01 new_biz 1235 5350"}})
	if len(r.ExchangeRateImpacts) != 10 {
		t.Errorf("impacts %q, want one per subscription and renewal", impacts(r))
	}
	checkChain(t, r)
}

// TestNoImpactInTheAccountCurrency: a subscription billed in the account currency is
// never repriced, whatever rates the table holds for other currencies.
func TestNoImpactInTheAccountCurrency(t *testing.T) {
	in := withRates(input("2024-03-10", monthlyInvoices(monthly, "2024-01-01", 3, 1000)...),
		"2024-01-01", 1.25, "2024-02-01", 1.27, "2024-03-01", 1.3)
	if r := Compute(in); len(r.ExchangeRateImpacts) != 0 || r.MRR != 1000 {
		t.Fatalf("impacts %q, mrr %d", impacts(r), r.MRR)
	}
}
