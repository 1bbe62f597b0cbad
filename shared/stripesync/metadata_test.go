package stripesync_test

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/stripesource/stripetest"
)

// attrs are cus_1's custom attributes as text.
func attrs(t *testing.T, env *testenv.Env, conn model.StripeConnection) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, v := range customer(t, env, conn, "cus_1").Custom {
		out[k] = string(v.Type) + ":" + v.Text
	}
	return out
}

// TestMetadataAttributes: a Stripe customer's metadata are String custom attributes;
// what they cannot hold is left out; a key removed in Stripe goes only while it still
// holds the value Stripe had.
func TestMetadataAttributes(t *testing.T) {
	created := &stripe.Customer{ID: "cus_1", Created: day("2026-01-01"), Metadata: map[string]string{
		"tier": "gold", "region": "emea", "seats": "12", "bad-key": "x", "long": strings.Repeat("a", 256)}}
	updated := *created
	updated.Metadata = map[string]string{"tier": "gold", "seats": "12", "owner": "ada"}
	cases := []struct {
		name string
		// before runs after the customer's creation is applied: the account's own changes.
		before func(t *testing.T, env *testenv.Env, conn model.StripeConnection)
		events []stripe.Event
		want   map[string]string
	}{
		{name: "created", events: []stripe.Event{
			stripetest.Event("evt_1", stripe.EventTypeCustomerCreated, day("2026-01-01"), created, nil),
		}, want: map[string]string{"tier": "String:gold", "region": "String:emea", "seats": "String:12"}},
		{name: "a key removed, one added", events: []stripe.Event{
			stripetest.Event("evt_1", stripe.EventTypeCustomerCreated, day("2026-01-01"), created, nil),
			stripetest.Event("evt_2", stripe.EventTypeCustomerUpdated, day("2026-02-01"), &updated,
				map[string]any{"metadata": map[string]any{"region": "emea", "owner": nil}}),
		}, want: map[string]string{"tier": "String:gold", "seats": "String:12", "owner": "String:ada"}},
		{name: "an older snapshot after the change", events: []stripe.Event{
			stripetest.Event("evt_2", stripe.EventTypeCustomerUpdated, day("2026-02-01"), &updated,
				map[string]any{"metadata": map[string]any{"region": "emea", "owner": nil}}),
			stripetest.Event("evt_1", stripe.EventTypeCustomerCreated, day("2026-01-01"), created, nil),
		}, want: map[string]string{"tier": "String:gold", "seats": "String:12", "owner": "String:ada"}},
		{name: "a removed key the account changed since stays", before: func(t *testing.T, env *testenv.Env, conn model.StripeConnection) {
			setAttr(t, env, conn, "region", "apac")
		}, events: []stripe.Event{
			stripetest.Event("evt_1", stripe.EventTypeCustomerCreated, day("2026-01-01"), created, nil),
			stripetest.Event("evt_2", stripe.EventTypeCustomerUpdated, day("2026-02-01"), &updated,
				map[string]any{"metadata": map[string]any{"region": "emea", "owner": nil}}),
		}, want: map[string]string{"tier": "String:gold", "seats": "String:12", "owner": "String:ada", "region": "String:apac"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := newEnv(t)
			conn := connect(t, env, "metadata")
			s := newSync(env.Deps)
			if err := deliver(s, conn, c.events[:1]); err != nil {
				t.Fatal(err)
			}
			if c.before != nil {
				c.before(t, env, conn)
			}
			if err := deliver(s, conn, c.events[1:]); err != nil {
				t.Fatal(err)
			}
			if got := attrs(t, env, conn); !maps.Equal(got, c.want) {
				t.Errorf("custom attributes %v, want %v", got, c.want)
			}
		})
	}

	// A key the account defined with another type keeps its definition and is left out.
	t.Run("a key of another type", func(t *testing.T) {
		env := newEnv(t)
		conn := connect(t, env, "metadata-typed")
		if _, err := env.Deps.Store.DefineAttribute(context.Background(), model.AttrDefinition{AccountID: conn.AccountID,
			Object: model.AttrObjectCustomer, Key: "seats", Type: model.AttrInteger}); err != nil {
			t.Fatal(err)
		}
		if err := deliver(newSync(env.Deps), conn, []stripe.Event{
			stripetest.Event("evt_1", stripe.EventTypeCustomerCreated, day("2026-01-01"), created, nil)}); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"tier": "String:gold", "region": "String:emea"}
		if got := attrs(t, env, conn); !maps.Equal(got, want) {
			t.Errorf("custom attributes %v, want %v", got, want)
		}
	})
}

// setAttr sets a String custom attribute of cus_1 as the API would.
func setAttr(t *testing.T, env *testenv.Env, conn model.StripeConnection, key, value string) {
	t.Helper()
	ctx := context.Background()
	c := customer(t, env, conn, "cus_1")
	next := c
	next.Custom = maps.Clone(c.Custom)
	next.Custom[key] = model.AttrValue{Type: model.AttrString, Text: value}
	if err := env.Deps.Store.SaveCustomer(ctx, c, next); err != nil {
		t.Fatal(err)
	}
}
