package main

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/api/crm"
	"github.com/subsight/subsight/shared/api/customers"
	"github.com/subsight/subsight/shared/api/jsonimports"
	"github.com/subsight/subsight/shared/api/metricsapi"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/auth"
	"github.com/subsight/subsight/shared/blobs"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/workers"
)

// accountImport is a json_import of two customers with a plan, monthly invoices with
// line items and payments, and a subscription event each.
func accountImport(external string, month func(int) string) map[string]any {
	var cs, invs, lines, txs, evs []any
	for _, ext := range []string{"c1", "c2"} {
		cs = append(cs, map[string]any{"external_id": ext, "name": "Customer " + ext, "email": ext + "@example.com"})
		for m := -2; m <= 0; m++ {
			inv := fmt.Sprintf("%s-%s-inv%d", external, ext, -m)
			invs = append(invs, map[string]any{"external_id": inv, "customer_external_id": ext, "date": month(m), "currency": "USD"})
			lines = append(lines, map[string]any{"invoice_external_id": inv, "type": "subscription", "amount_in_cents": 5000,
				"plan_external_id": "monthly", "subscription_external_id": ext + "-sub", "service_period_start": month(m),
				"service_period_end": month(m + 1), "external_id": inv + "-li"})
			txs = append(txs, map[string]any{"invoice_external_id": inv, "type": "payment", "result": "successful",
				"date": month(m), "external_id": inv + "-tx"})
		}
		evs = append(evs, map[string]any{"customer_external_id": ext, "event_type": "subscription_cancellation_scheduled",
			"event_date": month(0), "effective_date": month(2), "subscription_external_id": ext + "-sub", "external_id": external + ext + "-ev"})
	}
	return map[string]any{"external_id": external, "customers": cs,
		"plans":    []any{map[string]any{"external_id": "monthly", "name": "Monthly", "interval_count": 1, "interval_unit": "month"}},
		"invoices": invs, "line_items": lines, "transactions": txs, "subscription_events": evs}
}

// populate gives an account data of every kind through the API and the workers:
// customers, plans, invoices, events, contacts, notes, an import with its payload in the
// bucket, an activities export with its file, the metrics series; then queues work it
// leaves in flight: a second import and a customer's recomputation.
func populate(t *testing.T, te *testenv.Env, accountID string) {
	t.Helper()
	ctx := context.Background()
	d := te.API
	call := func(ep func(*api.Deps) apigw.Endpoint, method, route string, params map[string]string, body any, want int) map[string]any {
		t.Helper()
		status, got := apigwtest.Do(t, ep(d), apigwtest.Call{Method: method, Route: route, PathParams: params, Body: body, AccountID: accountID})
		if status != want {
			t.Fatalf("%s %s: %d %v", method, route, status, got)
		}
		return got
	}
	now := te.Deps.Now().UTC()
	month := func(m int) string { return now.AddDate(0, m, 0).Format("2006-01-02") }
	ds := te.NewDataSource(t, accountID, "Billing")
	// A Stripe connection is a global item (found by the data source's uuid alone).
	if err := d.Store.PutStripeConnection(ctx, model.StripeConnection{AccountID: accountID, DataSourceUUID: ds.UUID,
		SealedWebhookSecret: []byte("sealed"), Settings: model.DefaultStripeSettings(), ConnectedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	route := "/v1/data_sources/{data_source_uuid}/json_imports"
	call(jsonimports.CreateJSONImport, "POST", route, map[string]string{"data_source_uuid": ds.UUID}, accountImport("first", month), http.StatusOK)
	te.DrainWorkers(t)
	page, err := d.Store.ListCustomers(ctx, accountID, store.CustomerFilter{DataSourceUUID: ds.UUID}, 10, nil)
	if err != nil || len(page.Items) != 2 {
		t.Fatalf("customers: %v %d", err, len(page.Items))
	}
	cus := page.Items[0].UUID
	call(customers.CreateContact, "POST", "/v1/contacts", nil, map[string]any{"customer_uuid": cus, "data_source_uuid": ds.UUID,
		"email": "contact@example.com", "first_name": "Con"}, http.StatusCreated)
	call(crm.CreateCustomerNote, "POST", "/v1/customer_notes", nil, map[string]any{"customer_uuid": cus, "type": "note", "text": "hello"}, http.StatusCreated)
	call(metricsapi.CreateActivitiesExport, "POST", "/v1/activities_export", nil, map[string]any{}, http.StatusOK)
	te.DrainJobs(t, workers.Jobs(te.Workers))
	// In flight: a second import fed to the import queue but not applied, a
	// recomputation not yet run.
	call(jsonimports.CreateJSONImport, "POST", route, map[string]string{"data_source_uuid": ds.UUID}, accountImport("second", month), http.StatusOK)
	for queued(t, te, te.ImportQueueURL) == 0 {
		time.Sleep(200 * time.Millisecond) // the feed message waits for the feeder queue's delay
		testenv.Drain(t, te.Deps, te.Deps.Config.ImportFeedQueueURL, workers.ImportFeeder(te.Workers))
	}
	call(customers.UpdateCustomer, "PATCH", "/v1/customers/{customer_uuid}", map[string]string{"customer_uuid": cus},
		map[string]any{"name": "Renamed"}, http.StatusOK)
}

// TestDeleteAccount: an account with data of every kind and work in flight is deleted;
// the workers then drop its queued messages; a scan of the table and a listing of the
// bucket find nothing of it, and the other account's items and objects are untouched.
func TestDeleteAccount(t *testing.T) {
	te := testenv.New(t)
	ctx := context.Background()
	e := env{store: te.Deps.Store, jobs: te.Deps.Jobs, objects: blobs.New(te.AWS, te.ImportBucket)}
	var ids, apiKeys []string
	for _, name := range []string{"Doomed", "Kept"} {
		created, err := runCmd(t, e, "create-account", "-name", name)
		if err != nil {
			t.Fatal(err)
		}
		ids, apiKeys = append(ids, created["account_id"].(string)), append(apiKeys, created["api_key"].(string))
	}
	doomed, kept := ids[0], ids[1]
	// The other account's work in flight is done by the doomed one's drains; the
	// doomed one's is left in the queues.
	populate(t, te, kept)
	populate(t, te, doomed)

	if queued(t, te, te.ImportQueueURL) == 0 || queued(t, te, te.JobsQueueURL) == 0 {
		t.Fatal("no work of the doomed account in flight")
	}
	keptItems, keptObjects := len(itemsNaming(t, te, kept)), len(objectsNaming(t, te, kept))
	if n := len(itemsNaming(t, te, doomed)); n < 50 || len(objectsNaming(t, te, doomed)) < 3 {
		t.Fatalf("the doomed account has only %d items and %v objects", n, objectsNaming(t, te, doomed))
	}

	doomedKeys, err := te.Deps.Store.ListAPIKeys(ctx, doomed)
	if err != nil || len(doomedKeys) != 1 {
		t.Fatalf("keys: %v %v", doomedKeys, err)
	}
	out, err := runCmd(t, e, "delete-account", "-account", doomed, "-settle", "0s")
	if err != nil {
		t.Fatal(err)
	}
	if out["status"] != "deleted" || out["items"].(float64) < 50 {
		t.Fatalf("delete-account printed %v", out)
	}
	if got, err := te.Deps.Store.AccountForKeyHash(ctx, auth.Hash(apiKeys[0])); err == nil && got != "" {
		t.Fatalf("the deleted account's key still resolves to %q", got)
	}
	// A request that API Gateway's cached authorizer answer still admits for the account
	// meets the rate gate, which finds the account's rate item gone.
	if status, body := apigwtest.Do(t, customers.ListCustomers(te.API), apigwtest.Call{Method: "GET", Route: "/v1/customers",
		AccountID: doomed, KeyID: doomedKeys[0].ID}); status != http.StatusUnauthorized {
		t.Errorf("a request of the deleted account: %d %v", status, body)
	}
	// What was queued before the deletion arrives now: the workers find the account gone.
	te.DrainWorkers(t)

	if left := itemsNaming(t, te, doomed); len(left) > 0 {
		t.Errorf("%d items of the deleted account left, e.g. %v", len(left), left[0])
	}
	if left := objectsNaming(t, te, doomed); len(left) > 0 {
		t.Errorf("objects of the deleted account left: %v", left)
	}
	if n := len(itemsNaming(t, te, kept)); n != keptItems {
		t.Errorf("the other account has %d items, had %d", n, keptItems)
	}
	if n := len(objectsNaming(t, te, kept)); n != keptObjects {
		t.Errorf("the other account has %d objects, had %d", n, keptObjects)
	}
	if got, err := te.Deps.Store.AccountForKeyHash(ctx, auth.Hash(apiKeys[1])); err != nil || got != kept {
		t.Errorf("the other account's key: %q %v", got, err)
	}
}

// itemsNaming scans the whole table for items whose key or any text attribute holds the
// account id.
func itemsNaming(t *testing.T, te *testenv.Env, accountID string) []string {
	t.Helper()
	var out []string
	p := dynamodb.NewScanPaginator(te.Deps.Clients.DynamoDB, &dynamodb.ScanInput{TableName: aws.String(te.TableName)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range page.Items {
			for _, v := range item {
				if s, ok := v.(*types.AttributeValueMemberS); ok && strings.Contains(s.Value, accountID) {
					out = append(out, fmt.Sprint(textOf(item["PK"]), " ", textOf(item["SK"])))
					break
				}
			}
		}
	}
	return out
}

func textOf(v types.AttributeValue) string {
	if s, ok := v.(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// objectsNaming lists the bucket's objects whose key holds the account id.
func objectsNaming(t *testing.T, te *testenv.Env, accountID string) []string {
	t.Helper()
	var out []string
	p := s3.NewListObjectsV2Paginator(te.S3(), &s3.ListObjectsV2Input{Bucket: aws.String(te.ImportBucket)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Contents {
			if strings.Contains(aws.ToString(o.Key), accountID) {
				out = append(out, aws.ToString(o.Key))
			}
		}
	}
	return out
}

// queued is how many messages a queue holds, visible or in flight.
func queued(t *testing.T, te *testenv.Env, queueURL string) int {
	t.Helper()
	out, err := te.Deps.Clients.SQS.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(queueURL),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages}})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(out.Attributes[string(sqstypes.QueueAttributeNameApproximateNumberOfMessages)])
	return n
}
