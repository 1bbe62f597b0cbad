package stripewebhook_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/stripewebhook"
	"github.com/subsight/subsight/shared/stripeworkers"
)

// TestWorkerAppliesEachCustomersEventsInOrder: the worker reads each queued event back
// from the bucket, decodes it and hands it to the applier with its data source's
// connection, one Stripe customer's events in the order received; a failure fails its
// customer's later events of the batch (reported back to SQS), not the others'; an
// event of a data source disconnected since is dropped.
func TestWorkerAppliesEachCustomersEventsInOrder(t *testing.T) {
	f := newFixture(t)
	acc := f.env.NewAccount(t, "Stripe worker")
	ds, gone := ids.New(ids.DataSource), ids.New(ids.DataSource)
	f.connect(t, acc.ID, ds, secretA)
	f.connect(t, acc.ID, gone, secretA2)
	deliveries := []struct {
		ds, secret, id string
		typ            stripe.EventType
		obj            any
	}{
		{ds, secretA, "evt_1", stripe.EventTypeCustomerCreated, &stripe.Customer{ID: "cus_1", Object: "customer"}},
		{ds, secretA, "evt_2", stripe.EventTypeCustomerCreated, &stripe.Customer{ID: "cus_2", Object: "customer"}},
		{ds, secretA, "evt_3", stripe.EventTypeCustomerSubscriptionCreated, subscription("sub_1", "cus_1")},
		{ds, secretA, "evt_4", stripe.EventTypeCustomerSubscriptionUpdated, subscription("sub_1", "cus_1")},
		{ds, secretA, "evt_5", stripe.EventTypeCustomerSubscriptionCreated, subscription("sub_2", "cus_2")},
		{gone, secretA2, "evt_6", stripe.EventTypeCustomerCreated, &stripe.Customer{ID: "cus_3", Object: "customer"}},
	}
	for _, d := range deliveries {
		body, sig := signedEvent(t, d.id, d.typ, d.obj, d.secret)
		if status, resp := f.post(t, d.ds, body, sig, false); status != 200 {
			t.Fatalf("%s: %d %s", d.id, status, resp)
		}
	}
	f.disconnect(t, acc.ID, gone) // disconnected after its event was queued

	applier := &recordingApplier{failIDs: map[string]bool{"evt_3": true}}
	w := f.env.Workers
	f.deps.Applier = applier
	batch := f.receive(t)
	if len(batch.Records) != len(deliveries) {
		t.Fatalf("%d messages received, want %d", len(batch.Records), len(deliveries))
	}
	resp, err := stripeworkers.RunEvents(w, f.deps)(context.Background(), batch)
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, item := range resp.BatchItemFailures {
		for _, msg := range batch.Records {
			if msg.MessageId == item.ItemIdentifier {
				failed = append(failed, eventOf(t, msg.Body))
			}
		}
	}
	slices.Sort(failed)
	if !slices.Equal(failed, []string{"evt_3", "evt_4"}) {
		t.Errorf("failed %v, want cus_1's evt_3 and the later evt_4", failed)
	}
	var got []string
	for _, a := range applier.applied {
		got = append(got, a.ev.ID)
		if a.conn.AccountID != acc.ID || a.conn.DataSourceUUID != ds || a.ev.Data == nil || len(a.ev.Data.Raw) == 0 ||
			a.ev.APIVersion != stripe.APIVersion {
			t.Errorf("%s applied with %+v", a.ev.ID, a.conn)
		}
	}
	if cus2 := slices.DeleteFunc(slices.Clone(got), func(id string) bool { return id == "evt_1" }); !slices.Equal(cus2, []string{"evt_2", "evt_5"}) {
		t.Errorf("applied %v: cus_2's events, in order, and nothing of cus_1 after its failure", got)
	}
	if !slices.Contains(got, "evt_1") || slices.Contains(got, "evt_6") {
		t.Errorf("applied %v: cus_1's first event and not the disconnected source's", got)
	}

	// The failed events come back and apply in order once the sync takes them.
	applier.failIDs, applier.applied = nil, nil
	retry := batch
	retry.Records = slices.DeleteFunc(slices.Clone(batch.Records), func(m events.SQSMessage) bool {
		id := eventOf(t, m.Body)
		return id != "evt_3" && id != "evt_4"
	})
	if resp, _ := stripeworkers.RunEvents(w, f.deps)(context.Background(), retry); len(resp.BatchItemFailures) != 0 {
		t.Fatalf("retry failed %v", resp.BatchItemFailures)
	}
	if len(applier.applied) != 2 || applier.applied[0].ev.ID != "evt_3" || applier.applied[1].ev.ID != "evt_4" {
		t.Errorf("retry applied %v", applier.applied)
	}
}

// eventOf is the event id of a queued message.
func eventOf(t *testing.T, body string) string {
	t.Helper()
	m, err := stripewebhook.DecodeMessage(body)
	if err != nil {
		t.Fatal(err)
	}
	return m.EventID
}

// errWaiting is an applier's refusal that waits for another event.
var errWaiting = errors.New("waiting for the invoice")

// waitingApplier refuses every event with errWaiting.
type waitingApplier struct{}

func (waitingApplier) ApplyEvent(context.Context, model.StripeConnection, stripe.Event) error {
	return errWaiting
}

// redeliveries records what the worker asks to see again soon.
type redeliveries struct{ msgs []events.SQSMessage }

func (r *redeliveries) Redeliver(_ context.Context, msgs []events.SQSMessage, _ time.Duration) error {
	r.msgs = append(r.msgs, msgs...)
	return nil
}

// TestWorkerRedeliversWaitingEventsSoon: an event the sync cannot apply yet (it waits
// for another event) is reported failed and comes back within seconds, not after the
// queue's visibility timeout.
func TestWorkerRedeliversWaitingEventsSoon(t *testing.T) {
	f := newFixture(t)
	acc := f.env.NewAccount(t, "Stripe waiting")
	ds := ids.New(ids.DataSource)
	f.connect(t, acc.ID, ds, secretA)
	body, sig := signedEvent(t, "evt_wait", stripe.EventTypeInvoicePaymentPaid,
		&stripe.InvoicePayment{ID: "inpay_w", Object: "invoice_payment", Invoice: &stripe.Invoice{ID: "in_w"}}, secretA)
	if status, resp := f.post(t, ds, body, sig, false); status != 200 {
		t.Fatalf("%d %s", status, resp)
	}
	f.deps.Applier = waitingApplier{}
	f.deps.Waiting = func(err error) bool { return errors.Is(err, errWaiting) }
	w := f.env.Workers
	again := &redeliveries{}
	w.Redeliver = again
	batch := f.receive(t)
	resp, err := stripeworkers.RunEvents(w, f.deps)(context.Background(), batch)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.BatchItemFailures) != 1 || len(again.msgs) != 1 || again.msgs[0].MessageId != batch.Records[0].MessageId {
		t.Errorf("failures %v, redelivered soon %d", resp.BatchItemFailures, len(again.msgs))
	}
}
