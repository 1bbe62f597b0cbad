package crm_test

import (
	"context"
	"errors"
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// TestMoveContact: a merge moves a contact to the customer it merges into, unless
// that customer already has a contact with the same e-mail (the merge then merges
// the two contacts instead).
func TestMoveContact(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	st := env.Deps.Store
	acc := env.NewAccount(t, "Acme")
	customer := func(ext string) model.Customer {
		id, err := st.NextCustomerID(ctx, acc.ID)
		if err != nil {
			t.Fatal(err)
		}
		c := model.Customer{AccountID: acc.ID, UUID: model.NewCustomerUUID(), ID: id, ExternalID: ext, Name: ext,
			Status: model.StatusNewLead, CreatedAt: env.Deps.Now()}
		if err := st.CreateCustomer(ctx, c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	contact := func(c model.Customer, email string) model.Contact {
		k := model.Contact{AccountID: acc.ID, UUID: model.NewContactUUID(), CustomerUUID: c.UUID,
			CustomerExternalID: c.ExternalID, Email: &email, CreatedAt: env.Deps.Now()}
		if err := st.CreateContact(ctx, k); err != nil {
			t.Fatal(err)
		}
		k, err := st.GetContact(ctx, acc.ID, k.UUID)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	from, into := customer("from"), customer("into")
	contact(into, "shared@example.com")
	tests := []struct {
		name  string
		email string
		want  error
	}{
		{"e-mail free at the target", "own@example.com", nil},
		{"e-mail taken at the target", "Shared@example.com", store.ErrDuplicateEmail},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := contact(from, tc.email)
			if err := st.MoveContact(ctx, k, into); !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			got, err := st.GetContact(ctx, acc.ID, k.UUID)
			if err != nil {
				t.Fatal(err)
			}
			if wantOwner := map[bool]string{true: into.UUID, false: from.UUID}[tc.want == nil]; got.CustomerUUID != wantOwner {
				t.Fatalf("contact belongs to %s, want %s", got.CustomerUUID, wantOwner)
			}
		})
	}
}
