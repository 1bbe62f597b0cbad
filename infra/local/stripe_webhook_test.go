package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/infra/testkit/stripegen"
	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/secrets"
)

// TestStripeWebhookRoute: the local stack serves the webhook without the authorizer,
// as API Gateway does: a signed event for a connected data source is taken with no API
// key, an unknown data source is the 404.
func TestStripeWebhookRoute(t *testing.T) {
	ctx := context.Background()
	d := testStack.deps
	ds := ids.New(ids.DataSource)
	const secret = "whsec_local_stack_route_0123456789"
	sealed, err := d.Secrets.Seal(ctx, []byte(secret), secrets.Binding{AccountID: testStack.accountID, DataSourceUUID: ds})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	if err := d.Store.PutStripeConnection(ctx, model.StripeConnection{AccountID: testStack.accountID, DataSourceUUID: ds,
		SealedWebhookSecret: sealed, Settings: model.DefaultStripeSettings(), ConnectedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	body, err := stripegen.Event("evt_local_route", stripe.EventTypeBalanceAvailable, now, &stripe.Balance{Object: "balance"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, ds string
		status   int
	}{{"connected", ds, 200}, {"unknown data source", ids.New(ids.DataSource), 404}} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", testStack.baseURL+"/stripe/webhooks/"+tc.ds, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Stripe-Signature", stripegen.Sign(body, secret, time.Now()))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status {
				t.Fatalf("%d %s", resp.StatusCode, b)
			}
		})
	}
}
