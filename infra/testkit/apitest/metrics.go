package apitest

import (
	"context"
	"maps"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/ddbmeter"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/model"
)

type metricsEnv struct {
	t            testing.TB
	D            *api.Deps
	Acc, Other   string
	Gold, silver model.Plan
}

func metricDate(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// NewMetricsEnv stores the four-customer portfolio of the hand computation (customers
// A, C, D in the US and B in Germany; A, B, D on Gold, C on Silver) through
// accountseries.Series.Apply, as the jobs worker would after recomputing each customer.
func NewMetricsEnv(t *testing.T) *metricsEnv { return SeededMetricsEnv(t, nil) }

// SeededMetricsEnv is newMetricsEnv, its store's DynamoDB traffic counted by meter
// (when not nil).
func SeededMetricsEnv(t testing.TB, meter *ddbmeter.Meter) *metricsEnv {
	env := testenv.New(t)
	d := env.API
	if meter != nil {
		d = env.With(meter.Client(env.AWS), nil).API()
	}
	e := &metricsEnv{t: t, D: d, Acc: env.NewAccount(t, "Metrics").ID, Other: env.NewAccount(t, "Other").ID}
	ctx := context.Background()
	ds := model.NewDataSource(e.Acc, "Billing", time.Now())
	if err := e.D.Store.CreateDataSource(ctx, ds); err != nil {
		t.Fatal(err)
	}
	plan := func(name, ext string) model.Plan {
		p := model.Plan{AccountID: e.Acc, UUID: model.NewPlanUUID(), DataSourceUUID: ds.UUID, ExternalID: ext, Name: name,
			IntervalCount: 1, IntervalUnit: "month", CreatedAt: time.Now()}
		if err := e.D.Store.CreatePlan(ctx, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	e.Gold, e.silver = plan("Gold", "gold-ext"), plan("Silver", "silver-ext")
	mv := func(when, typ string, before, after int64, p model.Plan) engine.Movement {
		m := engine.Movement{At: metricDate(when).Add(9 * time.Hour), Type: typ, CustomerMRRBefore: before, CustomerMRR: after,
			Amount: after - before, PlanUUID: p.UUID, PreviousPlanUUID: p.UUID, PayingBefore: before > 0, PayingAfter: after > 0,
			SubscriptionUUID: "sub_" + p.ExternalID, SubscriptionExternalID: "s-" + p.ExternalID,
			SubscriptionMRRBefore: before, SubscriptionMRRAfter: after, Description: typ + " the " + p.Name + " plan"}
		if typ == engine.NewBusiness {
			m.PreviousPlanUUID, m.FirstPayment = "", true
		}
		return m
	}
	customers := []struct {
		id, country string
		ms          []engine.Movement
	}{
		{"A", "US", []engine.Movement{mv("2024-01-05", engine.NewBusiness, 0, 1000, e.Gold), mv("2024-02-10", engine.Expansion, 1000, 1500, e.Gold)}},
		{"B", "DE", []engine.Movement{mv("2024-01-20", engine.NewBusiness, 0, 2000, e.Gold), mv("2024-03-03", engine.Churn, 2000, 0, e.Gold)}},
		{"C", "US", []engine.Movement{mv("2024-02-01", engine.NewBusiness, 0, 3000, e.silver), mv("2024-02-15", engine.Churn, 3000, 0, e.silver),
			mv("2024-03-10", engine.Reactivation, 0, 3000, e.silver)}},
		{"D", "US", []engine.Movement{mv("2023-12-15", engine.NewBusiness, 0, 4000, e.Gold), mv("2024-01-25", engine.Contraction, 4000, 3000, e.Gold)}},
	}
	for _, c := range customers {
		attrs := accountseries.CustomerAttrs{UUID: "cus_" + c.id, Name: "Customer " + c.id, ExternalID: "ext-" + c.id,
			DataSourceUUID: ds.UUID, Country: c.country,
			PlanExternalIDs: map[string]string{e.Gold.UUID: e.Gold.ExternalID, e.silver.UUID: e.silver.ExternalID}}
		if err := e.D.Series().Apply(ctx, e.Acc, &engine.Result{Movements: c.ms}, attrs); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// Get calls the read operation named as account.
func (e *metricsEnv) Get(operation, account string, q url.Values) (int, map[string]any) {
	e.t.Helper()
	return Do(e.t, e.D, operation, apigwtest.Call{Query: q, AccountID: account})
}

func Query(kv ...string) url.Values {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	return q
}

// Field collects one key of every entry, as float64 (JSON numbers).
func Field(body map[string]any, key string) []any {
	var out []any
	for _, e := range body["entries"].([]any) {
		out = append(out, e.(map[string]any)[key])
	}
	return out
}

// KeysOf is the sorted keys of a decoded JSON object.
func KeysOf(v any) []string {
	return slices.Sorted(maps.Keys(v.(map[string]any)))
}
