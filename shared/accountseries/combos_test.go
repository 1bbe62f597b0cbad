package accountseries

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/metrics/series"
)

// subMove is a movement of one subscription (plan, previous plan and the subscription's
// MRR before and after) that moves the customer's MRR from before to after.
func subMove(when, typ string, before, after int64, plan, prevPlan string, subBefore, subAfter int64) engine.Movement {
	return engine.Movement{At: at(when), Type: typ, CustomerMRRBefore: before, CustomerMRR: after, Amount: after - before,
		PlanUUID: plan, PreviousPlanUUID: prevPlan, SubscriptionMRRBefore: subBefore, SubscriptionMRRAfter: subAfter,
		PayingBefore: before > 0, PayingAfter: after > 0, FirstPayment: typ == engine.NewBusiness,
		SubscriptionUUID: "sub-" + plan, SubscriptionExternalID: "ext-" + plan, Description: typ + " " + plan}
}

// multiPlanPortfolio: customers paying on several plans (hand computations below).
//
//	E (US): P1 1000 from 10 Jan; adds P2 500 on 20 Jan; cancels P1 on 5 Mar.
//	F (DE): P1 2000 from 1 Feb; switches to P2 at 2500 on 1 Mar.
//	G (US): P3 800 from 5 Jan; adds P2 300 on 15 Feb; cancels P2 on 20 Mar.
func multiPlanPortfolio() []customer {
	c := func(id, country string, ms ...engine.Movement) customer {
		return customer{CustomerAttrs{UUID: "cus_" + id, Name: "Customer " + id, ExternalID: "x-" + id, DataSourceUUID: "ds_1",
			Country: country, PlanExternalIDs: map[string]string{"P1": "gold", "P2": "silver", "P3": "bronze"}}, ms}
	}
	return []customer{
		c("E", "US", subMove("2024-01-10", engine.NewBusiness, 0, 1000, "P1", "", 0, 1000),
			subMove("2024-01-20", engine.Expansion, 1000, 1500, "P2", "", 0, 500),
			subMove("2024-03-05", engine.Contraction, 1500, 500, "P1", "P1", 1000, 0)),
		c("F", "DE", subMove("2024-02-01", engine.NewBusiness, 0, 2000, "P1", "", 0, 2000),
			subMove("2024-03-01", engine.Expansion, 2000, 2500, "P2", "P1", 2000, 2500)),
		c("G", "US", subMove("2024-01-05", engine.NewBusiness, 0, 800, "P3", "", 0, 800),
			subMove("2024-02-15", engine.Expansion, 800, 1100, "P2", "", 0, 300),
			subMove("2024-03-20", engine.Contraction, 1100, 800, "P2", "P2", 300, 0)),
	}
}

// filtered answers a query the way the Metrics API does for these filters.
func (f *fixture) filtered(countries, plans []string, q series.Query) series.Response {
	f.t.Helper()
	segs, err := FilterSegments(f.ctx, f.d, f.acc, countries, plans)
	if err != nil {
		f.t.Fatal(err)
	}
	return f.stored(segs, q)
}

// TestMultiPlanHandComputed: a plans filter of several plans counts a customer once,
// and a switch or an added subscription between the plans is a movement inside the
// filter, not a churn plus a new customer.
//
// plans=P1,P2 by month:
//
//	Jan: E new 1000, E adds P2 +500 (expansion) → 1500, 1 customer (not 2), ARPA 1500, ASP 1000.
//	Feb: F new 2000, G's P2 new 300 (G's P3 is outside) → 3800, 3 customers, ARPA 1266,
//	     ASP 2300/2 = 1150, net MRR churn 0/1500 = 0.
//	Mar: F P1→P2 +500 expansion (not churn + new), E −1000 contraction, G −300 churn → 3000,
//	     2 customers, ARPA 1500, customer churn 1 (G) of 3 = 33.33 %, LTV 1500/0.3333 = 4500,
//	     net MRR churn (300 + 1000 − 500)/3800 = 21.05 %.
//
// geo=US & plans=P1,P2 (E and G):
//
//	Jan: 1500, 1 customer, ASP 1000.  Feb: G new 300 → 1800, 2 customers, ARPA 900, ASP 300.
//	Mar: −1000 − 300 → 500, 1 customer, churn 1 of 2 = 50 %, LTV 500/0.5 = 1000,
//	     net MRR churn 1300/1800 = 72.22 %.
func TestMultiPlanHandComputed(t *testing.T) {
	f := newFixture(t)
	for _, c := range multiPlanPortfolio() {
		f.apply(c)
	}
	q := series.Query{Start: "2024-01-01", End: "2024-03-31", Interval: series.Month}
	tests := []struct {
		name             string
		countries, plans []string
		want             []series.Values
	}{
		{"plans P1,P2", nil, []string{"P1", "P2"}, []series.Values{
			{MRR: 1500, NewBusiness: 1000, Expansion: 500, ARR: 18000, Customers: 1, ARPA: 1500, ASP: 1000},
			{MRR: 3800, NewBusiness: 2300, ARR: 45600, Customers: 3, ARPA: 1266, ASP: 1150},
			{MRR: 3000, Expansion: 500, Contraction: -1000, Churn: -300, ARR: 36000, Customers: 2, ARPA: 1500,
				CustomerChurnRate: 33.33, MRRChurnRate: 21.05, LTV: 4500},
		}},
		{"every country of the portfolio, plans P1,P2", []string{"US", "DE"}, []string{"P1", "P2"}, nil}, // same as above
		{"geo US, plans P1,P2", []string{"US"}, []string{"P1", "P2"}, []series.Values{
			{MRR: 1500, NewBusiness: 1000, Expansion: 500, ARR: 18000, Customers: 1, ARPA: 1500, ASP: 1000},
			{MRR: 1800, NewBusiness: 300, ARR: 21600, Customers: 2, ARPA: 900, ASP: 300},
			{MRR: 500, Contraction: -1000, Churn: -300, ARR: 6000, Customers: 1, ARPA: 500,
				CustomerChurnRate: 50, MRRChurnRate: 72.22, LTV: 1000},
		}},
	}
	for i, tt := range tests {
		want := tt.want
		if want == nil {
			want = tests[i-1].want
		}
		resp := f.filtered(tt.countries, tt.plans, q)
		var got []series.Values
		for _, e := range resp.Entries {
			got = append(got, e.Values)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.name, got, want)
		}
		assertIdentity(t, resp)
	}
}

// TestMultiPlanStoredEqualsInMemory: every plan set (and with countries), every
// interval and several ranges: the stored plan and combination segments answer what
// the series of the customers restricted to the plans answers.
func TestMultiPlanStoredEqualsInMemory(t *testing.T) {
	f := newFixture(t)
	cs := append(multiPlanPortfolio(), portfolio()...)
	for _, c := range cs {
		f.apply(c)
	}
	planSets := [][]string{{"P1", "P2"}, {"P2", "P3"}, {"P1", "P3"}, {"P1", "P2", "P3"}, {"P1", "P2", "P9"}}
	ranges := [][2]string{{"2023-12-01", "2024-04-15"}, {"2024-01-15", "2024-03-10"}, {"2024-03-01", "2024-03-01"}}
	for _, plans := range planSets {
		for _, countries := range [][]string{nil, {"US"}, {"US", "DE"}} {
			for _, iv := range series.Intervals {
				for _, r := range ranges {
					q := series.Query{Start: r[0], End: r[1], Interval: iv}
					got := f.filtered(countries, plans, q)
					want := inMemory(cs, series.Filter{Countries: countries, Plans: plans}, q)
					sameResponse(t, fmt.Sprint(countries, plans, iv, r), got, want)
				}
			}
		}
	}
}

// TestPlanPartsSumToEveryFilter: for every subset P of the customer's plans (and plans
// it does not have), the parts T ⊆ P add up to its contribution restricted to P.
func TestPlanPartsSumToEveryFilter(t *testing.T) {
	for _, c := range multiPlanPortfolio() {
		sc := series.Customer{UUID: c.attrs.UUID, Country: c.attrs.Country, Movements: c.movements}
		parts := planParts(sc, utc)
		all := []string{"P1", "P2", "P3", "P9"}
		for mask := 1; mask < 1<<len(all); mask++ {
			plans := subset(all, mask)
			sum := series.NewAggregate()
			for _, p := range parts {
				if allIn(p.plans, plans) {
					sum.Add(p.agg, 1)
				}
			}
			if want := series.Contribution(sc, utc, series.Filter{Plans: plans}); !reflect.DeepEqual(sum, want) {
				t.Errorf("%s %v:\n parts %+v\n want  %+v", c.attrs.UUID, plans, sum, want)
			}
		}
	}
}

// TestCombinationRegistry: only customers whose plans interact register combinations,
// per country; a change that removes the interaction unregisters it.
func TestCombinationRegistry(t *testing.T) {
	f := newFixture(t)
	cs := multiPlanPortfolio()
	for _, c := range append(slices.Clone(cs), portfolio()...) {
		f.apply(c)
	}
	registered := func() map[string]map[string]int64 {
		combos, err := newDB(f.d).combinations(f.ctx, f.acc)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]map[string]int64{}
		for _, c := range combos {
			out[comboName(c.plans)] = c.customers
		}
		return out
	}
	want := map[string]map[string]int64{"P1+P2": {"n": 2, "nUS": 1, "nDE": 1}, "P2+P3": {"n": 1, "nUS": 1}}
	if got := registered(); !reflect.DeepEqual(got, want) {
		t.Fatalf("registry %v, want %v", got, want)
	}
	f.apply(customer{cs[1].attrs, cs[1].movements[:1]}) // F never switched to P2
	want["P1+P2"] = map[string]int64{"n": 1, "nUS": 1, "nDE": 0}
	if got := registered(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after the change: registry %v, want %v", got, want)
	}
	segs, err := FilterSegments(f.ctx, f.d, f.acc, []string{"DE", "FR"}, []string{"P1", "P2"})
	if err != nil {
		t.Fatal(err)
	}
	if want := Segments([]string{"DE", "FR"}, []string{"P1", "P2"}); !slices.Equal(segs, want) {
		t.Fatalf("segments %v, want only the plan segments %v", segs, want)
	}
}

// TestManyPlansKeepPlanSegmentsOnly: beyond maxCombinedPlans a customer has no
// combination segments (bounded writes; see docs/metrics-api.md).
func TestManyPlansKeepPlanSegmentsOnly(t *testing.T) {
	var ms []engine.Movement
	var mrr int64
	for i := range maxCombinedPlans + 1 {
		typ := engine.Expansion
		if i == 0 {
			typ = engine.NewBusiness
		}
		ms = append(ms, subMove(fmt.Sprintf("2024-01-%02d", i+1), typ, mrr, mrr+100, fmt.Sprint("P", i), "", 0, 100))
		mrr += 100
	}
	cells := customerCells(series.Customer{UUID: "many", Country: "US", Movements: ms}, utc)
	for k := range cells {
		if seg, sk, _ := splitCell(k); strings.HasPrefix(sk, keys.SeriesComboPrefix) || strings.Contains(seg, "plans:") {
			t.Fatalf("combination cell %s for a customer of %d plans", k, len(ms))
		}
	}
	parts := planParts(series.Customer{Movements: ms[:2]}, utc)
	if len(parts) != 3 {
		t.Fatalf("two interacting plans: %d parts, want P0, P1 and P0+P1", len(parts))
	}
}
