package imports_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/awsclients"
	"github.com/subsight/subsight/shared/imports"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/sqsworker"
	"github.com/subsight/subsight/shared/workers"
)

func TestMain(m *testing.M) { testenv.Main(m) }

type fixture struct {
	env     *testenv.Env
	acc     model.Account
	ds      model.DataSource
	p       *imports.Pipeline
	handler sqsworker.Handler
}

func setup(t testing.TB) *fixture {
	t.Helper()
	env := testenv.New(t)
	acc := env.NewAccount(t, "Importer")
	ds := env.NewDataSource(t, acc.ID, "Billing")
	p := *env.Deps.Imports // the tests change AfterWrite
	return &fixture{env: env, acc: acc, ds: ds, p: &p, handler: workers.ImportCounted(&p, 20, awsclients.Throttled)}
}

func (f *fixture) accept(t *testing.T, payload map[string]any) model.Import {
	t.Helper()
	body, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	imp, err := f.p.Accept(context.Background(), f.acc, f.ds, body)
	if err != nil {
		t.Fatalf("accept: %v", err)
	}
	return imp
}

// drain feeds the import queue to the worker as Lambda does until it is empty and
// returns how many messages were applied.
func (f *fixture) drain(t testing.TB) int {
	t.Helper()
	done, idle := 0, 0
	for idle < 2 {
		received, ok := f.drainOnce(t)
		if received == 0 {
			idle++
			continue
		}
		idle = 0
		done += ok
	}
	return done
}

// drainOnce receives one batch, runs the worker on it, deletes what succeeded and
// releases what failed; it returns how many messages it received and applied.
func (f *fixture) drainOnce(t testing.TB) (int, int) {
	t.Helper()
	ctx := context.Background()
	f.feed(t)
	c := f.env.Deps.Clients.SQS
	out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(f.env.ImportQueueURL),
		MaxNumberOfMessages: 10, MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Messages) == 0 {
		return 0, 0
	}
	ev := events.SQSEvent{}
	for _, m := range out.Messages {
		ev.Records = append(ev.Records, events.SQSMessage{MessageId: aws.ToString(m.MessageId), Body: aws.ToString(m.Body),
			ReceiptHandle: aws.ToString(m.ReceiptHandle), Attributes: m.Attributes})
	}
	resp, err := f.handler(ctx, ev)
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]bool{}
	for _, x := range resp.BatchItemFailures {
		failed[x.ItemIdentifier] = true
	}
	done := 0
	for _, m := range out.Messages {
		if failed[aws.ToString(m.MessageId)] {
			_, err = c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(f.env.ImportQueueURL),
				ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0})
		} else {
			done++
			_, err = c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(f.env.ImportQueueURL), ReceiptHandle: m.ReceiptHandle})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return len(out.Messages), done
}

// feed runs the account's lane feeder once, as its feed message would (the feeder
// queue's messages themselves are left unread).
func (f *fixture) feed(t testing.TB) {
	t.Helper()
	if err := f.p.Feed(context.Background(), f.acc.ID); err != nil {
		t.Fatalf("feed: %v", err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func itoa(n int) string { return strconv.Itoa(n) }

// snapshot is every item of the table as JSON, keyed by PK|SK, without the items
// every import writes anew (import records, their customer statuses, the lane).
func (f *fixture) snapshot(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	p := dynamodb.NewScanPaginator(f.env.Deps.Clients.DynamoDB, &dynamodb.ScanInput{TableName: aws.String(f.env.TableName)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			var m map[string]any
			if err := attributevalue.UnmarshalMap(it, &m); err != nil {
				t.Fatal(err)
			}
			switch m["et"] {
			case "json_import", "json_import_locator", "json_import_customer", "counter", "import_records_window", "import_in_flight", "import_lane", "import_lane_import":
				continue
			}
			b, _ := json.Marshal(m)
			out[fmt.Sprint(m["PK"], "|", m["SK"])] = string(b)
		}
	}
	return out
}

func diff(a, b map[string]string) []string {
	var out []string
	for k, v := range b {
		if a[k] != v {
			out = append(out, k)
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			out = append(out, "-"+k)
		}
	}
	sort.Strings(out)
	return out
}

// payload builds an import of n customers with the plan "gold", months monthly
// invoices each (a subscription line item and a payment) and a start event.
func payload(externalID string, n, months int, amount int) map[string]any {
	var customers, invoices, lines, txs, evs []any
	for c := range n {
		cid := "cus-" + strconv.Itoa(c)
		customers = append(customers, map[string]any{"external_id": cid, "name": "Customer " + cid, "email": cid + "@example.com"})
		for m := range months {
			iid := cid + "-inv-" + strconv.Itoa(m)
			start := fmt.Sprintf("2024-%02d-01", m+1)
			end := fmt.Sprintf("2024-%02d-01", m+2)
			if m == 11 {
				end = "2025-01-01"
			}
			invoices = append(invoices, map[string]any{"external_id": iid, "customer_external_id": cid, "date": start, "currency": "USD"})
			lines = append(lines, map[string]any{"invoice_external_id": iid, "type": "subscription", "amount_in_cents": amount,
				"plan_external_id": "gold", "subscription_external_id": cid + "-sub", "service_period_start": start,
				"service_period_end": end, "external_id": iid + "-li"})
			txs = append(txs, map[string]any{"invoice_external_id": iid, "type": "payment", "result": "successful", "date": start,
				"external_id": iid + "-tr"})
		}
		evs = append(evs, map[string]any{"customer_external_id": cid, "event_type": "subscription_start", "event_date": "2024-01-01",
			"effective_date": "2024-01-01", "subscription_external_id": cid + "-sub", "plan_external_id": "gold",
			"currency": "USD", "amount_in_cents": amount, "external_id": cid + "-ev"})
	}
	return map[string]any{"external_id": externalID, "customers": customers,
		"plans":    []any{map[string]any{"external_id": "gold", "name": "Gold", "interval_count": 1, "interval_unit": "month"}},
		"invoices": invoices, "line_items": lines, "transactions": txs, "subscription_events": evs}
}
