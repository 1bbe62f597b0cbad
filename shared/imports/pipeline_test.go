package imports_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/subsight/subsight/shared/awsclients"
	"github.com/subsight/subsight/shared/imports"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/workers"
)

func progress(t *testing.T, f *fixture, imp model.Import) imports.Progress {
	t.Helper()
	stored, err := f.env.Deps.Store.GetImport(context.Background(), f.acc.ID, f.ds.UUID, imp.ExternalID)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := f.p.Progress(context.Background(), stored)
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

func customerInvoices(t *testing.T, f *fixture, externalID string) (model.Customer, []model.Invoice) {
	t.Helper()
	ctx := context.Background()
	uuid, err := f.env.Deps.Store.CustomerUUIDByExternalID(ctx, f.acc.ID, f.ds.UUID, externalID)
	if err != nil {
		t.Fatalf("customer %s: %v", externalID, err)
	}
	c, err := f.env.Deps.Store.GetCustomer(ctx, f.acc.ID, uuid)
	if err != nil {
		t.Fatalf("customer %s: %v", externalID, err)
	}
	idx, err := f.env.Deps.Store.GetBillingIndex(ctx, f.acc.ID, c.UUID)
	if err != nil {
		t.Fatal(err)
	}
	invs, err := f.env.Deps.Store.OwnedInvoices(ctx, idx, idx.SortedInvoiceUUIDs())
	if err != nil {
		t.Fatal(err)
	}
	return c, invs
}

func TestImportRefusesUsedExternalID(t *testing.T) {
	f := setup(t)
	f.accept(t, payload("once", 1, 1, 1000))
	body := []byte(`{"external_id":"once","customers":[{"external_id":"other"}]}`)
	if _, err := f.p.Accept(context.Background(), f.acc, f.ds, body); !errors.Is(err, imports.ErrImportExists) {
		t.Fatalf("want ErrImportExists, got %v", err)
	}
}

func TestImportRedeliveryChangesNothing(t *testing.T) {
	f := setup(t)
	imp := f.accept(t, payload("b1", 2, 3, 1000))
	if n := f.drain(t); n != 2 {
		t.Fatalf("applied %d messages", n)
	}
	before := f.snapshot(t)
	// The same messages again, as SQS may redeliver them.
	for _, cus := range []string{"cus-0", "cus-1"} {
		m := messageOf(f, imp, cus)
		if err := f.p.ApplyMessages(context.Background(), []imports.Delivery{{Message: m, Redelivered: true}})[0]; err != nil {
			t.Fatal(err)
		}
	}
	if d := diff(before, f.snapshot(t)); len(d) != 0 {
		t.Fatalf("redelivery changed %v", d)
	}
	if pr := progress(t, f, imp); pr.Status != model.ImportCompleted || len(pr.Customers) != 2 {
		t.Fatalf("progress %+v", pr)
	}
}

// messageOf is the queue message of a customer of the payload (cus-N is the N-th
// part: ten parts per S3 object, in payload order).
func messageOf(f *fixture, imp model.Import, cus string) imports.Message {
	n, _ := strconv.Atoi(strings.TrimPrefix(cus, "cus-"))
	return imports.Message{Version: 2, AccountID: f.acc.ID, DataSourceUUID: f.ds.UUID, ImportID: imp.ID,
		CustomerExternalID: cus, System: f.ds.System, Currency: "USD", Index: n % 10,
		Key: "imports/" + f.acc.ID + "/" + f.ds.UUID + "/" + imp.ID + "/" + strconv.Itoa(n/10) + ".json"}
}

func TestImportCrashBetweenWritesIsCompletedByTheRetry(t *testing.T) {
	// Every step's crash is completed by the retry, and the plan keeps exactly one
	// reference: a new customer's index is written with the existing customers' ones,
	// before the step, so the retry finds its plan referenced (a crash between the
	// references and the index would leave one too many: the safe side).
	wantReferences := map[string]int{"customer": 1, "index": 1, "records": 1}
	for _, step := range []string{"customer", "index", "records"} {
		t.Run(step, func(t *testing.T) {
			f := setup(t)
			crashed := false
			f.p.AfterWrite = func(s string) error {
				if s == step && !crashed {
					crashed = true
					return errors.New("simulated crash after " + s)
				}
				return nil
			}
			imp := f.accept(t, payload("crash", 1, 3, 1000))
			if n := f.drain(t); n != 1 {
				t.Fatalf("applied %d", n)
			}
			if !crashed {
				t.Fatal("the crash was not simulated")
			}
			c, invs := customerInvoices(t, f, "cus-0")
			if len(invs) != 3 {
				t.Fatalf("%d invoices after the retry", len(invs))
			}
			for _, inv := range invs {
				if len(inv.LineItems) != 1 || len(inv.Transactions) != 1 {
					t.Fatalf("invoice %+v", inv)
				}
			}
			pl, err := f.env.Deps.Store.GetPlanByExternalID(context.Background(), f.acc.ID, f.ds.UUID, "gold")
			if err != nil {
				t.Fatal(err)
			}
			if pl.References != wantReferences[step] {
				t.Fatalf("plan references %d, want %d (customer %s)", pl.References, wantReferences[step], c.UUID)
			}
			if pr := progress(t, f, imp); pr.Status != model.ImportCompleted || pr.Customers[0].Status != model.RecordsImported {
				t.Fatalf("progress %+v", pr)
			}
		})
	}
}

func TestImportDeadLetterMarksTheCustomerFailed(t *testing.T) {
	f := setup(t)
	imp := f.accept(t, payload("dlq", 1, 1, 1000))
	f.p.AfterWrite = func(string) error { return errors.New("always failing") }
	m := messageOf(f, imp, "cus-0")
	body := mustJSON(t, m)
	handler := workers.ImportWith(f.p, 3, awsclients.Throttled)
	for receive := 1; receive <= 3; receive++ {
		ev := events.SQSEvent{Records: []events.SQSMessage{{MessageId: "m1", Body: body,
			Attributes: map[string]string{"ApproximateReceiveCount": itoa(receive), "MessageGroupId": m.Group()}}}}
		resp, err := handler(context.Background(), ev)
		if err != nil || len(resp.BatchItemFailures) != 1 {
			t.Fatalf("receive %d: %v %+v", receive, err, resp)
		}
		pr := progress(t, f, imp)
		if receive < 3 && len(pr.Customers) != 0 {
			t.Fatalf("marked failed before the last attempt: %+v", pr)
		}
		if receive == 3 && (pr.Status != model.ImportCompleted || pr.Customers[0].Status != model.RecordsFailed) {
			t.Fatalf("after the last attempt: %+v", pr)
		}
	}
}

func TestImportThroughTheQueueDeadLetter(t *testing.T) {
	f := setup(t)
	f.p.AfterWrite = func(string) error { return errors.New("always failing") }
	imp := f.accept(t, payload("dlq2", 1, 1, 1000))
	for range 20 { // maxReceiveCount in template.yaml
		f.drainOnce(t)
	}
	if n, _ := f.drainOnce(t); n != 0 { // the next receive moves it to the DLQ instead
		t.Fatalf("message still delivered after maxReceiveCount")
	}
	out, err := f.env.Deps.Clients.SQS.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(f.env.ImportDLQURL)})
	if err != nil || len(out.Messages) != 1 {
		t.Fatalf("dead-letter queue: %v %d", err, len(out.Messages))
	}
	pr := progress(t, f, imp)
	if pr.Status != model.ImportCompleted || len(pr.Customers) != 1 || pr.Customers[0].Status != model.RecordsFailed {
		t.Fatalf("progress %+v", pr)
	}
}

func TestImportResendUnderNewExternalIDChangesOnlyChangedRecords(t *testing.T) {
	f := setup(t)
	f.accept(t, payload("first", 2, 2, 1000))
	f.drain(t)
	before := f.snapshot(t)
	p := payload("second", 2, 2, 1000)
	// One line item changes amount (and its payment stays within it).
	p["line_items"].([]any)[1].(map[string]any)["amount_in_cents"] = 1500
	f.accept(t, p)
	f.drain(t)
	changed := diff(before, f.snapshot(t))
	_, invs := customerInvoices(t, f, "cus-0")
	if len(changed) != 1 {
		t.Fatalf("changed %v", changed)
	}
	target := invs[1]
	if target.LineItems[0].AmountInCents != 1500 {
		t.Fatalf("amount %d", target.LineItems[0].AmountInCents)
	}
	if changed[0] != f.acc.ID+"#INV#"+target.UUID+"|INVOICE" {
		t.Fatalf("changed %v, want the invoice %s", changed, target.UUID)
	}
}

func TestTwoImportsForOneCustomerApplyInOrder(t *testing.T) {
	f := setup(t)
	f.accept(t, payload("one", 1, 1, 1000))
	f.accept(t, payload("two", 1, 1, 2000))
	f.drain(t)
	_, invs := customerInvoices(t, f, "cus-0")
	if len(invs) != 1 || invs[0].LineItems[0].AmountInCents != 2000 {
		t.Fatalf("invoices %+v", invs)
	}
}

func TestImportReferencesEarlierInvoicesAndFailsRecordsAlone(t *testing.T) {
	f := setup(t)
	f.accept(t, payload("one", 1, 1, 1000))
	f.drain(t)
	// A refund of the earlier invoice, a line item with an unknown plan and a new invoice.
	imp := f.accept(t, map[string]any{"external_id": "two",
		"invoices": []any{map[string]any{"external_id": "new-inv", "customer_external_id": "cus-0", "date": "2024-06-01", "currency": "USD"}},
		"line_items": []any{
			map[string]any{"invoice_external_id": "new-inv", "type": "one_time", "amount_in_cents": 500},
			map[string]any{"invoice_external_id": "new-inv", "type": "subscription", "amount_in_cents": 700,
				"plan_external_id": "nope", "subscription_external_id": "x", "service_period_start": "2024-06-01"},
		},
		"transactions": []any{map[string]any{"invoice_external_id": "cus-0-inv-0", "type": "refund", "result": "successful",
			"date": "2024-02-01", "amount_in_cents": 300}},
	})
	f.drain(t)
	pr := progress(t, f, imp)
	if pr.Status != model.ImportCompleted || len(pr.Customers) != 1 {
		t.Fatalf("progress %+v", pr)
	}
	st := pr.Customers[0]
	if st.LineItems.Status != model.RecordsFailed || len(st.LineItems.Errors) != 1 || st.Invoices.Status != model.RecordsImported ||
		st.Transactions.Status != model.RecordsImported {
		t.Fatalf("status %+v", st)
	}
	_, invs := customerInvoices(t, f, "cus-0")
	if len(invs) != 2 || len(invs[0].Transactions) != 2 || len(invs[1].LineItems) != 1 {
		t.Fatalf("invoices %+v", invs)
	}
	// A line item of an invoice that exists nowhere is refused at intake.
	_, err := f.p.Accept(context.Background(), f.acc, f.ds, []byte(`{"external_id":"three","line_items":[{"invoice_external_id":"ghost","type":"one_time","amount_in_cents":1}]}`))
	var fe *model.FieldError
	if !errors.As(err, &fe) || fe.Param() != "line_items[0].invoice_external_id" {
		t.Fatalf("want a field error, got %v", err)
	}
}
