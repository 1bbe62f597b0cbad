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
// (one GetItem) through apigw.Wrap without a gate and with one, both on the emulator;
// the gate's DynamoDB requests and write units (by DynamoDB's rules, from the item
// written) and their price per million requests (docs/benchmarks.md, "Rate limit per
// account").
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
	}{{"without gate", nil}, {"with gate", deps.Gate()}} {
		b.Run(bc.name, func(b *testing.B) {
			h := apigw.Wrap(ep, bc.gate)
			// The limit far above the benchmark's rate: every request is served.
			ev := event(acc.ID, float64(1_000_000))
			if resp, _ := h(context.Background(), ev); resp.StatusCode != 200 {
				b.Fatalf("%d %s", resp.StatusCode, resp.Body)
			}
			meter.Reset()
			writes.Reset()
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				if resp, _ := h(context.Background(), ev); resp.StatusCode != 200 {
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
			b.Logf("%s: %v per request, %.2f DynamoDB requests, %.2f write units", bc.name, per, float64(s.DynamoDBRequests())/n, writes.Units()/n)
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
