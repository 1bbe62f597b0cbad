package apitest

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/subsight/subsight/infra/testkit/ddbmeter"
	"github.com/subsight/subsight/infra/testkit/testenv"
)

// BenchSeq makes external ids unique across benchmark rounds.
var BenchSeq atomic.Int64

// MeteredEnv is a resourceEnv whose store counts its DynamoDB traffic.
func MeteredEnv(b *testing.B) (*ResourceEnv, *ddbmeter.Meter) {
	env := testenv.New(b)
	meter := ddbmeter.New()
	d := env.With(meter.Client(env.AWS), nil).API()
	e := &ResourceEnv{t: b, Env: env, D: d, Ctx: context.Background()}
	e.Acc, e.Other = e.account("Bench"), e.account("Other")
	e.DS, e.DS2 = e.DataSource(e.Acc, "Billing"), e.DataSource(e.Acc, "Second")
	e.Member.AccountID, e.Member.Email, e.Member.Name = e.Acc, "bench@example.com", "Bench"
	if err := e.D.Store.PutMember(e.Ctx, e.Member); err != nil {
		b.Fatal(err)
	}
	e.Customer = e.NewCustomer(e.Acc, e.DS)
	return e, meter
}

func ReportMeter(b *testing.B, m *ddbmeter.Meter) {
	s := m.Snapshot()
	b.ReportMetric(float64(s.TotalRequests())/float64(b.N), "ddb-requests/op")
	b.ReportMetric(s.TotalUnits()/float64(b.N), "ddb-CU/op")
	b.ReportMetric(s.ReadUnits/float64(b.N), "RCU/op")
	for name, n := range s.Requests {
		b.ReportMetric(float64(n)/float64(b.N), name+"/op")
	}
}
