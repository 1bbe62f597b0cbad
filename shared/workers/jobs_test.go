package workers_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/workers"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func sqsMessage(id string, m jobs.Message) events.SQSMessage {
	body := `{"type":"` + m.Type + `","account_id":"` + m.AccountID + `","data_source_uuid":"` + m.DataSourceUUID + `"}`
	return events.SQSMessage{MessageId: id, Body: body}
}

func TestPurgeDataSourceIsIdempotent(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	acc := env.NewAccount(t, "Acme")
	ds, keep := env.NewDataSource(t, acc.ID, "Billing"), env.NewDataSource(t, acc.ID, "Other")
	// Items imported into the source live in its partition.
	for _, sk := range []string{"XID#customer#a", "XID#customer#b", "XID#plan#p"} {
		_, err := env.Deps.Clients.DynamoDB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(env.TableName),
			Item: map[string]types.AttributeValue{
				"PK": &types.AttributeValueMemberS{Value: keys.DataSourcePartition(acc.ID, ds.UUID)},
				"SK": &types.AttributeValueMemberS{Value: sk},
				"et": &types.AttributeValueMemberS{Value: "xid"},
			}})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []model.DataSource{ds, keep} {
		if err := env.Deps.Store.PutStripeConnection(ctx, model.StripeConnection{AccountID: acc.ID, DataSourceUUID: d.UUID,
			SealedWebhookSecret: []byte("sealed"), Settings: model.DefaultStripeSettings()}); err != nil {
			t.Fatal(err)
		}
	}
	handler := workers.Jobs(env.Workers)
	job := jobs.Purge(acc.ID, ds.UUID)
	for attempt := range 2 { // the second delivery finds nothing left to do
		resp, err := handler(ctx, events.SQSEvent{Records: []events.SQSMessage{sqsMessage("m1", job)}})
		if err != nil || len(resp.BatchItemFailures) != 0 {
			t.Fatalf("attempt %d: %v %+v", attempt, err, resp)
		}
	}
	if _, err := env.Deps.Store.GetDataSource(ctx, acc.ID, ds.UUID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("data source survived the purge: %v", err)
	}
	out, err := env.Deps.Clients.DynamoDB.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(env.TableName),
		KeyConditionExpression:    aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: keys.DataSourcePartition(acc.ID, ds.UUID)}}})
	if err != nil || len(out.Items) != 0 {
		t.Fatalf("imported items survived: %v %d", err, len(out.Items))
	}
	if _, err := env.Deps.Store.GetStripeConnection(ctx, ds.UUID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the Stripe connection survived the purge: %v", err)
	}
	if _, err := env.Deps.Store.GetDataSource(ctx, acc.ID, keep.UUID); err != nil {
		t.Fatalf("the other source was touched: %v", err)
	}
	if _, err := env.Deps.Store.GetStripeConnection(ctx, keep.UUID); err != nil {
		t.Fatalf("the other source's Stripe connection was touched: %v", err)
	}
}

func TestJobsBatchStopsAtFirstFailure(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Acme")
	handler := workers.Jobs(env.Workers)
	good := jobs.Purge(acc.ID, "ds_00000000-0000-0000-0000-000000000000")
	bad := jobs.Message{Type: "no_such_job", AccountID: acc.ID}
	resp, err := handler(context.Background(), events.SQSEvent{Records: []events.SQSMessage{
		sqsMessage("m1", good), sqsMessage("m2", bad), sqsMessage("m3", good),
	}})
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, f := range resp.BatchItemFailures {
		failed = append(failed, f.ItemIdentifier)
	}
	if len(failed) != 2 || failed[0] != "m2" || failed[1] != "m3" {
		t.Fatalf("failures %v, want [m2 m3]", failed)
	}
}

func TestPurgeDataSourceDeletesItsCustomers(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	acc := env.NewAccount(t, "Acme")
	ds, keep := env.NewDataSource(t, acc.ID, "Billing"), env.NewDataSource(t, acc.ID, "Other")
	newCustomer := func(dsUUID, xid string) model.Customer { return env.NewCustomer(t, acc.ID, dsUUID, xid) }
	gone1, gone2 := newCustomer(ds.UUID, "a"), newCustomer(ds.UUID, "b")
	kept := newCustomer(keep.UUID, "c")

	resp, err := workers.Jobs(env.Workers)(ctx, events.SQSEvent{Records: []events.SQSMessage{
		sqsMessage("m1", jobs.Purge(acc.ID, ds.UUID)),
	}})
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("%v %+v", err, resp)
	}
	for _, c := range []model.Customer{gone1, gone2} {
		if _, err := env.Deps.Store.GetCustomer(ctx, acc.ID, c.UUID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("customer %s of the purged source survived: %v", c.ExternalID, err)
		}
	}
	if _, err := env.Deps.Store.GetCustomer(ctx, acc.ID, kept.UUID); err != nil {
		t.Errorf("customer of the other source was deleted: %v", err)
	}
}
