package stripewebhook_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/infra/testkit/stripegen"
	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/queue"
	"github.com/subsight/subsight/shared/secrets"
	"github.com/subsight/subsight/shared/stripewebhook"
)

// BenchmarkReceive is the intake's own CPU for one delivery (docs/benchmarks.md,
// "Stripe webhooks"): the signature over the raw body, the event's decoding, its group,
// the message; the store, the sealer, the bucket and the queue are in memory.
func BenchmarkReceive(b *testing.B) {
	history, err := stripegen.History(stripegen.Options{Customers: 5, Seed: 3, End: now})
	if err != nil {
		b.Fatal(err)
	}
	var paid []byte
	for _, d := range history {
		if d.Type == stripe.EventTypeInvoicePaid {
			paid = d.Payload
			break
		}
	}
	big, err := stripegen.Event("evt_big", stripe.EventTypeInvoiceFinalized, now, bigInvoice("in_big", "cus_big", 1<<20), nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		body []byte
	}{{"invoice.paid", paid}, {"1MB", big}} {
		b.Run(c.name, func(b *testing.B) {
			acc, ds := model.NewAccountID(), ids.New(ids.DataSource)
			sealed, _ := bindingSealer{}.Seal(context.Background(), []byte(secretA), secrets.Binding{AccountID: acc, DataSourceUUID: ds})
			conns := memConnections{ds: {AccountID: acc, DataSourceUUID: ds, SealedWebhookSecret: sealed}}
			d := &stripewebhook.Deps{Connections: conns, Sealer: bindingSealer{}, Events: memEvents{}, Queue: memQueue{},
				Now: func() time.Time { return now }}
			sig := stripegen.Sign(c.body, secretA, now)
			b.SetBytes(int64(len(c.body)))
			b.ResetTimer()
			for b.Loop() {
				if err := d.Receive(context.Background(), ds, c.body, sig); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type memEvents struct{}

var memStore sync.Map

func (memEvents) Put(_ context.Context, key string, body []byte) error {
	memStore.Store(key, len(body))
	return nil
}
func (memEvents) Get(context.Context, string) ([]byte, error) { return nil, nil }

type memQueue struct{}

func (memQueue) Send(context.Context, queue.Message) error        { return nil }
func (memQueue) SendBatch(context.Context, []queue.Message) error { return nil }
