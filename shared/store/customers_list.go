package store

import (
	"context"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
)

// Page is one page of a listing. Last is the key of the last item returned (what a
// cursor carries), nil when the page is empty.
type Page[T any] struct {
	Items   []T
	Last    map[string]types.AttributeValue
	HasMore bool
}

// CustomerFilter narrows a customer listing; empty fields do not filter.
type CustomerFilter struct {
	DataSourceUUID string
	ExternalID     string
	Status         string // normalised ("Past Due")
	System         string // billing system; "Custom" selects every API source
}

// indexQuery is one listing: a key condition on an index plus an optional filter.
type indexQuery struct {
	index, pkAttr, skAttr, pk string
	forward                   bool
	filter                    []string
	names                     map[string]string
	values                    map[string]types.AttributeValue
}

func (q *indexQuery) where(cond string, name, attr string, valueName string, v types.AttributeValue) {
	q.filter = append(q.filter, cond)
	if q.names == nil {
		q.names = map[string]string{}
	}
	q.names[name] = attr
	q.values[valueName] = v
}

// maxEvaluated caps how many items one follow-up query of a filtered listing reads.
const maxEvaluated = 1000

// page reads up to limit matching items starting after start. Without a filter it is
// exactly one Query (Limit limit+1 tells whether more exist). With a filter it keeps
// querying until the page is full or the index is exhausted, and the cursor is the
// key of the last item returned, never a LastEvaluatedKey beyond it, so no match is
// skipped.
func (s *Store) page(ctx context.Context, q indexQuery, limit int, start map[string]types.AttributeValue) ([]map[string]types.AttributeValue, map[string]types.AttributeValue, bool, error) {
	values := map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: q.pk}}
	for k, v := range q.values {
		values[k] = v
	}
	in := &dynamodb.QueryInput{
		TableName:                 &s.table,
		IndexName:                 aws.String(q.index),
		KeyConditionExpression:    aws.String(q.pkAttr + " = :pk"),
		ExpressionAttributeValues: values,
		ScanIndexForward:          aws.Bool(q.forward),
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal,
	}
	if len(q.filter) > 0 {
		in.FilterExpression = aws.String(strings.Join(q.filter, " AND "))
		in.ExpressionAttributeNames = q.names
	}
	evaluate := int32(limit + 1)
	var items []map[string]types.AttributeValue
	for {
		in.Limit = aws.Int32(evaluate)
		in.ExclusiveStartKey = start
		out, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, nil, false, err
		}
		for _, it := range out.Items {
			if len(items) == limit {
				return items, q.keyOf(items[len(items)-1]), true, nil
			}
			items = append(items, it)
		}
		if len(out.LastEvaluatedKey) == 0 {
			var last map[string]types.AttributeValue
			if len(items) > 0 {
				last = q.keyOf(items[len(items)-1])
			}
			return items, last, false, nil
		}
		start = out.LastEvaluatedKey
		// A selective filter would otherwise cost one small query per few matches.
		evaluate = min(evaluate*4, maxEvaluated)
	}
}

// keyOf is an item's key in the queried index (what ExclusiveStartKey needs).
func (q *indexQuery) keyOf(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		keys.PK: item[keys.PK], keys.SK: item[keys.SK], q.pkAttr: item[q.pkAttr], q.skAttr: item[q.skAttr],
	}
}

// ListCustomers is one page of the account's customers in id order. The plain
// listing and the external id filter are one Query; status, data source and system
// filters are applied by DynamoDB as a filter on the same index.
func (s *Store) ListCustomers(ctx context.Context, accountID string, f CustomerFilter, limit int, start map[string]types.AttributeValue) (Page[model.Customer], error) {
	q := indexQuery{index: keys.GSI1, pkAttr: keys.GSI1PK, skAttr: keys.GSI1SK, pk: keys.CustomerList(accountID),
		forward: true, values: map[string]types.AttributeValue{}}
	if f.ExternalID != "" {
		q.index, q.pkAttr, q.skAttr, q.pk = keys.GSI2, keys.GSI2PK, keys.GSI2SK, keys.CustomerByExternalID(accountID, f.ExternalID)
	}
	if f.Status != "" {
		q.where("#st = :st", "#st", "status", ":st", &types.AttributeValueMemberS{Value: f.Status})
	}
	if f.DataSourceUUID != "" {
		q.where("contains(#dss, :ds)", "#dss", "data_source_uuids", ":ds", &types.AttributeValueMemberS{Value: f.DataSourceUUID})
	}
	switch f.System {
	case "":
	case model.BillingSystemCustom:
		q.where("#bst = :sys", "#bst", "billing_system_type", ":sys", &types.AttributeValueMemberS{Value: f.System})
	default:
		q.where("contains(#sys, :sys)", "#sys", "systems", ":sys", &types.AttributeValueMemberS{Value: f.System})
	}
	return decodedPage(ctx, s, q, limit, start, customerItem.customer)
}

// decodedPage runs one page of q and converts its items with convert.
func decodedPage[I, T any](ctx context.Context, s *Store, q indexQuery, limit int,
	start map[string]types.AttributeValue, convert func(I) T) (Page[T], error) {
	raw, last, more, err := s.page(ctx, q, limit, start)
	if err != nil {
		return Page[T]{}, err
	}
	var items []I
	if err := attributevalue.UnmarshalListOfMaps(raw, &items); err != nil {
		return Page[T]{}, err
	}
	out := Page[T]{Items: make([]T, len(items)), Last: last, HasMore: more}
	for i, it := range items {
		out.Items[i] = convert(it)
	}
	return out, nil
}

// maxEmailMatches bounds how many customers one e-mail can match in a listing.
const maxEmailMatches = 1000

// CustomersByEmail returns, in id order, every customer of the account whose e-mail
// is email and, with withContacts, every customer with a contact of that e-mail.
// An address matches few customers, so this reads the index partitions (one Query
// each) and the matches (one BatchGetItem per 100) and pages in memory.
func (s *Store) CustomersByEmail(ctx context.Context, accountID, email string, withContacts bool) ([]model.Customer, error) {
	uuids, err := s.indexCustomerUUIDs(ctx, keys.CustomerByEmail(accountID, email))
	if err != nil {
		return nil, err
	}
	if withContacts {
		more, err := s.indexCustomerUUIDs(ctx, keys.ContactsByEmail(accountID, email))
		if err != nil {
			return nil, err
		}
		uuids = append(uuids, more...)
	}
	customers, err := s.batchGetCustomers(ctx, accountID, uuids)
	if err != nil {
		return nil, err
	}
	sort.Slice(customers, func(i, j int) bool { return customers[i].ID < customers[j].ID })
	return customers, nil
}

// indexCustomerUUIDs reads the customer uuids of a GSI2 partition of index items.
func (s *Store) indexCustomerUUIDs(ctx context.Context, pk string) ([]string, error) {
	p := dynamodb.NewQueryPaginator(s.db, &dynamodb.QueryInput{
		TableName:                 &s.table,
		IndexName:                 aws.String(keys.GSI2),
		KeyConditionExpression:    aws.String("GSI2PK = :pk"),
		ProjectionExpression:      aws.String("customer_uuid"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}},
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal,
	})
	var out []string
	for p.HasMorePages() && len(out) < maxEmailMatches {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		var rows []uniqueItem
		if err := attributevalue.UnmarshalListOfMaps(page.Items, &rows); err != nil {
			return nil, err
		}
		for _, r := range rows {
			out = append(out, r.CustomerUUID)
		}
	}
	return out, nil
}

// batchGetCustomers reads customers by uuid (missing ones are skipped, duplicates
// read once).
func (s *Store) batchGetCustomers(ctx context.Context, accountID string, uuids []string) ([]model.Customer, error) {
	seen := map[string]bool{}
	var keyList []map[string]types.AttributeValue
	for _, u := range uuids {
		if u != "" && !seen[u] {
			seen[u] = true
			keyList = append(keyList, keyAttrs(keys.Customer(accountID, u)))
		}
	}
	raw, err := s.batchGet(ctx, keyList)
	if err != nil {
		return nil, err
	}
	var items []customerItem
	if err := attributevalue.UnmarshalListOfMaps(raw, &items); err != nil {
		return nil, err
	}
	out := make([]model.Customer, 0, len(items))
	for _, it := range items {
		if it.ET == keys.TypeCustomer && it.AccountID == accountID {
			out = append(out, it.customer())
		}
	}
	return out, nil
}

// batchGet reads items by key, 100 at a time, retrying unprocessed keys.
func (s *Store) batchGet(ctx context.Context, keyList []map[string]types.AttributeValue) ([]map[string]types.AttributeValue, error) {
	var out []map[string]types.AttributeValue
	for start := 0; start < len(keyList); start += 100 {
		pending := map[string]types.KeysAndAttributes{s.table: {Keys: keyList[start:min(start+100, len(keyList))], ConsistentRead: aws.Bool(true)}}
		for attempt := 0; len(pending[s.table].Keys) > 0; attempt++ {
			if attempt == 10 {
				return nil, errors.New("batch get: keys still unprocessed after 10 attempts")
			}
			if attempt > 0 {
				time.Sleep(time.Duration(attempt*50) * time.Millisecond)
			}
			res, err := s.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{
				RequestItems: pending, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
			})
			if err != nil {
				return nil, err
			}
			out = append(out, res.Responses[s.table]...)
			pending = res.UnprocessedKeys
		}
	}
	return out, nil
}
