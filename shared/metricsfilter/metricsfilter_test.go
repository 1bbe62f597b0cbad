package metricsfilter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/metrics/series"
	"github.com/subsight/subsight/shared/metricsfilter"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// line is one month of one subscription: plan, subscription, month of 2024 (1 = January),
// amount in cents and quantity.
type line struct {
	plan, sub   string
	month       int
	amount, qty int64
	currency    string
}

// person is one customer of the population: its profile, attributes and billing.
type person struct {
	ext, country, state, ds string
	lead, trial             string // dates, "" when unset
	tags                    []string
	custom                  map[string]any
	lines                   []line
}

func months(plan, sub string, from, to int, amount, qty int64, currency string) []line {
	var out []line
	for m := from; m <= to; m++ {
		out = append(out, line{plan: plan, sub: sub, month: m, amount: amount, qty: qty, currency: currency})
	}
	return out
}

func join(parts ...[]line) []line { return slices.Concat(parts...) }

// population: seven customers, each attribute every filter reads, every kind of
// movement (new business, expansion, two plans at once, a plan switch, churn,
// reactivation), two data sources and two currencies. The clock stands at 2024-07-15.
//
//	ann  US-CA ds1 tags vip,beta  gold 100.00 ×5 Jan–Mar, 150.00 Apr–Jul (MRR 150.00, quantity 5)
//	bob  FR    ds2 tags beta      silver EUR 40.00 Feb–Jul at 1.10 (MRR 44.00, quantity 1)
//	cy   DE    ds1                bronze 20.00 Jan–Mar, no invoice since (Past Due); free trial 2023-12-15
//	dee  —     ds1                a lead since 2024-02-02, no invoice
//	eve  US-NY ds2 tags VIP       gold 30.00 ×2 Jan–Jul, silver 20.00 ×2 Mar–Jul (MRR 50.00, quantity 4)
//	fay  GB    ds1                silver 60.00 Mar–May, the same subscription on bronze 60.00 Jun–Jul
//	gus  US    ds2                gold 25.00 Jan, nothing Feb–Apr, again May–Jul (a reactivation)
var population = []person{
	{ext: "ann", country: "US", state: "US-CA", ds: "ds1", lead: "2023-12-01", tags: []string{"vip", "beta"},
		custom: map[string]any{"tier": "Enterprise", "seats": 40, "score": 7.5, "renewal": "2024-09-01T00:00:00Z", "vip": true},
		lines:  join(months("gold", "ann-1", 1, 3, 10000, 5, "USD"), months("gold", "ann-1", 4, 7, 15000, 5, "USD"))},
	{ext: "bob", country: "FR", ds: "ds2", tags: []string{"beta"},
		custom: map[string]any{"tier": "Startup plus", "seats": 3, "vip": false},
		lines:  months("silver", "bob-1", 2, 7, 4000, 1, "EUR")},
	{ext: "cy", country: "DE", ds: "ds1", trial: "2023-12-15", lines: months("bronze", "cy-1", 1, 3, 2000, 1, "USD")},
	{ext: "dee", ds: "ds1", lead: "2024-02-02"},
	{ext: "eve", country: "US", state: "US-NY", ds: "ds2", tags: []string{"VIP"},
		custom: map[string]any{"tier": "enterprise", "seats": 12},
		lines:  join(months("gold", "eve-1", 1, 7, 3000, 2, "USD"), months("silver", "eve-2", 3, 7, 2000, 2, "USD"))},
	{ext: "fay", country: "GB", ds: "ds1",
		lines: join(months("silver", "fay-1", 3, 5, 6000, 1, "USD"), months("bronze", "fay-1", 6, 7, 6000, 1, "USD"))},
	{ext: "gus", country: "US", ds: "ds2", lines: join(months("gold", "gus-1", 1, 1, 2500, 1, "USD"),
		months("gold", "gus-1", 5, 7, 2500, 1, "USD"))},
}

var everyone = []string{"ann", "bob", "cy", "dee", "eve", "fay", "gus"}

var customTypes = map[string]model.AttrType{"tier": model.AttrString, "seats": model.AttrInteger,
	"score": model.AttrDecimal, "renewal": model.AttrTimestamp, "vip": model.AttrBoolean}

var now = time.Date(2024, 7, 15, 12, 0, 0, 0, time.UTC)

// account is one account of the test: its id and its plan group "premium" (gold and
// silver).
type account struct {
	model.Account
	premium string
}

// spec names an account of the test: the customers of the population it holds and
// the plans of their lines it holds (every line when plans is nil).
type spec struct{ names, plans []string }

// buildAll makes one account per spec through json_imports and the import and jobs
// workers (drained once for all of them), then sets the customers' tags and custom
// attributes and the plan group "premium".
func buildAll(t *testing.T, env *testenv.Env, specs map[string]spec) map[string]account {
	t.Helper()
	out := map[string]account{}
	for key, sp := range specs {
		out[key] = account{Account: importSpec(t, env, sp.names, sp.plans)}
	}
	env.DrainWorkers(t)
	for key, acc := range out {
		acc.premium = finish(t, env, acc.Account)
		out[key] = acc
	}
	return out
}

// importSpec creates an account and sends its customers' records through json_imports.
func importSpec(t *testing.T, env *testenv.Env, names []string, plans []string) model.Account {
	t.Helper()
	ctx := context.Background()
	acc := env.NewAccount(t, fmt.Sprint(names, plans))
	for _, key := range slices.Sorted(maps.Keys(customTypes)) {
		if _, err := env.Deps.Store.DefineAttribute(ctx, model.AttrDefinition{AccountID: acc.ID, Object: model.AttrObjectCustomer,
			Key: key, Type: customTypes[key], CreatedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
	var rates []store.FXRate
	for m := 1; m <= 7; m++ {
		rates = append(rates, store.FXRate{Day: time.Date(2024, time.Month(m), 1, 0, 0, 0, 0, time.UTC).Format(time.DateOnly),
			Currency: "EUR", Rate: "1.1"})
	}
	if err := env.Deps.Store.PutFXRates(ctx, acc.ID, rates); err != nil {
		t.Fatal(err)
	}
	sources := map[string]model.DataSource{}
	for _, name := range []string{"ds1", "ds2"} {
		sources[name] = model.NewDataSource(acc.ID, name, now)
		if err := env.Deps.Store.CreateDataSource(ctx, sources[name]); err != nil {
			t.Fatal(err)
		}
	}
	var planItems []any
	for _, p := range []string{"gold", "silver", "bronze"} {
		planItems = append(planItems, map[string]any{"external_id": p, "name": strings.ToUpper(p[:1]) + p[1:],
			"interval_count": 1, "interval_unit": "month"})
	}
	for _, dsName := range []string{"ds1", "ds2"} {
		var customers, invoices, items []any
		for _, p := range population {
			if p.ds != dsName || !slices.Contains(names, p.ext) {
				continue
			}
			c := map[string]any{"external_id": p.ext, "name": p.ext}
			if p.country != "" {
				c["country"] = p.country
			}
			if p.state != "" {
				c["state"] = p.state
			}
			if p.lead != "" {
				c["lead_created_at"] = p.lead + "T00:00:00Z"
			}
			if p.trial != "" {
				c["free_trial_started_at"] = p.trial + "T00:00:00Z"
			}
			customers = append(customers, c)
			for i, l := range p.lines {
				if plans != nil && !slices.Contains(plans, l.plan) {
					continue
				}
				start := time.Date(2024, time.Month(l.month), 1, 0, 0, 0, 0, time.UTC)
				ext := fmt.Sprintf("%s-inv-%d", p.ext, i)
				invoices = append(invoices, map[string]any{"external_id": ext, "customer_external_id": p.ext,
					"date": start.Format(time.RFC3339), "currency": l.currency})
				items = append(items, map[string]any{"invoice_external_id": ext, "type": "subscription",
					"plan_external_id": l.plan, "subscription_external_id": l.sub,
					"service_period_start": start.Format(time.RFC3339),
					"service_period_end":   start.AddDate(0, 1, 0).Format(time.RFC3339),
					"amount_in_cents":      l.amount, "quantity": l.qty})
			}
		}
		if len(customers) == 0 {
			continue
		}
		body, err := json.Marshal(map[string]any{"external_id": "population-" + dsName, "customers": customers,
			"plans": planItems, "invoices": invoices, "line_items": items})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := env.Deps.Imports.Accept(ctx, acc, sources[dsName], body); err != nil {
			t.Fatalf("import %s: %v", dsName, err)
		}
	}
	return acc
}

// finish sets the imported customers' tags and custom attributes, and makes the plan
// group "premium" (gold and silver); it returns the group's uuid.
func finish(t *testing.T, env *testenv.Env, acc model.Account) string {
	t.Helper()
	ctx := context.Background()
	page, err := env.Deps.Store.ListCustomers(ctx, acc.ID, store.CustomerFilter{}, 200, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range page.Items {
		p := population[slices.IndexFunc(population, func(p person) bool { return p.ext == c.ExternalID })]
		next := c
		next.Tags = p.tags
		next.Custom = map[string]model.AttrValue{}
		for key, raw := range p.custom {
			v, err := model.CoerceAttrValue(customTypes[key], jsonValue(raw))
			if err != nil {
				t.Fatal(err)
			}
			next.Custom[key] = v
		}
		if err := env.Deps.Store.SaveCustomer(ctx, c, next); err != nil {
			t.Fatal(err)
		}
	}
	var refs []model.PlanRef
	plansPage, err := env.Deps.Store.ListPlans(ctx, acc.ID, store.PlanFilter{}, 200, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, pl := range plansPage.Items {
		if pl.ExternalID == "gold" || pl.ExternalID == "silver" {
			refs = append(refs, model.PlanRef{UUID: pl.UUID, DataSourceUUID: pl.DataSourceUUID})
		}
	}
	g := model.PlanGroup{AccountID: acc.ID, UUID: model.NewPlanGroupUUID(), Name: "premium", Plans: refs, CreatedAt: now, UpdatedAt: now}
	if err := env.Deps.Store.SavePlanGroup(ctx, g, true); err != nil {
		t.Fatal(err)
	}
	return g.UUID
}

// jsonValue turns a Go literal into what a JSON decoder with UseNumber yields.
func jsonValue(v any) any {
	switch x := v.(type) {
	case int:
		return json.Number(fmt.Sprint(x))
	case float64:
		return json.Number(fmt.Sprint(x))
	}
	return v
}

// answer is what the Metrics API computes from the filters: every interval over the
// population's history and a cut range.
func answer(t *testing.T, env *testenv.Env, acc model.Account, req metricsfilter.Request) []series.Response {
	t.Helper()
	ctx := context.Background()
	r := metricsfilter.New(env.Deps.Store, accountseries.New(env.Deps.Store.Series()))
	cal := accountseries.Calendar(acc)
	var out []series.Response
	for _, q := range []series.Query{{Start: "2023-12-01", End: "2024-07-31", Interval: series.Month},
		{Start: "2024-01-10", End: "2024-06-20", Interval: series.Week}, {Start: "2024-02-25", End: "2024-06-05", Interval: series.Day},
		{Start: "2024-01-01", End: "2024-07-15", Interval: series.Quarter}} {
		from, _ := time.Parse(time.DateOnly, q.Start)
		to, _ := time.Parse(time.DateOnly, q.End)
		agg, err := r.Aggregate(ctx, acc, req, accountseries.WindowStart(cal, q.Interval, from), to)
		if err != nil {
			t.Fatalf("%+v: %v", req, err)
		}
		resp, err := series.Compute(agg, cal, q)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, resp)
	}
	return out
}

// TestFiltersEqualAnAccountOfTheMatches: for every filter and each operator family it
// takes, the filtered series of the population's account equal the unfiltered series
// of a second account holding only the customers the test expects to match (and, for
// plan conditions, only their lines on the expected plans), built from the same
// records. The cases are chosen so that few second accounts serve them all.
func TestFiltersEqualAnAccountOfTheMatches(t *testing.T) {
	env := testenv.New(t)
	env.Deps = env.With(nil, func() time.Time { return now })
	env.API, env.Workers = env.Deps.API(), env.Deps.Workers()
	tests := []struct {
		filter       string
		geo, plans   string
		want, onPlan string // matching customers; their plans (every plan when empty)
	}{
		{filter: "region~ANY~'US-CA','US-NY'", want: "ann,eve"},
		{filter: "region~NONE~'US','FR','GB'", want: "cy,dee"},
		{filter: "region~IS~null", want: "dee"},
		{filter: "country~ANY~'FR'", want: "bob"},
		{filter: "country~IS~null", want: "dee"},
		{filter: "currency~ANY~'EUR'", want: "bob"},
		{filter: "currency~ALL~'EUR'", want: "bob"},
		{filter: "currency~NONE~'USD'", want: "bob,dee"},
		{filter: "tags~ANY~'vip'", want: "ann,eve"},
		{filter: "tags~ALL~'vip','beta'", want: "ann"},
		{filter: "tags~NONE~'vip','beta'", want: "cy,dee,fay,gus"},
		{filter: "tags~IS~null", want: "cy,dee,fay,gus"},
		{filter: "mrr~GT~100", want: "ann"},
		{filter: "mrr~EQ~0", want: "dee"},
		{filter: "mrr~BETWEEN~140,160", want: "ann"},
		{filter: "active_quantity~GT~3", want: "ann,eve"},
		{filter: "active_quantity~BETWEEN~1,1", want: "bob,cy,fay,gus"},
		{filter: "customer_since~LT~2024-02-01", want: "ann,cy,eve,gus"},
		{filter: "customer_since~BETWEEN~'2024-02-01','2024-02-29'", want: "bob"},
		{filter: "customer_since~IS~null", want: "dee"},
		{filter: "lead_created_at~GTE~2024-01-01", want: "dee"},
		{filter: "lead_created_at~BETWEEN~2023-11-01,2023-12-31", want: "ann"},
		{filter: "lead_created_at~IS_NOT~null", want: "ann,dee"},
		{filter: "free_trial_started_at~LT~2024-01-01", want: "cy"},
		{filter: "free_trial_started_at~BETWEEN~2023-12-01,2023-12-31", want: "cy"},
		{filter: "free_trial_started_at~IS_NOT~null", want: "cy"},
		{filter: "status~ANY~'Past_Due'", want: "cy"},
		{filter: "status~NONE~'Active','Past Due'", want: "dee"},
		{filter: "data_source~ANY~'%ds2%'", want: "bob,eve,gus"},
		{filter: "custom.tier~ANY~'Enterprise'", want: "ann"},
		{filter: "custom.tier~EQ~'enterprise'", want: "eve"},
		{filter: "custom.tier~CONTAINS~'enter'", want: "ann,eve"},
		{filter: "custom.tier~IS~null", want: "cy,dee,fay,gus"},
		{filter: "custom.seats~GT~10", want: "ann,eve"},
		{filter: "custom.seats~BETWEEN~1,3", want: "bob"},
		{filter: "custom.seats~IS~null", want: "cy,dee,fay,gus"},
		{filter: "custom.score~LTE~7.5", want: "ann"},
		{filter: "custom.score~BETWEEN~7,8", want: "ann"},
		{filter: "custom.score~IS_NOT~null", want: "ann"},
		{filter: "custom.renewal~GT~2024-08-01", want: "ann"},
		{filter: "custom.renewal~BETWEEN~2024-01-01,2024-12-31", want: "ann"},
		{filter: "custom.renewal~IS_NOT~null", want: "ann"},
		{filter: "custom.vip~IS~true", want: "ann"},
		{filter: "custom.vip~EQ~false", want: "bob"},
		// Subscription level: each customer's MRR restricted to the plans.
		{filter: "plan~ANY~'gold'", want: "ann,eve,gus", onPlan: "gold"},
		{filter: "plan~NONE~'Gold'", want: "bob,cy,eve,fay", onPlan: "silver,bronze"},
		{filter: "plan_group~ANY~%premium%", want: "ann,bob,eve,fay,gus", onPlan: "gold,silver"},
		{filter: "plan~ANY~'bronze'~AND~plan_group~ANY~%premium%", want: strings.Join(everyone, ",")},
		// Customers and plans together, and with the geo and plans parameters.
		{filter: "tags~ANY~'vip'~AND~plan~ANY~'silver'", want: "eve", onPlan: "silver"},
		{filter: "tags~ANY~'beta'", geo: "US", want: "ann"},
		{filter: "region~ANY~'US','FR'", geo: "FR,DE", want: "bob"},
		{filter: "plan~ANY~'silver','bronze'", plans: "gold,silver", want: "bob,eve,fay", onPlan: "silver"},
	}
	specs := map[string]spec{}
	keyOf := func(want, onPlan string) string { return want + "|" + onPlan }
	for _, tt := range tests {
		var plans []string
		if tt.onPlan != "" {
			plans = strings.Split(tt.onPlan, ",")
		}
		specs[keyOf(tt.want, tt.onPlan)] = spec{names: strings.Split(tt.want, ","), plans: plans}
	}
	specs[keyOf(strings.Join(everyone, ","), "")] = spec{names: everyone}
	accounts := buildAll(t, env, specs)
	all := accounts[keyOf(strings.Join(everyone, ","), "")]
	ds2 := dataSource(t, env, all.ID, "ds2")
	for _, tt := range tests {
		filter := strings.ReplaceAll(tt.filter, "%premium%", "'"+all.premium+"'")
		filter = strings.ReplaceAll(filter, "%ds2%", ds2)
		req := metricsfilter.Request{Filters: filter}
		if tt.geo != "" {
			req.Countries = strings.Split(tt.geo, ",")
		}
		if tt.plans != "" {
			req.Plans = strings.Split(tt.plans, ",")
		}
		only := accounts[keyOf(tt.want, tt.onPlan)]
		got, want := answer(t, env, all.Account, req), answer(t, env, only.Account, metricsfilter.Request{})
		for i := range got {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("%s (geo %q, plans %q):\n got %+v\nwant %+v", tt.filter, tt.geo, tt.plans, got[i].Entries, want[i].Entries)
				break
			}
		}
	}
}

func dataSource(t *testing.T, env *testenv.Env, accountID, name string) string {
	t.Helper()
	list, err := env.Deps.Store.ListDataSources(context.Background(), accountID)
	if err != nil {
		t.Fatal(err)
	}
	for _, ds := range list {
		if ds.Name == name {
			return ds.UUID
		}
	}
	t.Fatalf("no data source %s", name)
	return ""
}
