package testenv

import (
	"context"
	"testing"

	"github.com/subsight/subsight/shared/workers"
)

// CheckSeries fails t unless the account's stored series are exactly what its
// customers' results add up to (workers.Deps.CheckSeries); end-to-end metrics tests
// call it once their queues are drained.
func CheckSeries(t testing.TB, w *workers.Deps, accountID string) {
	t.Helper()
	v, err := w.CheckSeries(context.Background(), accountID)
	if err != nil {
		t.Fatalf("series check: %v", err)
	}
	if !v.OK() {
		t.Fatalf("series check:\n%s", v.Report())
	}
	t.Logf("series check: %d customers, %d segments, %d numbers: no difference", v.Customers, v.Segments, v.Numbers)
}
