package accountseries_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/subsight/subsight/infra/testkit/ddbmeter"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/store/dynamo"
)

// BenchmarkApplyChange: what one customer change costs through Apply (the jobs worker's
// call after a recomputation), in DynamoDB requests and in write units estimated from the
// items (ddbmeter.WriteRecorder; moto's figures are placeholders). Each iteration switches
// the customer between its two versions, so every iteration is a change; the reported
// figures are those of the first switch (docs/benchmarks.md, "Metrics API").
func BenchmarkApplyChange(b *testing.B) {
	p := portfolio()
	a, d := p[0], p[3] // A (US, P1), D (US, P1)
	withExpansion := a
	withExpansion.Movements = append(append([]engine.Movement{}, a.Movements...),
		mv("2024-04-10", engine.Expansion, 1500, 2000, "P1"))
	switched := d
	switched.Movements = append(append([]engine.Movement{}, d.Movements...),
		subMove("2024-04-12", engine.Expansion, 3000, 3500, "P2", "P1", 3000, 3500))
	cases := []struct {
		name     string
		from, to customer
	}{
		{"one new movement (country, one plan)", a, withExpansion},
		{"switch to another plan (a new plan and a combination)", d, switched},
		{"unchanged (a redelivery)", a, a},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			env := testenv.New(b)
			meter, writes := ddbmeter.New(), &ddbmeter.WriteRecorder{}
			series := meteredSeries(env, meter.Attach, writes.Attach)
			ctx := context.Background()
			acc := env.NewAccount(b, "Apply bench").ID
			var seed []accountseries.SeedCustomer
			for _, c := range append(p, multiPlanPortfolio()...) {
				seed = append(seed, accountseries.SeedCustomer{Result: &engine.Result{Movements: c.Movements}, Attrs: c.Attrs})
			}
			if err := series.Seed(ctx, acc, seed); err != nil {
				b.Fatal(err)
			}
			apply := func(c customer) {
				if err := series.Apply(ctx, acc, &engine.Result{Movements: c.Movements}, c.Attrs); err != nil {
					b.Fatal(err)
				}
			}
			meter.Reset()
			writes.Reset()
			apply(tc.to)
			snap := meter.Snapshot()
			wcu, err := writes.Units(ctx, env.Deps.Clients.DynamoDB, env.TableName)
			if err != nil {
				b.Fatal(err)
			}
			next := []customer{tc.from, tc.to}
			for i := 0; b.Loop(); i++ {
				apply(next[i%2])
			}
			b.ReportMetric(float64(snap.TotalRequests()), "ddb-requests/change")
			b.ReportMetric(float64(snap.Writes()), "write-requests/change")
			b.ReportMetric(wcu, "WCU/change")
			b.Logf("%s: %s, ≈ %.0f WCU", tc.name, snap, wcu)
		})
	}
}

// BenchmarkLoadShards: the reads of one metrics request's segment once customers have
// spread over every write shard: 320 customers applied one by one (each to the shard of
// its uuid), then Load of the "all" segment over two years, with read units estimated
// from the items (ddbmeter.ReadRecorder) (docs/benchmarks.md, "One account at scale").
func BenchmarkLoadShards(b *testing.B) {
	env := testenv.New(b)
	var reads ddbmeter.ReadRecorder
	meter := ddbmeter.New()
	series := meteredSeries(env, reads.Attach, meter.Attach)
	ctx := context.Background()
	acc := env.NewAccount(b, "Shards bench").ID
	p := portfolio()
	for i := range 320 {
		c := p[i%len(p)]
		c.Attrs.UUID = fmt.Sprintf("cus_shard_%03d", i)
		if err := series.Apply(ctx, acc, &engine.Result{Movements: c.Movements}, c.Attrs); err != nil {
			b.Fatal(err)
		}
	}
	from, to := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC)
	for b.Loop() {
		reads.Reset()
		meter.Reset()
		if _, err := series.Load(ctx, acc, accountseries.Segments(nil, nil), from, to); err != nil {
			b.Fatal(err)
		}
	}
	r := reads.Reads()
	b.ReportMetric(float64(r.Requests), "requests")
	b.ReportMetric(float64(r.Items), "items")
	b.ReportMetric(r.Units, "RCU")
	b.Logf("one segment over two years: %s, %d items, %.1f RCU", meter.Snapshot(), r.Items, r.Units)
}

// meteredSeries is the series on env's table through a DynamoDB client the meters are
// attached to.
func meteredSeries(env *testenv.Env, meters ...func(*aws.Config)) *accountseries.Series {
	cfg := env.AWS.Copy()
	for _, attach := range meters {
		attach(&cfg)
	}
	return accountseries.New(dynamo.New(dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.DisableValidateResponseChecksum = true
	}), env.TableName, env.Deps.Now).Series())
}
