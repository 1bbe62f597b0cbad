package api_test

import (
	"net/url"
	"testing"

	"github.com/subsight/subsight/infra/testkit/ddbmeter"
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
)

// benchOp is one API operation a DynamoDB benchmark calls b.N times: query and body
// may vary with the round.
type benchOp struct {
	name   string
	ep     func(*api.Deps) apigw.Endpoint
	method string
	route  string
	params map[string]string
	query  func(i int) url.Values
	body   func(i int) any
	want   int
}

func noQuery(int) url.Values { return nil }
func noBody(int) any         { return nil }

// runBenchOps runs each operation as a sub-benchmark and reports its requests and
// capacity units per call.
func runBenchOps(b *testing.B, e *resourceEnv, meter *ddbmeter.Meter, ops []benchOp) {
	for _, o := range ops {
		b.Run(o.name, func(b *testing.B) {
			meter.Reset()
			for i := range b.N {
				if status, body := e.do(e.acc, o.ep, o.method, o.route, o.params, o.query(i), o.body(i)); status != o.want {
					b.Fatalf("%s: %d %v", o.name, status, body)
				}
			}
			reportMeter(b, meter)
		})
	}
}

// benchEach measures an operation that uses its object up (a delete): fresh makes an
// object and returns its path parameters, outside the measurement.
func benchEach(b *testing.B, e *resourceEnv, meter *ddbmeter.Meter, o benchOp, fresh func() map[string]string) {
	b.Run(o.name, func(b *testing.B) {
		params := make([]map[string]string, b.N)
		for i := range b.N {
			params[i] = fresh()
		}
		meter.Reset()
		for i, p := range params {
			if status, body := e.do(e.acc, o.ep, o.method, o.route, p, o.query(i), o.body(i)); status != o.want {
				b.Fatalf("%s: %d %v", o.name, status, body)
			}
		}
		reportMeter(b, meter)
	})
}
