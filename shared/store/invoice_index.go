package store

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
)

// BillingIndex lists one customer's invoices and subscriptions (their items live in
// their own partitions, found by uuid) and the plans they use. One item per customer
// replaces a per-invoice index entry: a customer's listing is one read plus one batch
// read, and an import message pays one index write for all its invoices.
type BillingIndex struct {
	AccountID    string
	CustomerUUID string
	// Invoices maps invoice uuid -> invoice date (Unix seconds), the listing order.
	Invoices map[string]int64
	// Subscriptions maps subscription uuid -> creation time (Unix nanoseconds).
	Subscriptions map[string]int64
	// Plans maps plan uuid -> its data source for every plan the customer's line items
	// use; each entry holds one reference on the plan (store.PlanReference).
	Plans map[string]string
	// Events maps subscription event id (decimal) -> effective date (Unix seconds):
	// the customer's events, which recompute reads by id.
	Events map[string]int64
	// Version is 0 while the item does not exist.
	Version int64
}

type billingIndexItem struct {
	PK       string                    `dynamodbav:"PK"`
	SK       string                    `dynamodbav:"SK"`
	ET       string                    `dynamodbav:"et"`
	Invoices packed[map[string]int64]  `dynamodbav:"inv"`
	Subs     packed[map[string]int64]  `dynamodbav:"sub"`
	Plans    packed[map[string]string] `dynamodbav:"pl"`
	Events   packed[map[string]int64]  `dynamodbav:"ev"`
	Version  int64                     `dynamodbav:"v"`
}

// GetBillingIndex reads a customer's index; an absent one is empty with Version 0.
func (s *Store) GetBillingIndex(ctx context.Context, accountID, customerUUID string) (BillingIndex, error) {
	var it billingIndexItem
	err := s.get(ctx, keys.BillingIndex(accountID, customerUUID), &it)
	if err == ErrNotFound {
		return emptyBillingIndex(accountID, customerUUID), nil
	}
	if err != nil {
		return emptyBillingIndex(accountID, customerUUID), err
	}
	return it.index(accountID, customerUUID), nil
}

func emptyBillingIndex(accountID, customerUUID string) BillingIndex {
	return BillingIndex{AccountID: accountID, CustomerUUID: customerUUID,
		Invoices: map[string]int64{}, Subscriptions: map[string]int64{}, Plans: map[string]string{}, Events: map[string]int64{}}
}

func (it billingIndexItem) index(accountID, customerUUID string) BillingIndex {
	idx := emptyBillingIndex(accountID, customerUUID)
	maps.Copy(idx.Invoices, it.Invoices.V)
	maps.Copy(idx.Subscriptions, it.Subs.V)
	maps.Copy(idx.Plans, it.Plans.V)
	maps.Copy(idx.Events, it.Events.V)
	idx.Version = it.Version
	return idx
}

// Clone returns a copy that can be changed without touching idx.
func (idx BillingIndex) Clone() BillingIndex {
	idx.Invoices = maps.Clone(idx.Invoices)
	idx.Subscriptions = maps.Clone(idx.Subscriptions)
	idx.Plans = maps.Clone(idx.Plans)
	idx.Events = maps.Clone(idx.Events)
	return idx
}

// SaveBillingIndex writes next over old, conditional on old's version (ErrConflict
// when another writer got there first: re-read and re-apply). A plan that next adds
// gets its reference before the index is written, and a plan it drops releases its
// reference after: a crash in between can leave one reference too many (the plan
// stays protected), never one too few. This costs two plain writes instead of a
// transaction (which would double the write units; moto also copies the whole table
// for every transaction).
func (s *Store) SaveBillingIndex(ctx context.Context, old, next BillingIndex) error {
	var added []string
	for plan, ds := range next.Plans {
		if _, had := old.Plans[plan]; had {
			continue
		}
		switch err := s.MarkPlanReferenced(ctx, next.AccountID, ds, plan); {
		case errors.Is(err, ErrNotFound):
			s.undoReferences(ctx, next, added)
			return ErrPlanGone
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
			if err := s.ReleasePlanReference(ctx, next.AccountID, ds, plan); err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
		}
	}
	return nil
}

// PutBillingIndex writes next over old, conditional on old's version (ErrConflict
// when another writer got there first), and leaves the plan references to the
// caller: the import worker takes them for a whole batch at once (AddPlanReferences).
func (s *Store) PutBillingIndex(ctx context.Context, old, next BillingIndex) error {
	av, err := attributevalue.MarshalMap(newBillingIndexItem(next, old.Version+1))
	if err != nil {
		return err
	}
	in := &dynamodb.PutItemInput{TableName: &s.table, Item: av, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
	if old.Version == 0 {
		in.ConditionExpression = aws.String("attribute_not_exists(PK)")
	} else {
		in.ConditionExpression = aws.String("v = :v")
		in.ExpressionAttributeValues = map[string]types.AttributeValue{
			":v": &types.AttributeValueMemberN{Value: strconv.FormatInt(old.Version, 10)}}
	}
	_, err = s.db.PutItem(ctx, in)
	return conflict(err)
}

func newBillingIndexItem(idx BillingIndex, version int64) billingIndexItem {
	k := keys.BillingIndex(idx.AccountID, idx.CustomerUUID)
	return billingIndexItem{PK: k.PK, SK: k.SK, ET: keys.TypeBillingIndex,
		Invoices: packed[map[string]int64]{idx.Invoices}, Subs: packed[map[string]int64]{idx.Subscriptions},
		Plans: packed[map[string]string]{idx.Plans}, Events: packed[map[string]int64]{idx.Events}, Version: version}
}

// undoReferences releases references taken for an index write that did not happen
// (best effort: a failure leaves an extra reference, which is the safe side).
func (s *Store) undoReferences(ctx context.Context, idx BillingIndex, plans []string) {
	for _, plan := range plans {
		_ = s.ReleasePlanReference(ctx, idx.AccountID, idx.Plans[plan], plan)
	}
}

// ErrPlanGone: a plan that line items use no longer exists.
var ErrPlanGone = errors.New("plan no longer exists")
