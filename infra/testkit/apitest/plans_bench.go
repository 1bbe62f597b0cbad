package apitest

import (
	"sync/atomic"
	"testing"

	"github.com/subsight/subsight/infra/testkit/ddbmeter"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/model"
)

// BenchSeq makes external ids unique across benchmark rounds.
var BenchSeq atomic.Int64

// MeteredEnv is a resourceEnv whose store counts its DynamoDB traffic.
func MeteredEnv(b *testing.B) (*ResourceEnv, *ddbmeter.Meter) {
	env := testenv.New(b)
	meter := ddbmeter.New()
	d := env.With(meter.Client(env.AWS), nil).API()
	return newResourceEnv(b, env, d, model.Member{Email: "bench@example.com", Name: "Bench"}), meter
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
