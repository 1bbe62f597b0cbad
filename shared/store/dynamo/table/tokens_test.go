package table_test

import (
	"context"
	"errors"
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/store"
)

// TestTokenOfAnotherListing: a token of one of the account's listings does not move
// another listing to its partition.
func TestTokenOfAnotherListing(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Acme")
	contact := keys.Contact(acc.ID, "con_1")
	token := store.PageToken{keys.PK: contact.PK, keys.SK: contact.SK,
		keys.GSI1PK: keys.ContactList(acc.ID), keys.GSI1SK: "con_1"}
	if !keys.PositionOwnedBy(token, acc.ID) || !token.WellFormed() {
		t.Fatal("the account's own token refused")
	}
	_, err := env.Deps.Store.ListCustomers(context.Background(), acc.ID, store.CustomerFilter{}, 10, token)
	if !errors.Is(err, store.ErrInvalidToken) {
		t.Fatalf("customers from a contacts token: %v, want ErrInvalidToken", err)
	}
}
