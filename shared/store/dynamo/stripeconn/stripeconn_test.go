package stripeconn_test

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

// newConnection is a connection (not stored yet) of account a's data source ds; b is
// another account.
func newConnection(t *testing.T) (st store.StripeConnections, a, b model.Account, ds model.DataSource, conn model.StripeConnection) {
	t.Helper()
	env := testenv.New(t)
	a, b = env.NewAccount(t, "A"), env.NewAccount(t, "B")
	ds = env.NewDataSource(t, a.ID, "Stripe")
	at := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	conn = model.StripeConnection{AccountID: a.ID, DataSourceUUID: ds.UUID, SealedWebhookSecret: []byte{1, 2, 3},
		SealedAPIKey: []byte{4, 5}, APIKeyLast4: "abcd", Settings: model.DefaultStripeSettings(), ConnectedAt: at, UpdatedAt: at}
	return env.Deps.Store, a, b, ds, conn
}

// TestStripeConnections: a connection is found by its data source's uuid alone, is
// replaced by its own account, and can be neither replaced nor deleted by another.
func TestStripeConnections(t *testing.T) {
	ctx := context.Background()
	st, a, b, ds, conn := newConnection(t)
	at := conn.UpdatedAt

	if _, err := st.GetStripeConnection(ctx, ds.UUID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get before Put = %v, want ErrNotFound", err)
	}
	if err := st.PutStripeConnection(ctx, conn); err != nil {
		t.Fatal(err)
	}
	replaced := conn
	replaced.SealedWebhookSecret, replaced.SealedAPIKey, replaced.APIKeyLast4 = []byte{9}, nil, ""
	replaced.Settings.DeletedCustomers = "delete"
	replaced.Settings.ChurnRecognition, replaced.Settings.RefundHandling = "churn_at_click", "refund_full_only"
	replaced.Settings.InvoiceHandling.Manual = model.InvoiceRules{CreateSubscriptionWhenInvoiceIs: "open",
		UpdateSubscriptionWhenInvoiceIs: "partially_paid", PreventSubscriptionForInvoiceVoided: false, PreventSubscriptionForInvoiceWrittenOff: true}
	replaced.UpdatedAt = at.Add(time.Hour)
	theirs := conn
	theirs.AccountID, theirs.SealedWebhookSecret = b.ID, []byte{7}
	reread := replaced
	reread.Settings.RefundHandling, reread.UpdatedAt = "", at.Add(2*time.Hour)

	steps := []struct {
		name    string
		do      func() error
		wantErr error
		want    model.StripeConnection
	}{
		{"read back", func() error { return nil }, nil, conn},
		{"replaced by its account", func() error { return st.PutStripeConnection(ctx, replaced) }, nil, replaced},
		{"another account cannot replace it", func() error { return st.PutStripeConnection(ctx, theirs) }, store.ErrNotFound, replaced},
		{"another account cannot delete it", func() error { return st.DeleteStripeConnection(ctx, b.ID, ds.UUID) }, nil, replaced},
		{"not replaced over a stale read", func() error { return st.ReplaceStripeConnection(ctx, conn, conn.UpdatedAt) }, store.ErrConflict, replaced},
		{"not replaced by another account", func() error {
			mine := theirs
			mine.UpdatedAt = replaced.UpdatedAt
			return st.ReplaceStripeConnection(ctx, mine, replaced.UpdatedAt)
		}, store.ErrConflict, replaced},
		{"replaced over the read", func() error { return st.ReplaceStripeConnection(ctx, reread, replaced.UpdatedAt) }, nil, reread},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			if err := s.do(); !errors.Is(err, s.wantErr) {
				t.Fatalf("got %v, want %v", err, s.wantErr)
			}
			got, err := st.GetStripeConnection(ctx, ds.UUID)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, s.want) {
				t.Fatalf("connection = %+v, want %+v", got, s.want)
			}
		})
	}
	for range 2 { // idempotent
		if err := st.DeleteStripeConnection(ctx, a.ID, ds.UUID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.GetStripeConnection(ctx, ds.UUID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get after Delete = %v, want ErrNotFound", err)
	}
	if err := st.ReplaceStripeConnection(ctx, reread, reread.UpdatedAt); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("Replace after Delete = %v, want ErrConflict", err)
	}
	if _, err := st.GetStripeConnection(ctx, ds.UUID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a Replace after Delete connected the source again: %v", err)
	}
}

// TestRemoveAndRestore: a removal returns what the connection held, settings and all,
// only to its own account; a restore puts it back only where no connection is.
func TestRemoveAndRestore(t *testing.T) {
	ctx := context.Background()
	st, a, b, ds, conn := newConnection(t)
	conn.Settings.RefundHandling = "refund_full_only"
	conn.Settings.InvoiceHandling.Automatic.CreateSubscriptionWhenInvoiceIs = "open"
	if err := st.PutStripeConnection(ctx, conn); err != nil {
		t.Fatal(err)
	}
	removed := func(accountID string, want model.StripeConnection) func() error {
		return func() error {
			got, err := st.RemoveStripeConnection(ctx, accountID, ds.UUID)
			if err == nil && !reflect.DeepEqual(got, want) {
				t.Errorf("removed %+v, want %+v", got, want)
			}
			return err
		}
	}
	steps := []struct {
		name      string
		do        func() error
		wantErr   error
		connected bool
	}{
		{"another account removes nothing", removed(b.ID, model.StripeConnection{}), store.ErrNotFound, true},
		{"removed by its account", removed(a.ID, conn), nil, false},
		{"removed again: nothing", removed(a.ID, model.StripeConnection{}), store.ErrNotFound, false},
		{"restored", func() error { return st.RestoreStripeConnection(ctx, conn) }, nil, true},
		{"not restored over a connection", func() error { return st.RestoreStripeConnection(ctx, conn) }, store.ErrConflict, true},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			if err := s.do(); !errors.Is(err, s.wantErr) {
				t.Fatalf("got %v, want %v", err, s.wantErr)
			}
			got, err := st.GetStripeConnection(ctx, ds.UUID)
			switch {
			case !s.connected && !errors.Is(err, store.ErrNotFound):
				t.Fatalf("Get = %+v, %v, want ErrNotFound", got, err)
			case s.connected && (err != nil || !reflect.DeepEqual(got, conn)):
				t.Fatalf("Get = %+v, %v, want %+v", got, err, conn)
			}
		})
	}
}
