package engine

import (
	"fmt"
	"testing"
	"time"
)

// benchInvoices is n monthly invoices with a price change every quarter and a payment each,
// every third one after a failed attempt.
func benchInvoices(n int) []Invoice {
	start := at("2020-01-01")
	out := make([]Invoice, 0, n)
	for i := range n {
		s, e := start.AddDate(0, i, 0), start.AddDate(0, i+1, 0)
		it := item(monthly, s.Format(time.DateOnly), e.Format(time.DateOnly), int64(1000+100*(i/3%4)))
		inv := invoice(fmt.Sprintf("b%d", i), s.Format(time.DateOnly), it)
		inv.Transactions = []Transaction{{Type: TransactionPayment, Result: ResultSuccessful, Date: s}}
		if i%3 == 2 { // a failed attempt before the successful retry
			inv.Transactions = append([]Transaction{{Type: TransactionPayment, Result: ResultFailed, Date: s}}, inv.Transactions...)
		}
		out = append(out, inv)
	}
	return out
}

func BenchmarkCompute(b *testing.B) {
	for _, n := range []int{1, 12, 120, 1200} {
		in := input("2130-01-01", benchInvoices(n)...)
		b.Run(fmt.Sprintf("invoices=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Compute(in)
			}
		})
	}
}
