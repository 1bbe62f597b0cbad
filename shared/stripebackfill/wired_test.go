package stripebackfill_test

import (
	"context"
	"testing"

	"github.com/subsight/subsight/infra/testkit/stripemock"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/stripebackfill"
	"github.com/subsight/subsight/shared/stripeworkers"
)

// The applier the service wires (the live sync) stores every backfilled customer.
func TestBackfillThroughTheWiredSync(t *testing.T) {
	e := newBackfillEnv(t, 5)
	wired, ok := stripeworkers.NewParts(e.env.Workers).Backfills.(*stripebackfill.Runner)
	if !ok || wired.Applier == nil {
		t.Fatalf("the Stripe worker's backfill runner has no applier: %#v", wired)
	}
	e.runner.Applier = wired.Applier
	ds := e.connect(t, stripemock.Key)
	if b := e.start(t, ds); b.Status != model.BackfillDone {
		t.Fatalf("backfill %s: %q", b.Status, b.LastError)
	}
	e.env.DrainWorkers(t)
	page, err := e.env.Deps.Store.ListCustomers(context.Background(), e.account, store.CustomerFilter{DataSourceUUID: ds}, 100, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 5 {
		t.Fatalf("%d customers stored, want the 5 backfilled", len(page.Items))
	}
}
