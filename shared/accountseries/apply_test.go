package accountseries_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/ddbmeter"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/metrics/series"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// The fixtures live with the package's own tests (export_test.go).
type customer = accountseries.Customer

var (
	portfolio          = accountseries.Portfolio
	multiPlanPortfolio = accountseries.MultiPlanPortfolio
	mv                 = accountseries.Mv
	subMove            = accountseries.SubMove
	at                 = accountseries.At
	utc                = accountseries.UTC
	segments           = accountseries.Segments
)

type fixture struct {
	t      *testing.T
	ctx    context.Context
	store  *dynamo.Store
	series *accountseries.Series
	acc    string
	meter  *ddbmeter.Meter
}

// newFixture is a fresh account whose store counts its DynamoDB traffic.
func newFixture(t *testing.T) *fixture {
	env := testenv.New(t)
	meter := ddbmeter.New()
	st := dynamo.New(meter.Client(env.AWS), env.TableName, env.Deps.Now)
	acc := env.NewAccount(t, "Series")
	return &fixture{t: t, ctx: context.Background(), store: st, series: accountseries.New(st.Series()), acc: acc.ID, meter: meter}
}

func (f *fixture) apply(c customer) {
	f.t.Helper()
	if err := f.series.Apply(f.ctx, f.acc, &engine.Result{Movements: c.Movements}, c.Attrs); err != nil {
		f.t.Fatalf("apply %s: %v", c.Attrs.UUID, err)
	}
}

// activities lists the account's activities matching f, in one page.
func (f *fixture) activities(filter store.ActivityFilter) []store.Activity {
	f.t.Helper()
	page, err := f.store.ListActivities(f.ctx, f.acc, filter, 200, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return page.Items
}

// stored answers a query from the table, as the Metrics API does.
func (f *fixture) stored(segments []string, q series.Query) series.Response {
	f.t.Helper()
	start, end := at(q.Start), at(q.End)
	agg, err := f.series.Load(f.ctx, f.acc, segments, accountseries.WindowStart(utc, q.Interval, start), end)
	if err != nil {
		f.t.Fatal(err)
	}
	resp, err := series.Compute(agg, utc, q)
	if err != nil {
		f.t.Fatal(err)
	}
	return resp
}

// inMemory answers the same query from the pure package, every customer summed.
func inMemory(cs []customer, filter series.Filter, q series.Query) series.Response {
	agg := series.NewAggregate()
	for _, c := range cs {
		agg.Add(series.Contribution(series.Customer{UUID: c.Attrs.UUID, Country: c.Attrs.Country, Movements: c.Movements}, utc, filter), 1)
	}
	resp, _ := series.Compute(agg, utc, q)
	return resp
}

// sameResponse reports the first difference between two responses.
func sameResponse(t *testing.T, label string, got, want series.Response) {
	t.Helper()
	if len(got.Entries) != len(want.Entries) {
		t.Errorf("%s: %d entries, want %d", label, len(got.Entries), len(want.Entries))
		return
	}
	for i := range got.Entries {
		if got.Entries[i] != want.Entries[i] {
			t.Errorf("%s: entry %d\n got %+v\nwant %+v", label, i, got.Entries[i], want.Entries[i])
			return
		}
	}
	if got.Summary != want.Summary {
		t.Errorf("%s: summary\n got %+v\nwant %+v", label, got.Summary, want.Summary)
	}
}

func assertIdentity(t *testing.T, resp series.Response) {
	t.Helper()
	for i := 1; i < len(resp.Entries); i++ {
		p, e := resp.Entries[i-1].Values, resp.Entries[i].Values
		if p.MRR+e.NewBusiness+e.Expansion+e.Contraction+e.Churn+e.Reactivation != e.MRR {
			t.Errorf("entry %s: starting MRR + movements != ending MRR", resp.Entries[i].Date)
		}
	}
}

// TestHandComputedMonthly: the portfolio's monthly metrics, computed by hand from the
// definitions (docs/metrics-engine.md §6), read back from the stored buckets.
//
//	Jan: opening D 4000; A +1000 new, B +2000 new, D −1000 contraction → 6000, 3 customers,
//	     ARPA 2000, ASP 3000/2 = 1500, net MRR churn 1000/4000 = 25 %.
//	Feb: C +3000 new then −3000 churn, A +500 → 6500, 3 customers, ARPA 2166, ASP 3000,
//	     net churn (3000 − 500)/6000 = 41.67 %.
//	Mar: B −2000 churn, C +3000 reactivation → 7500, 3 customers (A, C, D), ARPA 2500,
//	     customer churn 1 of 3 at the start (B) = 33.33 %, LTV 2500/0.3333 = 7500,
//	     net churn (2000 − 3000)/6500 = −15.38 %.
func TestHandComputedMonthly(t *testing.T) {
	f := newFixture(t)
	for _, c := range portfolio() {
		f.apply(c)
	}
	resp := f.stored(segments(nil, nil), series.Query{Start: "2024-01-01", End: "2024-03-31", Interval: series.Month})
	want := []series.Values{
		{MRR: 6000, NewBusiness: 3000, Contraction: -1000, ARR: 72000, Customers: 3, ARPA: 2000, ASP: 1500, MRRChurnRate: 25},
		{MRR: 6500, NewBusiness: 3000, Expansion: 500, Churn: -3000, ARR: 78000, Customers: 3, ARPA: 2166, ASP: 3000, MRRChurnRate: 41.67},
		{MRR: 7500, Churn: -2000, Reactivation: 3000, ARR: 90000, Customers: 3, ARPA: 2500, CustomerChurnRate: 33.33,
			MRRChurnRate: -15.38, LTV: 7500},
	}
	if len(resp.Entries) != 3 {
		t.Fatalf("entries = %+v", resp.Entries)
	}
	for i, e := range resp.Entries {
		if e.Values != want[i] {
			t.Errorf("%s:\n got %+v\nwant %+v", e.Date, e.Values, want[i])
		}
	}
	if resp.Summary.Current != want[2] || resp.Summary.Previous != want[1] {
		t.Errorf("summary %+v", resp.Summary)
	}
	assertIdentity(t, resp)
}

// TestStoredEqualsInMemory: for every interval, several ranges (cut periods, ranges
// before any data, one day) and every kind of segment, the stored buckets answer
// exactly what the pure aggregation of all customers answers.
func TestStoredEqualsInMemory(t *testing.T) {
	f := newFixture(t)
	cs := portfolio()
	for _, c := range cs {
		f.apply(c)
	}
	filters := []struct {
		countries, plans []string
		filter           series.Filter
	}{
		{nil, nil, series.Filter{}},
		{[]string{"US"}, nil, series.Filter{Countries: []string{"US"}}},
		{[]string{"US", "DE"}, nil, series.Filter{}},
		{nil, []string{"P1"}, series.Filter{Plans: []string{"P1"}}},
		{[]string{"US"}, []string{"P2"}, series.Filter{Countries: []string{"US"}, Plans: []string{"P2"}}},
	}
	ranges := [][2]string{{"2023-12-01", "2024-04-15"}, {"2024-01-15", "2024-03-10"}, {"2024-02-29", "2024-02-29"},
		{"2020-01-01", "2020-02-01"}, {"2022-06-01", "2025-06-30"}}
	for _, fl := range filters {
		for _, iv := range series.Intervals {
			for _, r := range ranges {
				q := series.Query{Start: r[0], End: r[1], Interval: iv}
				got := f.stored(segments(fl.countries, fl.plans), q)
				sameResponse(t, fmt.Sprint(fl.countries, fl.plans, iv, r), got, inMemory(cs, fl.filter, q))
				assertIdentity(t, got)
			}
		}
	}
}

// TestApplyTwiceWritesNothing: a redelivered recomputation costs one read of the
// customer's record (plus the account) and no write.
func TestApplyTwiceWritesNothing(t *testing.T) {
	f := newFixture(t)
	c := portfolio()[2]
	f.apply(c)
	f.meter.Reset()
	f.apply(c)
	snap := f.meter.Snapshot()
	if snap.Writes() != 0 || snap.TotalRequests() != 2 {
		t.Fatalf("second apply: %s", snap)
	}
}

// TestChangeAndRemove: replacing a customer's movements gives the same buckets as
// applying the final state from scratch; removing everyone leaves zero everywhere and
// no activity.
func TestChangeAndRemove(t *testing.T) {
	f := newFixture(t)
	cs := portfolio()
	for _, c := range cs {
		f.apply(c)
	}
	changed := cs[2]
	changed.Movements = changed.Movements[:1] // C never churned after all
	changed.Attrs.Country = "FR"              // and moved to France
	f.apply(changed)
	cs[2] = changed
	q := series.Query{Start: "2023-12-01", End: "2024-04-30", Interval: series.Week}
	sameResponse(t, "after change", f.stored(segments(nil, nil), q), inMemory(cs, series.Filter{}, q))
	if got := f.stored(segments([]string{"FR"}, nil), q); got.Entries[len(got.Entries)-1].Values.MRR != 3000 {
		t.Fatalf("FR series = %+v", got.Entries[len(got.Entries)-1])
	}
	for _, c := range cs {
		if err := f.series.Remove(f.ctx, f.acc, c.Attrs.UUID); err != nil {
			t.Fatal(err)
		}
	}
	for _, segs := range [][]string{segments(nil, nil), segments([]string{"US", "FR", "DE"}, nil), segments(nil, []string{"P1", "P2"})} {
		agg, err := f.series.Load(f.ctx, f.acc, segs, at("2000-01-01"), at("2030-01-01"))
		if err != nil {
			t.Fatal(err)
		}
		if len(agg.Days) != 0 || len(agg.Lost) != 0 {
			t.Fatalf("%v left %+v", segs, agg)
		}
	}
	if left := f.activities(store.ActivityFilter{}); len(left) != 0 {
		t.Fatalf("activities left: %+v", left)
	}
}

// TestRedeliveryAfterPartialFailure: a crash after the record switched version and
// only one chunk reached the buckets is finished by the next call, without adding any
// chunk twice.
func TestRedeliveryAfterPartialFailure(t *testing.T) {
	f := newFixture(t)
	cs := portfolio()
	c := cs[0]
	// Force several chunks by splitting the pending additions one item per chunk.
	next, adds := accountseries.FirstRecord(f.acc, c)
	next.Pending = map[string][]store.SeriesBucketAdd{}
	for i, u := range adds {
		next.Pending[string(rune('a'+i))] = []store.SeriesBucketAdd{u}
	}
	if len(next.Pending) < 3 {
		t.Fatalf("want several chunks, got %d", len(next.Pending))
	}
	if err := f.store.Series().ReplaceSeriesRecord(f.ctx, f.acc, c.Attrs.UUID, store.SeriesRecord{}, next); err != nil {
		t.Fatal(err)
	}
	if err := f.store.Series().AddSeriesChunk(f.ctx, f.acc, c.Attrs.UUID, 0, "a", next.Pending["a"]); err != nil {
		t.Fatal(err)
	}
	// The same chunk again (a duplicate delivery racing the first) is refused quietly.
	if err := f.store.Series().AddSeriesChunk(f.ctx, f.acc, c.Attrs.UUID, 0, "a", next.Pending["a"]); err != nil {
		t.Fatal(err)
	}
	f.apply(c) // the redelivery
	f.apply(c)
	q := series.Query{Start: "2023-12-01", End: "2024-04-30", Interval: series.Day}
	sameResponse(t, "after redelivery", f.stored(segments(nil, []string{"P1"}), q), inMemory(cs[:1], series.Filter{Plans: []string{"P1"}}, q))
	if acts := f.activities(store.ActivityFilter{}); len(acts) != 2 {
		t.Fatalf("activities %+v", acts)
	}
}

func TestActivitiesListing(t *testing.T) {
	f := newFixture(t)
	cs := portfolio()
	for _, c := range cs {
		f.apply(c)
	}
	all, err := f.store.ListActivities(f.ctx, f.acc, store.ActivityFilter{}, 200, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Items) != 9 || all.HasMore {
		t.Fatalf("got %d activities, has_more %v", len(all.Items), all.HasMore)
	}
	for i := 1; i < len(all.Items); i++ {
		if all.Items[i].Date.Before(all.Items[i-1].Date) {
			t.Fatalf("not in date order at %d", i)
		}
	}
	first := all.Items[0]
	if first.CustomerUUID != "cus_D" || first.Type != engine.NewBusiness || first.MRR != 4000 || first.PlanExternalID != "gold" ||
		first.CustomerName != "Customer D" || first.CustomerExternalID != "x-D" || first.DataSourceUUID != "ds_1" {
		t.Fatalf("first activity %+v", first)
	}
	churns := f.activities(store.ActivityFilter{Type: engine.Churn, Descending: true})
	if len(churns) != 2 || churns[0].CustomerUUID != "cus_B" {
		t.Fatalf("churns %+v", churns)
	}
	ranged := f.activities(store.ActivityFilter{From: at("2024-02-01"), To: at("2024-02-15")})
	if len(ranged) != 3 {
		t.Fatalf("February 1-15: %+v", ranged)
	}
	// Pages of two, following Next, give the same list.
	var paged []store.Activity
	var start store.PageToken
	for {
		p, err := f.store.ListActivities(f.ctx, f.acc, store.ActivityFilter{}, 2, start)
		if err != nil {
			t.Fatal(err)
		}
		paged = append(paged, p.Items...)
		if !p.HasMore {
			break
		}
		start = p.Next
	}
	if !reflect.DeepEqual(paged, all.Items) {
		t.Fatalf("paged %d activities, differ from one page", len(paged))
	}
	// A recomputation that reclassifies a movement keeps its uuid.
	c := cs[0]
	c.Movements[1].Type = engine.NewBusiness
	f.apply(c)
	again := f.activities(store.ActivityFilter{})
	if len(again) != 9 {
		t.Fatalf("after reclassification: %d activities", len(again))
	}
	for _, a := range again {
		if a.CustomerUUID == "cus_A" && a.Date.Equal(at("2024-02-10")) && (a.Type != engine.NewBusiness || a.UUID != idOf(all.Items, a.Date)) {
			t.Fatalf("reclassified activity %+v", a)
		}
	}
}

func idOf(acts []store.Activity, at time.Time) string {
	for _, a := range acts {
		if a.Date.Equal(at) && a.CustomerUUID == "cus_A" {
			return a.UUID
		}
	}
	return ""
}

// TestSeedEqualsApply: the bulk path leaves what Apply leaves, and Apply continues
// from it (a repeat writes nothing, a change is a difference).
func TestSeedEqualsApply(t *testing.T) {
	seeded, applied := newFixture(t), newFixture(t)
	cs := portfolio()
	var seed []accountseries.SeedCustomer
	for _, c := range cs {
		seed = append(seed, accountseries.SeedCustomer{Result: &engine.Result{Movements: c.Movements}, Attrs: c.Attrs})
		applied.apply(c)
	}
	if err := seeded.series.Seed(seeded.ctx, seeded.acc, seed); err != nil {
		t.Fatal(err)
	}
	if err := seeded.series.Seed(seeded.ctx, seeded.acc, seed); err != accountseries.ErrNotEmpty {
		t.Fatalf("second seed: %v", err)
	}
	for _, iv := range series.Intervals {
		q := series.Query{Start: "2023-11-15", End: "2024-04-15", Interval: iv}
		for _, segs := range [][]string{segments(nil, nil), segments([]string{"US"}, []string{"P1"})} {
			sameResponse(t, fmt.Sprint("seed ", iv, segs), seeded.stored(segs, q), applied.stored(segs, q))
		}
	}
	seeded.meter.Reset()
	seeded.apply(cs[1])
	if w := seeded.meter.Snapshot().Writes(); w != 0 {
		t.Fatalf("apply after seed wrote %d times", w)
	}
	changed := cs[1]
	changed.Movements = changed.Movements[:1]
	seeded.apply(changed)
	applied.apply(changed)
	q := series.Query{Start: "2023-11-15", End: "2024-04-15", Interval: series.Day}
	sameResponse(t, "after change", seeded.stored(segments(nil, nil), q), applied.stored(segments(nil, nil), q))
	a, b := seeded.activities(store.ActivityFilter{}), applied.activities(store.ActivityFilter{})
	if len(a) != len(b) || len(a) != 8 { // uuids differ: they include the account
		t.Fatalf("activities differ: %d vs %d", len(a), len(b))
	}
}
