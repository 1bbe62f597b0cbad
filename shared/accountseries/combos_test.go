package accountseries_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/subsight/subsight/shared/metrics/series"
)

// filtered answers a query the way the Metrics API does for these filters.
func (f *fixture) filtered(countries, plans []string, q series.Query) series.Response {
	f.t.Helper()
	segs, err := f.series.FilterSegments(f.ctx, f.acc, countries, plans)
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

// TestCombinationRegistry: only customers whose plans interact register combinations,
// per country; a change that removes the interaction unregisters it.
func TestCombinationRegistry(t *testing.T) {
	f := newFixture(t)
	cs := multiPlanPortfolio()
	for _, c := range append(slices.Clone(cs), portfolio()...) {
		f.apply(c)
	}
	registered := func() map[string]map[string]int64 {
		out, err := f.series.Combinations(f.ctx, f.acc)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	want := map[string]map[string]int64{"P1+P2": {"n": 2, "nUS": 1, "nDE": 1}, "P2+P3": {"n": 1, "nUS": 1}}
	if got := registered(); !reflect.DeepEqual(got, want) {
		t.Fatalf("registry %v, want %v", got, want)
	}
	neverSwitched := cs[1]
	neverSwitched.Movements = neverSwitched.Movements[:1] // F never switched to P2
	f.apply(neverSwitched)
	want["P1+P2"] = map[string]int64{"n": 1, "nUS": 1, "nDE": 0}
	if got := registered(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after the change: registry %v, want %v", got, want)
	}
	segs, err := f.series.FilterSegments(f.ctx, f.acc, []string{"DE", "FR"}, []string{"P1", "P2"})
	if err != nil {
		t.Fatal(err)
	}
	if want := segments([]string{"DE", "FR"}, []string{"P1", "P2"}); !slices.Equal(segs, want) {
		t.Fatalf("segments %v, want only the plan segments %v", segs, want)
	}
}
