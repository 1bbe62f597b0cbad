// Package stripestate stores what the Stripe source keeps between events in the single
// table: markers of the events applied (expiring), the state of each Stripe object and
// the prices seen, all in the data source's partitions (keys.StripeEvent,
// keys.StripeObject, keys.StripePrice).
package stripestate

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// Store reads and writes the Stripe source's items.
type Store struct {
	t *table.Table
}

// New returns the Stripe source's store on t.
func New(t *table.Table) *Store { return &Store{t: t} }

var _ store.StripeSync = (*Store)(nil)

type eventItem struct {
	PK        string `dynamodbav:"PK"`
	SK        string `dynamodbav:"SK"`
	Type      string `dynamodbav:"et"`
	ExpiresAt int64  `dynamodbav:"expires_at"`
}

// StripeEventApplied reads the marker (one consistent GetItem: a redelivery follows
// the first attempt closely).
func (s *Store) StripeEventApplied(ctx context.Context, accountID, dsUUID, eventID string) (bool, error) {
	var it eventItem
	err := s.t.Get(ctx, keys.StripeEvent(accountID, dsUUID, eventID), &it)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// MarkStripeEventApplied puts the marker unless one is there.
func (s *Store) MarkStripeEventApplied(ctx context.Context, accountID, dsUUID, eventID string, expiresAt time.Time) error {
	k := keys.StripeEvent(accountID, dsUUID, eventID)
	err := s.t.PutNew(ctx, eventItem{PK: k.PK, SK: k.SK, Type: keys.TypeStripeEvent, ExpiresAt: expiresAt.Unix()})
	if errors.Is(err, store.ErrConflict) {
		return nil // marked by an earlier attempt
	}
	return err
}

type objectItem struct {
	PK         string            `dynamodbav:"PK"`
	SK         string            `dynamodbav:"SK"`
	Type       string            `dynamodbav:"et"`
	ID         string            `dynamodbav:"id"`
	Created    int64             `dynamodbav:"cr,omitempty"`
	Rank       int               `dynamodbav:"rk,omitempty"`
	Customer   string            `dynamodbav:"cu,omitempty"`
	Invoice    string            `dynamodbav:"in,omitempty"`
	TrialStart int64             `dynamodbav:"tr,omitempty"`
	Deleted    bool              `dynamodbav:"del,omitempty"`
	Items      map[string]string `dynamodbav:"items,omitempty"`
	Misses     int               `dynamodbav:"mi,omitempty"`
	Version    int64             `dynamodbav:"v"`
}

func (it objectItem) object() store.StripeObject {
	return store.StripeObject{ID: it.ID, Created: it.Created, Rank: it.Rank, Customer: it.Customer, Invoice: it.Invoice,
		TrialStart: it.TrialStart, Deleted: it.Deleted, Items: it.Items, Misses: it.Misses, Version: it.Version}
}

// GetStripeObjects reads the objects' items (consistent BatchGetItem).
func (s *Store) GetStripeObjects(ctx context.Context, accountID, dsUUID string, ids []string) (map[string]store.StripeObject, error) {
	return table.GetMany(ctx, s.t, ids, func(id string) keys.Key { return keys.StripeObject(accountID, dsUUID, id) },
		func(it objectItem) string { return it.ID }, objectItem.object)
}

// PutStripeObject writes the object's item conditional on the version it was read at.
func (s *Store) PutStripeObject(ctx context.Context, accountID, dsUUID string, o store.StripeObject) (store.StripeObject, error) {
	k := keys.StripeObject(accountID, dsUUID, o.ID)
	next := o
	next.Version++
	av, err := attributevalue.MarshalMap(objectItem{PK: k.PK, SK: k.SK, Type: keys.TypeStripeObject, ID: o.ID,
		Created: o.Created, Rank: o.Rank, Customer: o.Customer, Invoice: o.Invoice, TrialStart: o.TrialStart,
		Deleted: o.Deleted, Items: o.Items, Misses: o.Misses, Version: next.Version})
	if err != nil {
		return o, err
	}
	in := &dynamodb.PutItemInput{Item: av, ConditionExpression: aws.String(table.ItemAbsent)}
	if o.Version > 0 {
		in.ConditionExpression = aws.String("v = :v")
		in.ExpressionAttributeValues = map[string]types.AttributeValue{":v": table.NAttr(o.Version)}
	}
	if _, err := s.t.PutItem(ctx, in); err != nil {
		return o, table.Conflict(err)
	}
	return next, nil
}

type priceItem struct {
	PK            string `dynamodbav:"PK"`
	SK            string `dynamodbav:"SK"`
	Type          string `dynamodbav:"et"`
	ID            string `dynamodbav:"id"`
	Currency      string `dynamodbav:"cur,omitempty"`
	Nickname      string `dynamodbav:"nick,omitempty"`
	ProductName   string `dynamodbav:"prod,omitempty"`
	Interval      string `dynamodbav:"iv,omitempty"`
	IntervalCount int64  `dynamodbav:"ic,omitempty"`
	UsageType     string `dynamodbav:"ut,omitempty"`
	Meter         string `dynamodbav:"me,omitempty"`
	UnitAmount    int64  `dynamodbav:"ua,omitempty"`
	BillingScheme string `dynamodbav:"bs,omitempty"`
}

func (it priceItem) price() store.StripePrice {
	return store.StripePrice{ID: it.ID, Currency: it.Currency, Nickname: it.Nickname, ProductName: it.ProductName,
		Interval: it.Interval, IntervalCount: it.IntervalCount, UsageType: it.UsageType, Meter: it.Meter,
		UnitAmount: it.UnitAmount, BillingScheme: it.BillingScheme}
}

// GetStripePrices reads prices (eventually consistent BatchGetItem: a price changes
// rarely, and its item is written before any invoice names it is applied).
func (s *Store) GetStripePrices(ctx context.Context, accountID, dsUUID string, ids []string) (map[string]store.StripePrice, error) {
	seen := map[string]bool{}
	var keyList []map[string]types.AttributeValue
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			keyList = append(keyList, table.KeyAttrs(keys.StripePrice(accountID, dsUUID, id)))
		}
	}
	raw, err := s.t.BatchRead(ctx, keyList, false)
	if err != nil {
		return nil, err
	}
	var items []priceItem
	if err := attributevalue.UnmarshalListOfMaps(raw, &items); err != nil {
		return nil, err
	}
	out := make(map[string]store.StripePrice, len(items))
	for _, it := range items {
		out[it.ID] = it.price()
	}
	return out, nil
}

// PutStripePrices writes the prices' items (BatchWriteItem).
func (s *Store) PutStripePrices(ctx context.Context, accountID, dsUUID string, prices []store.StripePrice) error {
	items := make([]any, len(prices))
	for i, p := range prices {
		k := keys.StripePrice(accountID, dsUUID, p.ID)
		items[i] = priceItem{PK: k.PK, SK: k.SK, Type: keys.TypeStripePrice, ID: p.ID, Currency: p.Currency,
			Nickname: p.Nickname, ProductName: p.ProductName, Interval: p.Interval, IntervalCount: p.IntervalCount,
			UsageType: p.UsageType, Meter: p.Meter, UnitAmount: p.UnitAmount, BillingScheme: p.BillingScheme}
	}
	return s.t.PutItemsBatched(ctx, items)
}
