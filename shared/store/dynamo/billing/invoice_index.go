package billing

import (
	"context"
	"errors"
	"maps"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

type BillingIndexItem struct {
	PK       string                          `dynamodbav:"PK"`
	SK       string                          `dynamodbav:"SK"`
	ET       string                          `dynamodbav:"et"`
	Invoices table.Packed[map[string]int64]  `dynamodbav:"inv"`
	Subs     table.Packed[map[string]int64]  `dynamodbav:"sub"`
	Plans    table.Packed[map[string]string] `dynamodbav:"pl"`
	Events   table.Packed[map[string]int64]  `dynamodbav:"ev"`
	Version  int64                           `dynamodbav:"v"`
}

// GetBillingIndex reads a customer's index; an absent one is empty with Version 0.
func (s *Store) GetBillingIndex(ctx context.Context, accountID, customerUUID string) (store.BillingIndex, error) {
	var it BillingIndexItem
	err := s.t.Get(ctx, keys.BillingIndex(accountID, customerUUID), &it)
	if err == store.ErrNotFound {
		return EmptyBillingIndex(accountID, customerUUID), nil
	}
	if err != nil {
		return EmptyBillingIndex(accountID, customerUUID), err
	}
	return it.Index(accountID, customerUUID), nil
}

func EmptyBillingIndex(accountID, customerUUID string) store.BillingIndex {
	return store.BillingIndex{AccountID: accountID, CustomerUUID: customerUUID,
		Invoices: map[string]int64{}, Subscriptions: map[string]int64{}, Plans: map[string]string{}, Events: map[string]int64{}}
}

func (it BillingIndexItem) Index(accountID, customerUUID string) store.BillingIndex {
	idx := EmptyBillingIndex(accountID, customerUUID)
	maps.Copy(idx.Invoices, it.Invoices.V)
	maps.Copy(idx.Subscriptions, it.Subs.V)
	maps.Copy(idx.Plans, it.Plans.V)
	maps.Copy(idx.Events, it.Events.V)
	idx.Version = it.Version
	return idx
}

// SaveBillingIndex writes next over old, conditional on old's version (ErrConflict
// when another writer got there first: re-read and re-apply). A plan that next adds
// gets its reference before the index is written, and a plan it drops releases its
// reference after: a crash in between can leave one reference too many (the plan
// stays protected), never one too few. This costs two plain writes instead of a
// transaction (which would double the write units; moto also copies the whole table
// for every transaction).
func (s *Store) SaveBillingIndex(ctx context.Context, old, next store.BillingIndex) error {
	var added []string
	for plan, ds := range next.Plans {
		if _, had := old.Plans[plan]; had {
			continue
		}
		switch err := s.plans.MarkPlanReferenced(ctx, next.AccountID, ds, plan); {
		case errors.Is(err, store.ErrNotFound):
			s.undoReferences(ctx, next, added)
			return store.ErrPlanGone
		case err != nil:
			s.undoReferences(ctx, next, added)
			return err
		}
		added = append(added, plan)
	}
	if err := s.PutBillingIndex(ctx, old, next); err != nil {
		s.undoReferences(ctx, next, added)
		return err
	}
	for plan, ds := range old.Plans {
		if _, keeps := next.Plans[plan]; !keeps {
			if err := s.plans.ReleasePlanReference(ctx, next.AccountID, ds, plan); err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
	}
	return nil
}

// PutBillingIndex writes next over old, conditional on old's version (ErrConflict
// when another writer got there first), and leaves the plan references to the
// caller: the import worker takes them for a whole batch at once (AddPlanReferences).
func (s *Store) PutBillingIndex(ctx context.Context, old, next store.BillingIndex) error {
	av, err := attributevalue.MarshalMap(NewBillingIndexItem(next, old.Version+1))
	if err != nil {
		return err
	}
	in := &dynamodb.PutItemInput{Item: av}
	if old.Version == 0 {
		in.ConditionExpression = aws.String(table.ItemAbsent)
	} else {
		in.ConditionExpression = aws.String("v = :v")
		in.ExpressionAttributeValues = map[string]types.AttributeValue{
			":v": &types.AttributeValueMemberN{Value: strconv.FormatInt(old.Version, 10)}}
	}
	_, err = s.t.PutItem(ctx, in)
	return table.Conflict(err)
}

func NewBillingIndexItem(idx store.BillingIndex, version int64) BillingIndexItem {
	k := keys.BillingIndex(idx.AccountID, idx.CustomerUUID)
	return BillingIndexItem{PK: k.PK, SK: k.SK, ET: keys.TypeBillingIndex,
		Invoices: table.Packed[map[string]int64]{V: idx.Invoices}, Subs: table.Packed[map[string]int64]{V: idx.Subscriptions},
		Plans: table.Packed[map[string]string]{V: idx.Plans}, Events: table.Packed[map[string]int64]{V: idx.Events}, Version: version}
}

// undoReferences releases references taken for an index write that did not happen
// (best effort: a failure leaves an extra reference, which is the safe side).
func (s *Store) undoReferences(ctx context.Context, idx store.BillingIndex, plans []string) {
	for _, plan := range plans {
		_ = s.plans.ReleasePlanReference(ctx, idx.AccountID, idx.Plans[plan], plan)
	}
}
