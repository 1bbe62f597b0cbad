package accounts_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestCreateTwiceWithTheSameItem: a create whose item is already stored exactly as
// written succeeds (the SDK retried a request whose first attempt was applied); any
// other item under the key is a conflict.
func TestCreateTwiceWithTheSameItem(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	acc := model.Account{ID: model.NewAccountID(), Name: "Acme", Currency: "USD", TimeZone: "UTC", WeekStartOn: "monday",
		Settings: model.DefaultSettings(), CreatedAt: time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)}
	if err := env.Deps.Store.CreateAccount(ctx, acc); err != nil {
		t.Fatal(err)
	}
	renamed := acc
	renamed.Name = "Other"
	tests := []struct {
		name string
		acc  model.Account
		want error
	}{
		{"the same account again", acc, nil},
		{"another account under the same id", renamed, store.ErrConflict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := env.Deps.Store.CreateAccount(ctx, tc.acc); !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
			got, err := env.Deps.Store.GetAccount(ctx, acc.ID)
			if err != nil || got.Name != "Acme" {
				t.Errorf("stored account %+v (%v), want the first one", got, err)
			}
		})
	}
}
