package crm

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/parallel"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// ListCustomers is one page of the account's customers in id order: one Query per
// shard of the listing (keys.CustomerListShards), or one of the external id's GSI2
// partition; status, data source and system filters are applied by DynamoDB as a
// filter on the same index.
func (s *Store) ListCustomers(ctx context.Context, accountID string, f store.CustomerFilter, limit int, start store.PageToken) (store.Page[model.Customer], error) {
	return table.ShardedPage(ctx, s.t, CustomerQuery(accountID, f), limit, start, CustomerItem.Customer, nil)
}

func CustomerQuery(accountID string, f store.CustomerFilter) table.ShardedListing {
	index, pks := keys.GSI1, keys.CustomerListShards(accountID)
	if f.ExternalID != "" {
		index, pks = keys.GSI2, []string{keys.CustomerByExternalID(accountID, f.ExternalID)}
	}
	return table.ShardedIndex(index, pks, true, func(q *table.ListQuery) {
		if f.Status != "" {
			q.Where("#st = :st", map[string]string{"#st": "status"}, map[string]types.AttributeValue{":st": table.SAttr(f.Status)})
		}
		if f.DataSourceUUID != "" {
			q.Where("contains(#dss, :ds)", map[string]string{"#dss": "data_source_uuids"}, map[string]types.AttributeValue{":ds": table.SAttr(f.DataSourceUUID)})
		}
		switch f.System {
		case "":
		case model.BillingSystemCustom:
			q.Where("#bst = :sys", map[string]string{"#bst": "billing_system_type"}, map[string]types.AttributeValue{":sys": table.SAttr(f.System)})
		default:
			q.Where("contains(#sys, :sys)", map[string]string{"#sys": "systems"}, map[string]types.AttributeValue{":sys": table.SAttr(f.System)})
		}
	})
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

// ListCustomersByEmail is one page, in id order, of the customers that f selects among
// those CustomersByEmail finds; they are few, so they are paged in memory and Total is
// known.
func (s *Store) ListCustomersByEmail(ctx context.Context, accountID, email string, withContacts bool, f store.CustomerFilter,
	limit int, start store.PageToken) (store.Page[model.Customer], error) {
	all, err := s.CustomersByEmail(ctx, accountID, email, withContacts)
	if err != nil {
		return store.Page[model.Customer]{}, err
	}
	after := start[keys.GSI1SK] // the customer listing's order of the last customer returned
	p := store.Page[model.Customer]{TotalKnown: true}
	for _, c := range all {
		if !f.Matches(c) {
			continue
		}
		p.Total++
		if keys.CustomerOrder(c.ID) <= after {
			continue
		}
		if len(p.Items) == limit {
			p.HasMore = true
			continue
		}
		p.Items = append(p.Items, c)
	}
	if n := len(p.Items); n > 0 {
		p.Next = store.PageToken{keys.GSI1SK: keys.CustomerOrder(p.Items[n-1].ID)}
	}
	return p, nil
}

// indexCustomerUUIDs reads the customer uuids of a GSI2 partition of index items.
func (s *Store) indexCustomerUUIDs(ctx context.Context, pk string) ([]string, error) {
	p := dynamodb.NewQueryPaginator(s.t, &dynamodb.QueryInput{
		IndexName:                 aws.String(keys.GSI2),
		KeyConditionExpression:    aws.String("GSI2PK = :pk"),
		ProjectionExpression:      aws.String("customer_uuid"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}},
	})
	var out []string
	for p.HasMorePages() && len(out) < maxEmailMatches {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		var rows []UniqueItem
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
			keyList = append(keyList, table.KeyAttrs(keys.Customer(accountID, u)))
		}
	}
	raw, err := s.t.BatchGet(ctx, keyList)
	if err != nil {
		return nil, err
	}
	var items []CustomerItem
	if err := attributevalue.UnmarshalListOfMaps(raw, &items); err != nil {
		return nil, err
	}
	out := make([]model.Customer, 0, len(items))
	for _, it := range items {
		if it.ET == keys.TypeCustomer && it.AccountID == accountID {
			out = append(out, it.Customer())
		}
	}
	return out, nil
}

// EachCustomer hands every customer of the account to fn: one Query chain per shard of
// the listing (keys.CustomerListShards), all at once, each item decoded and handed over
// under a lock, so fn needs no locking of its own. Only the attributes the Metrics
// API's filters read are fetched (filterAttrs): DynamoDB charges the whole items all
// the same, but there is less to transfer and to decode.
func (s *Store) EachCustomer(ctx context.Context, accountID string, fn func(model.Customer) error) error {
	shards := keys.CustomerListShards(accountID)
	var mu sync.Mutex
	errs := make([]error, len(shards))
	names := make(map[string]string, len(filterAttrs))
	refs := make([]string, len(filterAttrs))
	for i, a := range filterAttrs {
		refs[i] = fmt.Sprintf("#f%d", i)
		names[refs[i]] = a
	}
	parallel.For(len(shards), len(shards), func(i int) {
		q := table.IndexListing(keys.GSI1, shards[i], true).In
		q.ProjectionExpression, q.ExpressionAttributeNames = aws.String(strings.Join(refs, ", ")), names
		errs[i] = s.t.QueryPages(ctx, &q, func(page []map[string]types.AttributeValue) error {
			var items []CustomerItem
			if err := attributevalue.UnmarshalListOfMaps(page, &items); err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			for _, it := range items {
				if it.ET != keys.TypeCustomer || it.AccountID != accountID {
					continue
				}
				if err := fn(it.Customer()); err != nil {
					return err
				}
			}
			return nil
		})
	})
	return errors.Join(errs...)
}

// filterAttrs are the customer item's attributes EachCustomer reads: its identity and
// what cfl's filters compare.
var filterAttrs = []string{"et", "account_id", "uuid", "id", "country", "state", "tags", "custom", "mrr", "status",
	"data_source_uuids", "customer_since", "lead_created_at", "free_trial_started_at", "billing_currencies",
	"active_quantity"}
