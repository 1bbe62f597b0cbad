package recompute_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/ddbmeter"
	"github.com/subsight/subsight/infra/testkit/testenv/recomputetest"
)

// BenchmarkRecompute recomputes one customer with n monthly invoices (a price change each
// quarter, a failed payment on every third) against moto. The account series are left
// out (a spy): their cost is benchmarked with package accountseries. It reports, besides time per unchanged recomputation, the DynamoDB requests and
// capacity units of the first (everything written) and of an unchanged recomputation:
//
//	go test -run XXX -bench Recompute -benchtime 5x ./shared/recompute/
func BenchmarkRecompute(b *testing.B) {
	for _, n := range []int{1, 12, 120, 1200} {
		b.Run(fmt.Sprintf("invoices=%d", n), func(b *testing.B) {
			start := recomputetest.At("2000-01-01T00:00:00Z")
			f := recomputetest.New(b, start.AddDate(0, n, -15), false)
			f.AddInvoices(recomputetest.Monthly(n, start)...)
			t0 := time.Now()
			out, first := f.Run()
			firstTime := time.Since(t0)
			if !out.Changed {
				b.Fatal("first recomputation changed nothing")
			}
			var again ddbmeter.Snapshot
			b.ResetTimer()
			for b.Loop() {
				_, again = f.Run()
			}
			b.StopTimer()
			if again.Writes() != 0 {
				b.Fatalf("unchanged recomputation wrote: %s", again)
			}
			r, w := split(first)
			b.ReportMetric(float64(firstTime.Microseconds())/1000, "first-ms")
			b.ReportMetric(r, "first-RCU")
			b.ReportMetric(w, "first-WCU")
			b.ReportMetric(float64(first.TotalRequests()), "first-requests")
			b.ReportMetric(again.TotalUnits(), "unchanged-RCU")
			b.ReportMetric(float64(again.TotalRequests()), "unchanged-requests")
		})
	}
}

// split separates read and write capacity units.
func split(s ddbmeter.Snapshot) (read, write float64) {
	for op, u := range s.Units {
		switch op {
		case "GetItem", "Query", "BatchGetItem", "Scan":
			read += u
		default:
			write += u
		}
	}
	return read, write
}
