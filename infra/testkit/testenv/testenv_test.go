package testenv

import (
	"context"
	"testing"

	"github.com/subsight/subsight/shared/model"
)

func TestMain(m *testing.M) { Main(m) }

// TestIsolation: two Envs have distinct resources, and data written through one
// Deps is invisible to the other.
func TestIsolation(t *testing.T) {
	a, b := New(t), New(t)
	if a.TableName == b.TableName || a.ImportQueueURL == b.ImportQueueURL || a.ImportBucket == b.ImportBucket {
		t.Fatalf("Envs share resources: %s %s", a.TableName, b.TableName)
	}
	for _, e := range []*Env{a, b} {
		if e.TableName == "" || e.ImportBucket == "" || e.ImportQueueURL == "" || e.JobsQueueURL == "" ||
			e.ImportDLQURL == "" || e.JobsDLQURL == "" || len(e.CursorSecret) < 16 {
			t.Fatalf("incomplete Env: %+v", e)
		}
		if e.Deps.Config.TableName != e.TableName || e.Deps.Config.JobsQueueURL != e.JobsQueueURL || e.Deps.Config.CursorSecret != e.CursorSecret {
			t.Fatalf("Deps not wired to the Env: %+v", e.Deps.Config)
		}
	}
	ctx := context.Background()
	acc := model.Account{ID: model.NewAccountID(), Name: "A", Currency: "USD", TimeZone: "UTC", WeekStartOn: "monday", Settings: model.DefaultSettings()}
	if err := a.Deps.Store.CreateAccount(ctx, acc); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Deps.Store.GetAccount(ctx, acc.ID); err != nil {
		t.Fatalf("own account: %v", err)
	}
	if _, err := b.Deps.Store.GetAccount(ctx, acc.ID); err == nil {
		t.Fatal("the other Env sees the account")
	}
}
