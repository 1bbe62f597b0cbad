package api_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/subsight/subsight/infra/ddbmeter"
	"github.com/subsight/subsight/infra/testenv"
	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// itemCounter counts the items DynamoDB returns to Query and BatchGetItem.
type itemCounter struct {
	mu    sync.Mutex
	items int
}

func (c *itemCounter) middleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("itemCounter",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
			middleware.InitializeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleInitialize(ctx, in)
			n := 0
			switch r := out.Result.(type) {
			case *dynamodb.QueryOutput:
				n = len(r.Items)
			case *dynamodb.BatchGetItemOutput:
				for _, items := range r.Responses {
					n += len(items)
				}
			case *dynamodb.GetItemOutput:
				if r.Item != nil {
					n = 1
				}
			}
			c.mu.Lock()
			c.items += n
			c.mu.Unlock()
			return out, md, err
		}), middleware.After)
}

// syntheticCustomer is one customer on one monthly subscription over 2023–2024: it
// starts in a random month, changes price now and then, may churn and come back. It
// stands for the engine's result of two years of monthly invoices (the import and
// recompute chain is exercised elsewhere; here only the series' cost matters).
func syntheticCustomer(i int, plans []string) (*engine.Result, accountseries.CustomerAttrs) {
	rng := rand.New(rand.NewPCG(uint64(i), 42))
	countries := []string{"US", "DE", "FR", "GB", "ES", "IT", "NL", "CA", "AU", "JP"}
	plan := plans[rng.IntN(len(plans))]
	attrs := accountseries.CustomerAttrs{UUID: fmt.Sprintf("cus_bench-%06d", i), Name: fmt.Sprintf("Bench %d", i),
		ExternalID: fmt.Sprintf("b-%d", i), DataSourceUUID: "ds_bench", Country: countries[rng.IntN(len(countries))],
		PlanExternalIDs: map[string]string{plan: plan}}
	var ms []engine.Movement
	var mrr int64
	everPaid := false
	add := func(at time.Time, typ string, after int64) {
		m := engine.Movement{At: at, Type: typ, CustomerMRRBefore: mrr, CustomerMRR: after, Amount: after - mrr,
			PlanUUID: plan, PreviousPlanUUID: plan, SubscriptionUUID: "sub_" + attrs.UUID, SubscriptionExternalID: attrs.ExternalID,
			SubscriptionMRRBefore: mrr, SubscriptionMRRAfter: after, PayingBefore: mrr > 0, PayingAfter: after > 0,
			Description: typ}
		if typ == engine.NewBusiness {
			m.PreviousPlanUUID, m.FirstPayment = "", true
		}
		ms, mrr = append(ms, m), after
	}
	start := rng.IntN(24)
	for month := start; month < 24; month++ {
		at := time.Date(2023, time.Month(1+month), 1+i%28, 10, 0, 0, 0, time.UTC)
		switch {
		case mrr == 0 && !everPaid:
			add(at, engine.NewBusiness, int64(1000+rng.IntN(90)*100))
			everPaid = true
		case mrr == 0 && rng.IntN(5) == 0:
			add(at, engine.Reactivation, int64(1000+rng.IntN(90)*100))
		case mrr > 0 && rng.IntN(30) == 0:
			add(at, engine.Churn, 0)
		case mrr > 0 && rng.IntN(10) == 0:
			add(at, engine.Expansion, mrr+int64(100*(1+rng.IntN(20))))
		case mrr > 1000 && rng.IntN(15) == 0:
			add(at, engine.Contraction, mrr-500)
		}
	}
	return &engine.Result{Movements: ms, MRR: mrr}, attrs
}

type benchEnv struct {
	d     *app.Deps
	acc   string
	meter *ddbmeter.Meter
	items *itemCounter
	plans []string
}

func newBenchEnv(b *testing.B) *benchEnv {
	env := testenv.New(b)
	e := &benchEnv{meter: ddbmeter.New(), items: &itemCounter{}, acc: env.NewAccount(b, "Bench").ID,
		plans: make([]string, 5)}
	cfg := env.AWS.Copy()
	e.meter.Attach(&cfg)
	client := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.DisableValidateResponseChecksum = true // moto's checksums do not always match
		o.APIOptions = append(o.APIOptions, e.items.middleware)
	})
	d := *env.Deps
	d.Store = store.New(client, env.TableName, d.Now)
	e.d = &d
	// Real plans, so that the plans filter resolves them.
	ds := model.NewDataSource(e.acc, "Bench", time.Now())
	if err := d.Store.CreateDataSource(context.Background(), ds); err != nil {
		b.Fatal(err)
	}
	for i := range e.plans {
		p := model.Plan{AccountID: e.acc, UUID: model.NewPlanUUID(), DataSourceUUID: ds.UUID, ExternalID: fmt.Sprintf("bench-%d", i),
			Name: fmt.Sprintf("Bench %d", i), IntervalCount: 1, IntervalUnit: "month", CreatedAt: time.Now()}
		if err := d.Store.CreatePlan(context.Background(), p); err != nil {
			b.Fatal(err)
		}
		e.plans[i] = p.UUID
	}
	return e
}

// seed stores n synthetic customers with accountseries.Seed (moto copies the whole
// table for every action of a TransactWriteItems, so Apply slows down with the table's
// size in the emulator; Seed writes the same items without transactions), then applies
// a price change to `changes` of them through Apply and logs what one change costs.
func (e *benchEnv) seed(b *testing.B, n, changes int) {
	ctx := context.Background()
	start := time.Now()
	batch := make([]accountseries.SeedCustomer, 0, n)
	for i := range n {
		res, attrs := syntheticCustomer(i, e.plans)
		batch = append(batch, accountseries.SeedCustomer{Result: res, Attrs: attrs})
	}
	if err := accountseries.Seed(ctx, e.d, e.acc, batch); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d customers in %s", n, time.Since(start).Round(time.Second))
	if changes == 0 {
		return
	}
	e.meter.Reset()
	start = time.Now()
	for i := range changes {
		c := batch[i*(n/changes)]
		if len(c.Result.Movements) == 0 {
			continue
		}
		last := c.Result.Movements[len(c.Result.Movements)-1]
		change := last
		change.At, change.Type = time.Date(2024, 12, 20, 10, 0, 0, 0, time.UTC), engine.Expansion
		change.CustomerMRRBefore, change.CustomerMRR = last.CustomerMRR, last.CustomerMRR+500
		change.SubscriptionMRRBefore, change.SubscriptionMRRAfter = last.CustomerMRR, last.CustomerMRR+500
		change.Amount, change.PayingBefore, change.PayingAfter, change.FirstPayment = 500, last.CustomerMRR > 0, true, false
		if last.CustomerMRR == 0 {
			change.Type = engine.Reactivation
		}
		res := &engine.Result{Movements: append(append([]engine.Movement{}, c.Result.Movements...), change)}
		if err := accountseries.Apply(ctx, e.d, e.acc, res, c.Attrs); err != nil {
			b.Fatal(err)
		}
	}
	s := e.meter.Snapshot()
	b.Logf("Apply of one changed customer (mean of %d, %d customers stored): %.1f requests (%s), %.1f capacity units, %s each",
		changes, n, float64(s.TotalRequests())/float64(changes), s, s.TotalUnits()/float64(changes),
		(time.Since(start) / time.Duration(changes)).Round(time.Millisecond))
}

var benchEndpoints = []struct {
	path  string
	build func(*app.Deps) apigw.Endpoint
}{
	{"/v1/metrics/all", api.MetricsAll}, {"/v1/metrics/mrr", api.MetricsMRR}, {"/v1/metrics/arr", api.MetricsARR},
	{"/v1/metrics/arpa", api.MetricsARPA}, {"/v1/metrics/asp", api.MetricsASP},
	{"/v1/metrics/customer-count", api.MetricsCustomerCount}, {"/v1/metrics/customer-churn-rate", api.MetricsCustomerChurnRate},
	{"/v1/metrics/mrr-churn-rate", api.MetricsMRRChurnRate}, {"/v1/metrics/ltv", api.MetricsLTV},
}

// request calls one endpoint and reports the DynamoDB cost of the call.
func (e *benchEnv) request(b *testing.B, ep apigw.Endpoint, path string, q url.Values) {
	resp := apigwtest.Raw(b, ep, apigwtest.Call{Method: http.MethodGet, Route: path, Query: q, AccountID: e.acc})
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("%s: %d %s", path, resp.StatusCode, resp.Body)
	}
}

func (e *benchEnv) measure(b *testing.B, ep apigw.Endpoint, path string, q url.Values) {
	e.meter.Reset()
	e.items.mu.Lock()
	e.items.items = 0
	e.items.mu.Unlock()
	e.request(b, ep, path, q)
	s, items := e.meter.Snapshot(), e.items.items
	for b.Loop() {
		e.request(b, ep, path, q)
	}
	// Reported after the loop: b.Loop's first call clears earlier metrics.
	b.ReportMetric(s.TotalUnits(), "RCU/req")
	b.ReportMetric(float64(s.TotalRequests()), "ddb-requests/req")
	b.ReportMetric(float64(items), "items/req")
}

func benchCustomers() int {
	if n, err := strconv.Atoi(os.Getenv("METRICS_BENCH_CUSTOMERS")); err == nil && n > 0 {
		return n
	}
	return 10000
}

// BenchmarkMetricsAPI: every endpoint and interval over two years, for 10,000
// customers (METRICS_BENCH_CUSTOMERS), with the DynamoDB read units of one request
// (docs/benchmarks.md, "Metrics API").
func BenchmarkMetricsAPI(b *testing.B) {
	e := newBenchEnv(b)
	e.seed(b, benchCustomers(), 0)
	for _, ep := range benchEndpoints {
		for _, iv := range []string{"day", "week", "month", "quarter", "year"} {
			q := url.Values{"start-date": {"2023-01-01"}, "end-date": {"2024-12-31"}, "interval": {iv}}
			b.Run(ep.path[len("/v1/metrics/"):]+"/"+iv, func(b *testing.B) { e.measure(b, ep.build(e.d), ep.path, q) })
		}
	}
	filtered := url.Values{"start-date": {"2023-01-01"}, "end-date": {"2024-12-31"}, "interval": {"day"},
		"geo": {"US,DE"}, "plans": {"bench-0,Bench 1"}}
	b.Run("all/day/geo2-plans2", func(b *testing.B) { e.measure(b, api.MetricsAll(e.d), "/v1/metrics/all", filtered) })
	b.Run("activities/per_page=200", func(b *testing.B) {
		e.measure(b, api.ListActivities(e.d), "/v1/activities", url.Values{"start-date": {"2024-06-01"}})
	})
}

// BenchmarkMetricsBounded: the same two-years-by-day request as the customer count grows
// tenfold twice; items and read units stay the same.
func BenchmarkMetricsBounded(b *testing.B) {
	q := url.Values{"start-date": {"2023-01-01"}, "end-date": {"2024-12-31"}, "interval": {"day"}}
	for _, n := range []int{100, 1000, benchCustomers()} {
		e := newBenchEnv(b)
		e.seed(b, n, min(20, 2000/n)) // Apply's cost per change, where moto's table copies stay cheap
		b.Run(fmt.Sprintf("customers=%d", n), func(b *testing.B) { e.measure(b, api.MetricsAll(e.d), "/v1/metrics/all", q) })
	}
}
