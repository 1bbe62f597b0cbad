package recompute_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv/recomputetest"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// BenchmarkUnmerge reports the DynamoDB requests of the jobs worker's part of an unmerge
// (docs/benchmarks.md, "CRM records and plan groups"): a customer merged from two, each
// with n monthly invoices, splits again. The counts include the recomputation of both
// customers that ends the job (benchmarked alone above; the account series are a spy
// here).
//
//	go test -run XXX -bench Unmerge -benchtime 1x ./shared/recompute/
func BenchmarkUnmerge(b *testing.B) {
	for _, n := range []int{1, 12} {
		b.Run(fmt.Sprintf("invoices=%d", n), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				ctx := context.Background()
				start := recomputetest.At("2024-01-01T00:00:00Z")
				f := recomputetest.New(b, start.AddDate(0, n, 0), false)
				first := f.Cust
				f.AddInvoices(recomputetest.Monthly(n, start)...)
				second := f.AddCustomer("c2")
				invs := recomputetest.Monthly(n, start)
				for i := range invs {
					invs[i].Ext, invs[i].Sub = fmt.Sprint("c2-", i), "s2"
				}
				f.AddInvoices(invs...)
				d := f.D.Store
				recomputetest.Must(b, d.PutMergeRequest(ctx, store.MergeRequest{AccountID: f.Acc.ID, IntoUUID: first.UUID,
					FromUUID: second.UUID, RequestedAt: start}))
				recomputetest.Must(b, f.Rec.Merges(ctx, f.Acc.ID, first.UUID))
				recomputetest.Must(b, d.PutUnmergeRequest(ctx, store.UnmergeRequest{AccountID: f.Acc.ID, CustomerUUID: first.UUID,
					DataSourceUUID: f.DS.UUID, ExternalID: "c2", NewCustomerUUID: model.NewCustomerUUID(),
					Move: model.UnmergeMovable, RequestedAt: start}))
				f.Meter.Reset()
				b.StartTimer()
				recomputetest.Must(b, f.Rec.Unmerges(ctx, f.Acc.ID, first.UUID))
				b.StopTimer()
				s := f.Meter.Snapshot()
				r, w := split(s)
				b.ReportMetric(float64(s.TotalRequests()), "requests")
				b.ReportMetric(r, "RCU")
				b.ReportMetric(w, "WCU")
				for op, c := range s.Requests {
					b.ReportMetric(float64(c), op)
				}
			}
		})
	}
}
