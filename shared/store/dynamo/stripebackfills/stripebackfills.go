// Package stripebackfills keeps the data sources' Stripe backfills: one item per data
// source, its latest backfill, in the data source's partition (keys.StripeBackfill).
package stripebackfills

import (
	"context"
	"errors"
	"reflect"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// Store is the Stripe backfills' store.
type Store struct {
	t *table.Table
}

var _ store.StripeBackfills = (*Store)(nil)

// New returns the Stripe backfills' store on t.
func New(t *table.Table) *Store { return &Store{t: t} }

type item struct {
	PK          string                     `dynamodbav:"PK"`
	SK          string                     `dynamodbav:"SK"`
	ET          string                     `dynamodbav:"et"`
	ID          string                     `dynamodbav:"id"`
	Status      string                     `dynamodbav:"status"`
	Counts      model.StripeBackfillCounts `dynamodbav:"counts"`
	Requests    int64                      `dynamodbav:"requests"`
	Cursor      string                     `dynamodbav:"cursor,omitempty"`
	Pages       int                        `dynamodbav:"pages"`
	LastError   string                     `dynamodbav:"error,omitempty"`
	RequestedAt time.Time                  `dynamodbav:"ra"`
	StartedAt   *time.Time                 `dynamodbav:"sa,omitempty"`
	FinishedAt  *time.Time                 `dynamodbav:"fa,omitempty"`
	UpdatedAt   time.Time                  `dynamodbav:"ua"`
}

func toItem(b model.StripeBackfill) item {
	k := keys.StripeBackfill(b.AccountID, b.DataSourceUUID)
	return item{PK: k.PK, SK: k.SK, ET: keys.TypeStripeBackfill, ID: b.ID, Status: b.Status, Counts: b.Counts,
		Requests: b.Requests, Cursor: b.Cursor, Pages: b.Pages, LastError: b.LastError, RequestedAt: b.RequestedAt,
		StartedAt: optTime(b.StartedAt), FinishedAt: optTime(b.FinishedAt), UpdatedAt: b.UpdatedAt}
}

func (it item) backfill(accountID, dsUUID string) model.StripeBackfill {
	b := model.StripeBackfill{AccountID: accountID, DataSourceUUID: dsUUID, ID: it.ID, Status: it.Status, Counts: it.Counts,
		Requests: it.Requests, Cursor: it.Cursor, Pages: it.Pages, LastError: it.LastError, RequestedAt: it.RequestedAt,
		UpdatedAt: it.UpdatedAt}
	if it.StartedAt != nil {
		b.StartedAt = *it.StartedAt
	}
	if it.FinishedAt != nil {
		b.FinishedAt = *it.FinishedAt
	}
	return b
}

func optTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// StartStripeBackfill writes b over a finished backfill (or none) with one conditional
// PutItem: two requests racing start one backfill, the other gets store.ErrConflict.
func (s *Store) StartStripeBackfill(ctx context.Context, b model.StripeBackfill) error {
	return s.put(ctx, b, "attribute_not_exists(PK) OR #s IN (:done, :failed)", map[string]types.AttributeValue{
		":done": table.SAttr(model.BackfillDone), ":failed": table.SAttr(model.BackfillFailed)})
}

// GetStripeBackfill reads a data source's latest backfill.
func (s *Store) GetStripeBackfill(ctx context.Context, accountID, dsUUID string) (model.StripeBackfill, error) {
	return table.GetOne(ctx, s.t, keys.StripeBackfill(accountID, dsUUID), func(it item) model.StripeBackfill {
		return it.backfill(accountID, dsUUID)
	})
}

// SaveStripeBackfill replaces the backfill's item with one conditional PutItem (the
// item is small and wholly the step's).
func (s *Store) SaveStripeBackfill(ctx context.Context, b model.StripeBackfill, pages int) error {
	return s.put(ctx, b, "#id = :id AND #p = :pages AND #s IN (:queued, :running)", map[string]types.AttributeValue{
		":id": table.SAttr(b.ID), ":pages": table.NAttr(int64(pages)),
		":queued": table.SAttr(model.BackfillQueued), ":running": table.SAttr(model.BackfillRunning)})
}

func (s *Store) put(ctx context.Context, b model.StripeBackfill, cond string, values map[string]types.AttributeValue) error {
	av, err := attributevalue.MarshalMap(toItem(b))
	if err != nil {
		return err
	}
	names := map[string]string{"#s": "status"}
	if _, ok := values[":id"]; ok {
		names["#id"], names["#p"] = "id", "pages"
	}
	_, err = s.t.PutItem(ctx, &dynamodb.PutItemInput{Item: av, ConditionExpression: aws.String(cond),
		ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
	// The SDK's retry of a write applied whose answer was lost finds its own item: done.
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) && reflect.DeepEqual(ccf.Item, av) {
		return nil
	}
	return table.Conflict(err)
}
