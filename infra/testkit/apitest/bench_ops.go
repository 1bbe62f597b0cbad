package apitest

import (
	"net/url"
	"testing"

	"github.com/subsight/subsight/infra/testkit/ddbmeter"
)

// BenchOp is one API operation a DynamoDB benchmark calls b.N times: query and body
// may vary with the round.
type BenchOp struct {
	Name string
	// Op is the operation's registry name (Operation).
	Op     string
	Params map[string]string
	Query  func(i int) url.Values
	Body   func(i int) any
	Want   int
}

func NoQuery(int) url.Values { return nil }

func NoBody(int) any { return nil }

// RunBenchOps runs each operation as a sub-benchmark and reports its requests and
// capacity units per call.
func RunBenchOps(b *testing.B, e *ResourceEnv, meter *ddbmeter.Meter, ops []BenchOp) {
	for _, o := range ops {
		b.Run(o.Name, func(b *testing.B) {
			meter.Reset()
			for i := range b.N {
				if status, body := e.Do(e.Acc, o.Op, o.Params, o.Query(i), o.Body(i)); status != o.Want {
					b.Fatalf("%s: %d %v", o.Name, status, body)
				}
			}
			ReportMeter(b, meter)
		})
	}
}

// BenchEach measures an operation that uses its object up (a delete): fresh makes an
// object and returns its path parameters, outside the measurement.
func BenchEach(b *testing.B, e *ResourceEnv, meter *ddbmeter.Meter, o BenchOp, fresh func() map[string]string) {
	b.Run(o.Name, func(b *testing.B) {
		params := make([]map[string]string, b.N)
		for i := range b.N {
			params[i] = fresh()
		}
		meter.Reset()
		for i, p := range params {
			if status, body := e.Do(e.Acc, o.Op, p, o.Query(i), o.Body(i)); status != o.Want {
				b.Fatalf("%s: %d %v", o.Name, status, body)
			}
		}
		ReportMeter(b, meter)
	})
}
