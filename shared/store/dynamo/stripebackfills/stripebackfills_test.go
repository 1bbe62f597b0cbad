package stripebackfills_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestStripeBackfills: one backfill per data source at a time; a save is conditional on
// the backfill and the pages done, and the SDK's retry of a save already applied is no
// conflict; a finished backfill gives way to a new one.
func TestStripeBackfills(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	st := env.Deps.Store
	acc := env.NewAccount(t, "A")
	ds := env.NewDataSource(t, acc.ID, "Stripe")
	at := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	b := model.StripeBackfill{AccountID: acc.ID, DataSourceUUID: ds.UUID, ID: "one", Status: model.BackfillQueued,
		RequestedAt: at, UpdatedAt: at}

	if _, err := st.GetStripeBackfill(ctx, acc.ID, ds.UUID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get before Start = %v, want ErrNotFound", err)
	}
	if err := st.StartStripeBackfill(ctx, b); err != nil {
		t.Fatal(err)
	}
	two := b
	two.ID = "two"
	if err := st.StartStripeBackfill(ctx, two); !errors.Is(err, store.ErrConflict) {
		t.Errorf("Start beside a queued one = %v, want ErrConflict", err)
	}

	b.Status, b.StartedAt, b.Pages, b.Cursor = model.BackfillRunning, at, 1, "cus_9"
	b.Counts = model.StripeBackfillCounts{Customers: 20, Invoices: 240}
	if err := st.SaveStripeBackfill(ctx, b, 0); err != nil {
		t.Fatal(err)
	}
	if err := st.SaveStripeBackfill(ctx, b, 0); err != nil {
		t.Errorf("the same save again (a retry already applied) = %v, want nil", err)
	}
	stale := b
	stale.Cursor = "cus_5"
	if err := st.SaveStripeBackfill(ctx, stale, 0); !errors.Is(err, store.ErrConflict) {
		t.Errorf("a save from a step moved on = %v, want ErrConflict", err)
	}
	if err := st.SaveStripeBackfill(ctx, two, 1); !errors.Is(err, store.ErrConflict) {
		t.Errorf("a save of another backfill = %v, want ErrConflict", err)
	}
	got, err := st.GetStripeBackfill(ctx, acc.ID, ds.UUID)
	if err != nil || !reflect.DeepEqual(got, b) {
		t.Errorf("Get = %+v, %v; want %+v", got, err, b)
	}

	b.Status, b.FinishedAt = model.BackfillDone, at.Add(time.Hour)
	if err := st.SaveStripeBackfill(ctx, b, 1); err != nil {
		t.Fatal(err)
	}
	late := b
	late.Status, late.LastError = model.BackfillFailed, "late"
	if err := st.SaveStripeBackfill(ctx, late, 1); !errors.Is(err, store.ErrConflict) {
		t.Errorf("a save over a finished backfill = %v, want ErrConflict", err)
	}
	if err := st.StartStripeBackfill(ctx, two); err != nil {
		t.Errorf("Start after done = %v, want nil", err)
	}
}
