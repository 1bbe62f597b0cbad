package apigw_test

import (
	"context"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/awscost"
	"github.com/subsight/subsight/infra/testkit/ddbmeter"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/api/account"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/store"
)

// BenchmarkGate measures what the rate gate adds to a warm request: GET /v1/account
// (one GetItem) through apigw.Wrap without a gate and with one, both on the emulator,
// and what a refused request costs (an account at a limit of one a second); the gate's
// DynamoDB requests and write units (by DynamoDB's rules, from the item written) and
// their price per million requests (docs/benchmarks.md, "Rate limit per account").
//
//	MOTO_SERVER=.venv/bin/moto_server go test ./shared/apigw -run '^$' -bench Gate -benchtime 2000x
func BenchmarkGate(b *testing.B) {
	env := testenv.New(b)
	acc := env.NewAccount(b, "Gate bench")
	meter, writes := ddbmeter.New(), &ddbmeter.WriteRecorder{}
	cfg := env.AWS
	writes.Attach(&cfg)
	deps := env.With(meter.Client(cfg), nil)
	ep := account.GetAccount(deps.API())
	for _, bc := range []struct {
		name string
		gate *apigw.Gate
		// rate is the account's limit; want the status of every measured request.
		rate float64
		want int
	}{
		// The limit far above the benchmark's rate: every request is served.
		{"without gate", nil, 1_000_000, 200}, {"with gate", deps.Gate(), 1_000_000, 200},
		// The limit of one a second: each second's first request is served and its second
		// one counted and refused; the others are refused from the gate's memory.
		{"refused", deps.Gate(), 1, 429},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := apigw.Wrap(ep, bc.gate)
			ev := event(acc.ID, bc.rate)
			for {
				resp, _ := h(context.Background(), ev)
				if resp.StatusCode == bc.want {
					break
				} else if resp.StatusCode != 200 {
					b.Fatalf("%d %s", resp.StatusCode, resp.Body)
				}
			}
			meter.Reset()
			writes.Reset()
			b.ResetTimer()
			start := time.Now()
			statuses := map[int]int{}
			for range b.N {
				resp, _ := h(context.Background(), ev)
				statuses[resp.StatusCode]++
				if bc.want == 200 && resp.StatusCode != 200 {
					b.Fatalf("%d %s", resp.StatusCode, resp.Body)
				}
			}
			per := time.Since(start) / time.Duration(b.N)
			s := meter.Snapshot()
			n := float64(b.N)
			b.ReportMetric(float64(s.DynamoDBRequests())/n, "ddb-requests/op")
			b.ReportMetric(float64(s.Requests["UpdateItem"])/n, "UpdateItem/op")
			b.ReportMetric(writes.Units()/n, "WCU/op")
			cost := awscost.Usage{WRU: writes.Units() / n}.Scale(1e6).Total()
			b.ReportMetric(cost, "$-writes/1M-requests")
			b.Logf("%s: %v per request (statuses %v), %.3f DynamoDB requests, %.3f write units", bc.name, per, statuses,
				float64(s.DynamoDBRequests())/n, writes.Units()/n)
		})
	}
	// The two requests alone, on the emulator: the account's GetItem and the window's
	// UpdateItem.
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		call func(i int) error
	}{
		{"GetItem alone", func(int) error { _, err := deps.Store.GetAccount(ctx, acc.ID); return err }},
		{"counter UpdateItem alone", func(int) error {
			_, err := deps.Store.CountRequest(ctx, store.RequestCount{AccountID: acc.ID, Second: time.Now().Unix()})
			return err
		}},
		{"settings UpdateItem alone", func(int) error { return deps.Store.UpdateSettings(ctx, acc.ID, acc.Settings) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			start := time.Now()
			for i := range b.N {
				if err := bc.call(i); err != nil {
					b.Fatal(err)
				}
			}
			b.Logf("%s: %v per request", bc.name, time.Since(start)/time.Duration(b.N))
		})
	}
}
