package recompute_test

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv/recomputetest"
	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/recompute"
	"github.com/subsight/subsight/shared/store"
)

// heldSeries is the series storage of a recomputation held after it has read its
// customer (its first read of the series records waits until released).
type heldSeries struct {
	store.SeriesStorage
	once          sync.Once
	held, release chan struct{}
}

func (h *heldSeries) GetSeriesRecords(ctx context.Context, accountID string, uuids []string) (map[string]store.SeriesRecord, error) {
	h.once.Do(func() {
		close(h.held)
		<-h.release
	})
	return h.SeriesStorage.GetSeriesRecords(ctx, accountID, uuids)
}

// TestTwoLanesRecomputeOneCustomerAtOnce: the bulk lane recomputes a customer from its
// records as they were (five invoices) and is held before writing anything; meanwhile
// a sixth invoice at a higher price (an expansion) arrives and the jobs queue's
// recomputation (the read copy) commits the new result. When the bulk lane goes on, its state is not the one it read: its
// commit fails, it runs again from the records as they are now, and writes over what
// it wrote before losing. In the end everything is the newer result: the customer's
// figures, its subscription rows, its state (a new recomputation changes nothing), and
// the account series, once the bulk shard is folded (the series checker).
func TestTwoLanesRecomputeOneCustomerAtOnce(t *testing.T) {
	f := recomputetest.New(t, recomputetest.At("2024-06-15T00:00:00Z"), true)
	ctx := context.Background()
	invs := recomputetest.Monthly(6, recomputetest.At("2024-01-01T00:00:00Z"))
	f.AddInvoices(invs[:5]...)
	f.Run()

	held := &heldSeries{SeriesStorage: f.D.Store.Series(), held: make(chan struct{}), release: make(chan struct{})}
	series := accountseries.New(held)
	bulk := recompute.New(f.D.Store, series, f.D.Now)
	type result struct {
		folds map[string][]store.SeriesShardPart
		err   error
	}
	done := make(chan result)
	go func() {
		_, folds, errs := bulk.Customers(ctx, 7, []recompute.Request{{AccountID: f.Acc.ID, CustomerUUID: f.Cust.UUID}})
		done <- result{folds, errs[0]}
	}()
	<-held.held // the bulk lane has computed from five invoices

	sixth := invs[5]
	sixth.Amount = 1500
	f.AddInvoices(sixth)
	out, _ := f.Run() // the jobs queue's recomputation, from six
	if !out.Changed || out.MRR != 1500 {
		t.Fatalf("the jobs queue's recomputation: %+v", out)
	}
	want, wantRows := f.Customer(), f.SubscriptionRows()

	close(held.release)
	r := <-done
	if r.err != nil {
		t.Fatalf("the bulk lane's recomputation: %v", r.err)
	}
	if err := series.Fold(ctx, f.Acc.ID, r.folds[f.Acc.ID]); err != nil {
		t.Fatal(err)
	}
	got := f.Customer()
	if got.MRR != want.MRR || got.ARR != want.ARR || got.Status != want.Status {
		t.Errorf("customer after both: %d %d %q, want %d %d %q", got.MRR, got.ARR, got.Status, want.MRR, want.ARR, want.Status)
	}
	if rows := f.SubscriptionRows(); !reflect.DeepEqual(rows, wantRows) {
		t.Errorf("subscription rows after both:\n%+v\nwant\n%+v", rows, wantRows)
	}
	if again, _ := f.Run(); again.Changed {
		t.Errorf("a new recomputation still changes something: %+v", again)
	}
	v, err := f.D.Workers().CheckSeries(ctx, f.Acc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !v.OK() {
		t.Errorf("the series are not the customers' sum:\n%s", v.Report())
	}
}

// TestTwoLanesRecomputeARenamedCustomer: as above, but what arrives meanwhile is the
// customer's new name: the state is the same for both (the name is not in it), the
// series record is not (its activities carry the name). The bulk lane read the old
// name before the jobs queue's recomputation wrote the new one, so its series write
// fails and it runs again: the activities show the new name.
func TestTwoLanesRecomputeARenamedCustomer(t *testing.T) {
	f := recomputetest.New(t, recomputetest.At("2024-06-15T00:00:00Z"), true)
	ctx := context.Background()
	f.AddInvoices(recomputetest.Monthly(5, recomputetest.At("2024-01-01T00:00:00Z"))...)
	f.Run()

	held := &heldSeries{SeriesStorage: f.D.Store.Series(), held: make(chan struct{}), release: make(chan struct{})}
	bulk := recompute.New(f.D.Store, accountseries.New(held), f.D.Now)
	done := make(chan error)
	go func() {
		_, _, errs := bulk.Customers(ctx, 0, []recompute.Request{{AccountID: f.Acc.ID, CustomerUUID: f.Cust.UUID}})
		done <- errs[0]
	}()
	<-held.held

	old := f.Customer()
	renamed := old
	renamed.Name = "Ann Renamed"
	if err := f.D.Store.SaveCustomer(ctx, old, renamed); err != nil {
		t.Fatal(err)
	}
	f.Run()
	close(held.release)
	if err := <-done; err != nil {
		t.Fatalf("the bulk lane's recomputation: %v", err)
	}
	page, err := f.D.Store.ListCustomerActivities(ctx, f.Acc.ID, f.Cust.UUID, 200, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) == 0 {
		t.Fatal("no activities")
	}
	for _, a := range page.Items {
		if a.CustomerName != "Ann Renamed" {
			t.Errorf("activity %s shows the customer as %q", a.UUID, a.CustomerName)
		}
	}
}
