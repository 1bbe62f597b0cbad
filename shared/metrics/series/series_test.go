package series

import (
	"reflect"
	"testing"
	"time"

	"github.com/subsight/subsight/shared/metrics/engine"
)

func at(s string) time.Time {
	for _, layout := range []string{time.DateOnly, "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	panic(s)
}

// mv builds a movement changing the customer's MRR from before to after on subscription sub.
func mv(when, typ string, before, after int64, plan string) engine.Movement {
	m := engine.Movement{At: at(when), Type: typ, CustomerMRRBefore: before, CustomerMRR: after, Amount: after - before,
		PlanUUID: plan, PreviousPlanUUID: plan, PayingBefore: before > 0, PayingAfter: after > 0}
	m.SubscriptionMRRBefore, m.SubscriptionMRRAfter = before, after
	if typ == engine.NewBusiness {
		m.PreviousPlanUUID, m.FirstPayment = "", true
	}
	return m
}

// portfolio: A and D and C in the US, B in Germany (hand computations in the tests below).
func portfolio() []Customer {
	return []Customer{
		{UUID: "A", Country: "US", Movements: []engine.Movement{
			mv("2024-01-05", engine.NewBusiness, 0, 1000, "P1"), mv("2024-02-10", engine.Expansion, 1000, 1500, "P1")}},
		{UUID: "B", Country: "DE", Movements: []engine.Movement{
			mv("2024-01-20", engine.NewBusiness, 0, 2000, "P1"), mv("2024-03-03", engine.Churn, 2000, 0, "P1")}},
		{UUID: "C", Country: "US", Movements: []engine.Movement{
			mv("2024-02-01", engine.NewBusiness, 0, 3000, "P2"), mv("2024-02-15", engine.Churn, 3000, 0, "P2"),
			mv("2024-03-10", engine.Reactivation, 0, 3000, "P2")}},
		{UUID: "D", Country: "US", Movements: []engine.Movement{
			mv("2023-12-15", engine.NewBusiness, 0, 4000, "P1"), mv("2024-01-25", engine.Contraction, 4000, 3000, "P1")}},
	}
}

var utcMonday = Calendar{Location: time.UTC, WeekStart: time.Monday}

func aggregate(cs []Customer, cal Calendar, f Filter) *Aggregate {
	a := NewAggregate()
	for _, c := range cs {
		a.Add(Contribution(c, cal, f), 1)
	}
	return a
}

func TestMonthlyEntries(t *testing.T) {
	resp, err := Compute(aggregate(portfolio(), utcMonday, Filter{}), utcMonday, Query{"2024-01-01", "2024-03-31", Month})
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{Date: "2024-01-31", Values: Values{MRR: 6000, NewBusiness: 3000, Contraction: -1000, ARR: 72000, Customers: 3,
			ARPA: 2000, ASP: 1500, MRRChurnRate: 25}},
		{Date: "2024-02-29", Values: Values{MRR: 6500, NewBusiness: 3000, Expansion: 500, Churn: -3000, ARR: 78000, Customers: 3,
			ARPA: 2166, ASP: 3000, MRRChurnRate: 41.67},
			PercentageChange: Changes{MRR: 8.33, ARR: 8.33, ARPA: 8.3, ASP: 100, MRRChurnRate: 66.68}},
		{Date: "2024-03-31", Values: Values{MRR: 7500, Churn: -2000, Reactivation: 3000, ARR: 90000, Customers: 3,
			ARPA: 2500, CustomerChurnRate: 33.33, MRRChurnRate: -15.38, LTV: 7500},
			PercentageChange: Changes{MRR: 15.38, ARR: 15.38, ARPA: 15.42, ASP: -100, MRRChurnRate: -136.91}},
	}
	if !reflect.DeepEqual(resp.Entries, want) {
		t.Fatalf("entries\n got %+v\nwant %+v", resp.Entries, want)
	}
	if resp.Summary.Current != want[2].Values || resp.Summary.Previous != want[1].Values ||
		resp.Summary.PercentageChange != want[2].PercentageChange {
		t.Fatalf("summary = %+v", resp.Summary)
	}
	assertIdentity(t, resp)
}

func assertIdentity(t *testing.T, resp Response) {
	t.Helper()
	for i := 1; i < len(resp.Entries); i++ {
		p, e := resp.Entries[i-1].Values, resp.Entries[i].Values
		if p.MRR+e.NewBusiness+e.Expansion+e.Contraction+e.Churn+e.Reactivation != e.MRR {
			t.Errorf("entry %s: start MRR + movements != end MRR", resp.Entries[i].Date)
		}
	}
}

func TestEveryIntervalKeepsTheIdentity(t *testing.T) {
	a := aggregate(portfolio(), utcMonday, Filter{})
	for _, iv := range Intervals {
		resp, err := Compute(a, utcMonday, Query{"2023-12-01", "2024-04-15", iv})
		if err != nil {
			t.Fatal(err)
		}
		assertIdentity(t, resp)
		if last := resp.Entries[len(resp.Entries)-1]; last.Date != "2024-04-15" || last.Values.MRR != 7500 {
			t.Errorf("%s: last entry %+v", iv, last)
		}
	}
}

// TestClippedPeriods: the first entry only counts movements from start-date on, its opening
// balance includes everything before; the last entry is dated at end-date.
func TestClippedPeriods(t *testing.T) {
	resp, _ := Compute(aggregate(portfolio(), utcMonday, Filter{}), utcMonday, Query{"2024-01-15", "2024-03-10", Month})
	var dates []string
	for _, e := range resp.Entries {
		dates = append(dates, e.Date)
	}
	if !reflect.DeepEqual(dates, []string{"2024-01-31", "2024-02-29", "2024-03-10"}) {
		t.Fatalf("dates = %v", dates)
	}
	first := resp.Entries[0].Values
	if first.MRR != 6000 || first.NewBusiness != 2000 || first.Contraction != -1000 || first.MRRChurnRate != 20 {
		t.Fatalf("first entry = %+v", first) // opening 5000 (A, D) + 2000 − 1000; net churn 1000/5000
	}
}

func TestEntryDatesPerInterval(t *testing.T) {
	sunday := Calendar{Location: time.UTC, WeekStart: time.Sunday}
	tests := []struct {
		cal      Calendar
		q        Query
		wantDays []string
	}{
		{utcMonday, Query{"2024-01-01", "2024-01-03", Day}, []string{"2024-01-01", "2024-01-02", "2024-01-03"}},
		{utcMonday, Query{"2024-01-03", "2024-01-16", Week}, []string{"2024-01-07", "2024-01-14", "2024-01-16"}},
		{sunday, Query{"2024-01-03", "2024-01-16", Week}, []string{"2024-01-06", "2024-01-13", "2024-01-16"}},
		{utcMonday, Query{"2024-02-10", "2024-08-01", Quarter}, []string{"2024-03-31", "2024-06-30", "2024-08-01"}},
		{utcMonday, Query{"2023-05-01", "2024-08-01", Year}, []string{"2023-12-31", "2024-08-01"}},
	}
	for _, tt := range tests {
		resp, err := Compute(NewAggregate(), tt.cal, tt.q)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range resp.Entries {
			got = append(got, e.Date)
		}
		if !reflect.DeepEqual(got, tt.wantDays) {
			t.Errorf("%v %s: dates %v, want %v", tt.cal.WeekStart, tt.q.Interval, got, tt.wantDays)
		}
	}
}

func TestBadQueries(t *testing.T) {
	for _, q := range []Query{{"2024-13-01", "2024-12-01", Month}, {"2024-01-01", "x", Month},
		{"2024-02-01", "2024-01-01", Month}, {"2024-01-01", "2024-02-01", "fortnight"}} {
		if _, err := Compute(NewAggregate(), utcMonday, q); err == nil {
			t.Errorf("query %+v accepted", q)
		}
	}
}

func TestGeoFilter(t *testing.T) {
	resp, _ := Compute(aggregate(portfolio(), utcMonday, Filter{Countries: []string{"US"}}), utcMonday, Query{"2024-01-01", "2024-03-31", Month})
	got := [][2]int64{}
	for _, e := range resp.Entries {
		got = append(got, [2]int64{e.Values.MRR, e.Values.Customers})
	}
	if want := [][2]int64{{4000, 2}, {4500, 2}, {7500, 3}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("US mrr/customers = %v, want %v", got, want)
	}
}

// TestPlanFilter: a plan switch moves MRR from one plan's series to the other's.
func TestPlanFilter(t *testing.T) {
	switcher := mv("2024-02-20", engine.Expansion, 1000, 1200, "P2")
	switcher.PreviousPlanUUID, switcher.SubscriptionMRRBefore, switcher.SubscriptionMRRAfter = "P1", 1000, 1200
	e := Customer{UUID: "E", Country: "FR", Movements: []engine.Movement{mv("2024-01-10", engine.NewBusiness, 0, 1000, "P1"), switcher}}
	q := Query{"2024-02-01", "2024-02-29", Month}
	p1, _ := Compute(aggregate([]Customer{e}, utcMonday, Filter{Plans: []string{"P1"}}), utcMonday, q)
	p2, _ := Compute(aggregate([]Customer{e}, utcMonday, Filter{Plans: []string{"P2"}}), utcMonday, q)
	if v := p1.Entries[0].Values; v.MRR != 0 || v.Churn != -1000 || v.Customers != 0 || v.CustomerChurnRate != 100 {
		t.Errorf("P1 = %+v", v)
	}
	if v := p2.Entries[0].Values; v.MRR != 1200 || v.NewBusiness != 1200 || v.Customers != 1 || v.ASP != 1200 {
		t.Errorf("P2 = %+v", v)
	}
}

// TestIncrementalMaintenance: replacing one customer's contribution by difference gives the
// same aggregate as rebuilding from scratch, and removing everything leaves it empty.
func TestIncrementalMaintenance(t *testing.T) {
	cs := portfolio()
	a := aggregate(cs, utcMonday, Filter{})
	updated := cs[2]
	updated.Movements = updated.Movements[:1] // C never churned after all
	a.Add(Contribution(cs[2], utcMonday, Filter{}), -1)
	a.Add(Contribution(updated, utcMonday, Filter{}), 1)
	cs[2] = updated
	if fresh := aggregate(cs, utcMonday, Filter{}); !reflect.DeepEqual(a, fresh) {
		t.Fatalf("incremental\n%+v\nfresh\n%+v", a, fresh)
	}
	for _, c := range cs {
		a.Add(Contribution(c, utcMonday, Filter{}), -1)
	}
	if len(a.Days) != 0 || len(a.Lost) != 0 {
		t.Fatalf("left over: %+v", a)
	}
}

func TestTimeZoneDecidesTheDay(t *testing.T) {
	c := Customer{Movements: []engine.Movement{mv("2024-01-31T23:30", engine.NewBusiness, 0, 1000, "P1")}}
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	newYork, _ := time.LoadLocation("America/New_York")
	for _, tt := range []struct {
		loc  *time.Location
		want string
	}{{tokyo, "2024-02-01"}, {newYork, "2024-01-31"}, {time.UTC, "2024-01-31"}} {
		a := Contribution(c, Calendar{Location: tt.loc}, Filter{})
		if _, ok := a.Days[tt.want]; !ok || len(a.Days) != 1 {
			t.Errorf("%s: days %v, want %s", tt.loc, a.Days, tt.want)
		}
	}
}

func TestScheduledMovementsAreIgnored(t *testing.T) {
	m := mv("2030-01-01", engine.Churn, 1000, 0, "P1")
	m.Scheduled = true
	if a := Contribution(Customer{Movements: []engine.Movement{m}}, utcMonday, Filter{}); len(a.Days) != 0 {
		t.Fatalf("scheduled movement counted: %+v", a.Days)
	}
}

// TestFixtureFigures reproduces ChartMogul's recorded numbers of §6.
func TestFixtureFigures(t *testing.T) {
	a := NewAggregate()
	a.Days["2022-04-15"] = DayTotals{NewBusiness: 68604881, CustomersChange: 1097}
	a.Days["2022-05-15"] = DayTotals{NewBusiness: 977000, Expansion: 1559209, Contraction: -770875, Churn: -1730666, Reactivation: 315000}
	resp, _ := Compute(a, utcMonday, Query{"2022-05-01", "2022-05-31", Month})
	if v := resp.Entries[0].Values; v.MRR != 68954549 {
		t.Errorf("mrr = %d, want 68954549 (go-fx identity)", v.MRR)
	}
	b := NewAggregate()
	b.Days["2015-01-01"] = DayTotals{NewBusiness: 383859969, CustomersChange: 585}
	resp, _ = Compute(b, utcMonday, Query{"2015-01-01", "2015-01-01", Day})
	if v := resp.Entries[0].Values; v.ARR != 4606319628 || v.ARPA != 656170 {
		t.Errorf("arr %d arpa %d, want 4606319628 and 656170", v.ARR, v.ARPA)
	}
	if got := 68604881 / int64(1097); got != 62538 {
		t.Errorf("arpa = %d", got)
	}
	for _, tt := range []struct {
		arpa int64
		rate float64
		want int64
	}{{656170, 0.56, 117173214}, {62538, 2.85, 2194315}, {1000, 0, 0}} {
		if got := LTV(tt.arpa, tt.rate); got != tt.want {
			t.Errorf("LTV(%d, %v) = %d, want %d", tt.arpa, tt.rate, got, tt.want)
		}
	}
	for _, tt := range []struct{ prev, cur, want float64 }{{0.56, 1.71, 205.36}, {-0.17, -74.52, -43735.29}, {0, 5, 0}} {
		if got := PercentageChange(tt.prev, tt.cur); got != tt.want {
			t.Errorf("PercentageChange(%v, %v) = %v, want %v", tt.prev, tt.cur, got, tt.want)
		}
	}
}

// TestFromEngine runs real engine output through the series: customer MRR totals match.
func TestFromEngine(t *testing.T) {
	plan := engine.Plan{UUID: "pl", Name: "Silver", IntervalCount: 1, IntervalUnit: "month"}
	var invoices []engine.Invoice
	for i := range 3 {
		s := at("2024-01-01").AddDate(0, i, 0)
		invoices = append(invoices, engine.Invoice{UUID: "i", DataSourceUUID: "ds", Date: s, Currency: "USD",
			LineItems: []engine.LineItem{{Type: engine.ItemSubscription, SubscriptionExternalID: "s", PlanUUID: "pl",
				ServicePeriodStart: s, ServicePeriodEnd: s.AddDate(0, 1, 0), AmountInCents: int64(1000 * (i + 1)), Quantity: 1}}})
	}
	r := engine.Compute(engine.Input{Now: at("2024-03-15"), Settings: engine.Settings{Currency: "USD"},
		Plans: []engine.Plan{plan}, Invoices: invoices})
	a := Contribution(Customer{Movements: r.Movements}, utcMonday, Filter{Plans: nil})
	resp, _ := Compute(a, utcMonday, Query{"2024-01-01", "2024-03-15", Month})
	if got := resp.Entries[2].Values; got.MRR != r.MRR || got.Expansion != 1000 || got.Customers != 1 {
		t.Fatalf("series %+v vs engine mrr %d", got, r.MRR)
	}
}
