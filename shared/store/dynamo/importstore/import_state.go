package importstore

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/billing"
	"github.com/subsight/subsight/shared/store/dynamo/crm"
	"github.com/subsight/subsight/shared/store/dynamo/plans"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// The import worker applies the customers of a batch together: it reads everything
// they touch in a few batch reads (ReadImportState) and writes it back in batch writes
// (import_writes.go), instead of a dozen single requests per customer.

// ReadImportState reads, in up to three rounds of BatchGetItem: the reservations of
// the customers' external ids with the customers and billing indexes their new uuids
// would have, and the plan and event external ids; then the invoices, subscriptions,
// events and record locators of the customers that exist or are reserved (a new
// customer's part names records it cannot hold yet: they are not read, their claims
// find another customer's); then what those name (a merged customer, the plans, the
// other subscriptions of the invoices read, the invoices holding the records).
func (s *Store) ReadImportState(ctx context.Context, q store.ImportStateQuery) (store.ImportState, error) {
	acc := q.AccountID
	st := store.ImportState{Customers: map[store.ExternalRef]store.ImportedCustomerState{}, Invoices: map[string]model.Invoice{},
		Subscriptions: map[string]model.Subscription{}, Events: map[int64]model.SubscriptionEvent{},
		EventClaims: map[store.ExternalRef]int64{}, Plans: map[store.ExternalRef]model.Plan{}}

	var asked keySet
	for _, c := range q.Customers {
		derived := store.ImportedCustomerUUID(acc, c.DataSourceUUID, c.ExternalID)
		asked.add(keys.CustomerExternalID(acc, c.DataSourceUUID, c.ExternalID))
		asked.add(keys.Customer(acc, derived))
		asked.add(keys.BillingIndex(acc, derived))
	}
	for _, e := range q.EventExternalIDs {
		asked.add(keys.SubscriptionEventExternalID(acc, e.DataSourceUUID, e.ExternalID))
	}
	for _, p := range q.Plans {
		asked.add(keys.PlanExternalID(acc, p.DataSourceUUID, p.ExternalID))
	}
	found, err := s.batchGetByKey(ctx, asked)
	if err != nil {
		return st, err
	}
	var invoices, subscriptions []string
	var events []int64
	var records []string
	var owned keySet
	for _, o := range q.Owned {
		derived := store.ImportedCustomerUUID(acc, o.Customer.DataSourceUUID, o.Customer.ExternalID)
		_, reserved := found[keys.CustomerExternalID(acc, o.Customer.DataSourceUUID, o.Customer.ExternalID)]
		if _, exists := found[keys.Customer(acc, derived)]; !reserved && !exists {
			continue
		}
		invoices, subscriptions = append(invoices, o.Invoices...), append(subscriptions, o.Subscriptions...)
		events, records = append(events, o.Events...), append(records, o.Records...)
		for _, u := range o.Invoices {
			owned.add(keys.Invoice(acc, u))
		}
		for _, u := range o.Subscriptions {
			owned.add(keys.Subscription(acc, u))
		}
		for _, id := range o.Events {
			owned.add(keys.SubscriptionEvent(acc, strconv.FormatInt(id, 10)))
		}
		for _, u := range o.Records {
			owned.add(keys.RecordLocator(acc, u))
		}
	}
	if len(owned.list) > 0 {
		got, err := s.batchGetByKey(ctx, owned)
		if err != nil {
			return st, err
		}
		maps.Copy(found, got)
		for _, k := range owned.list {
			asked.add(k)
		}
	}
	holders, err := billing.RecordHolders(found, acc, records)
	if err != nil {
		return st, err
	}

	var second keySet
	for _, c := range q.Customers {
		cs := store.ImportedCustomerState{UUID: store.ImportedCustomerUUID(acc, c.DataSourceUUID, c.ExternalID)}
		if raw, ok := found[keys.CustomerExternalID(acc, c.DataSourceUUID, c.ExternalID)]; ok {
			var res crm.UniqueItem
			if err := attributevalue.UnmarshalMap(raw, &res); err != nil {
				return st, err
			}
			cs.Reserved, cs.UUID = true, res.CustomerUUID
		}
		st.Customers[c] = cs
		second.add(keys.Customer(acc, cs.UUID))
		second.add(keys.BillingIndex(acc, cs.UUID))
	}
	if err := decodeFound(found, invoices, func(u string) keys.Key { return keys.Invoice(acc, u) },
		func(it billing.InvoiceItem) { st.Invoices[it.UUID] = it.Invoice(acc) }); err != nil {
		return st, err
	}
	if err := decodeFound(found, subscriptions, func(u string) keys.Key { return keys.Subscription(acc, u) },
		func(it billing.SubscriptionItem) { st.Subscriptions[it.UUID] = it.Subscription(acc) }); err != nil {
		return st, err
	}
	// The worker re-derives the subscriptions of every invoice a part touches: those of the
	// stored invoices' other line items must be read too, or a transaction added to an
	// invoice would rewrite them from scratch (losing their creation time and the
	// cancellation dates set through the subscriptions API).
	subsOfInvoices := subscriptionsNotRead(acc, st, asked)
	for _, u := range subsOfInvoices {
		second.add(keys.Subscription(acc, u))
	}
	if err := decodeFound(found, events, func(id int64) keys.Key { return keys.SubscriptionEvent(acc, strconv.FormatInt(id, 10)) },
		func(it billing.SubscriptionEventItem) { st.Events[it.ID] = it.Event(acc) }); err != nil {
		return st, err
	}
	var claimed []int64
	for _, e := range q.EventExternalIDs {
		if raw, ok := found[keys.SubscriptionEventExternalID(acc, e.DataSourceUUID, e.ExternalID)]; ok {
			var claim billing.EventExternalIDItem
			if err := attributevalue.UnmarshalMap(raw, &claim); err != nil {
				return st, err
			}
			st.EventClaims[e] = claim.EventID
			claimed = append(claimed, claim.EventID)
			second.add(billing.EventKey(acc, claim.EventID))
		}
	}
	planUUIDs := map[store.ExternalRef]string{}
	for _, p := range q.Plans {
		if raw, ok := found[keys.PlanExternalID(acc, p.DataSourceUUID, p.ExternalID)]; ok {
			var res plans.PlanExternalIDItem
			if err := attributevalue.UnmarshalMap(raw, &res); err != nil {
				return st, err
			}
			planUUIDs[p] = res.PlanUUID
			second.add(keys.Plan(acc, p.DataSourceUUID, res.PlanUUID))
		}
	}

	for _, loc := range holders {
		if _, read := found[keys.Invoice(acc, loc.InvoiceUUID)]; !read {
			second.add(keys.Invoice(acc, loc.InvoiceUUID))
		}
	}

	// What the rounds before read (a new customer's item and index among it) is not
	// read again.
	second.list = slices.DeleteFunc(second.list, func(k keys.Key) bool { return asked.seen[k] })
	if len(second.list) > 0 {
		got, err := s.batchGetByKey(ctx, second)
		if err != nil {
			return st, err
		}
		maps.Copy(found, got)
	}
	if st.RecordHolders, st.StaleHolders, err = billing.LiveHolders(acc, holders, time.Now(), found); err != nil {
		return st, err
	}
	for ref, cs := range st.Customers {
		if raw, ok := found[keys.Customer(acc, cs.UUID)]; ok {
			var it crm.CustomerItem
			if err := attributevalue.UnmarshalMap(raw, &it); err != nil {
				return st, err
			}
			c := it.Customer()
			cs.Customer = &c
		}
		cs.Index = billing.EmptyBillingIndex(acc, cs.UUID)
		if raw, ok := found[keys.BillingIndex(acc, cs.UUID)]; ok {
			var it billing.BillingIndexItem
			if err := attributevalue.UnmarshalMap(raw, &it); err != nil {
				return st, err
			}
			cs.Index = it.Index(acc, cs.UUID)
		}
		st.Customers[ref] = cs
	}
	if err := decodeFound(found, subsOfInvoices, func(u string) keys.Key { return keys.Subscription(acc, u) },
		func(it billing.SubscriptionItem) { st.Subscriptions[it.UUID] = it.Subscription(acc) }); err != nil {
		return st, err
	}
	if err := decodeFound(found, claimed, func(id int64) keys.Key { return billing.EventKey(acc, id) },
		func(it billing.SubscriptionEventItem) { st.Events[it.ID] = it.Event(acc) }); err != nil {
		return st, err
	}
	for ref, planUUID := range planUUIDs {
		if raw, ok := found[keys.Plan(acc, ref.DataSourceUUID, planUUID)]; ok {
			var it plans.PlanItem
			if err := attributevalue.UnmarshalMap(raw, &it); err != nil {
				return st, err
			}
			st.Plans[ref] = it.Plan()
		}
	}
	return st, nil
}

// subscriptionsNotRead are the subscriptions of the read invoices' line items that the
// first round did not ask for, in a stable order.
func subscriptionsNotRead(accountID string, st store.ImportState, asked keySet) []string {
	var out []string
	seen := map[string]bool{}
	for _, inv := range st.Invoices {
		for _, li := range inv.LineItems {
			u := li.SubscriptionUUID
			if u == "" || seen[u] || asked.seen[keys.Subscription(accountID, u)] {
				continue
			}
			seen[u] = true
			out = append(out, u)
		}
	}
	slices.Sort(out)
	return out
}

// keySet is a list of keys without duplicates.
type keySet struct {
	list []keys.Key
	seen map[keys.Key]bool
}

func (ks *keySet) add(k keys.Key) {
	if ks.seen == nil {
		ks.seen = map[keys.Key]bool{}
	}
	if !ks.seen[k] {
		ks.seen[k] = true
		ks.list = append(ks.list, k)
	}
}

// batchGetByKey reads the set's items and returns them by key.
func (s *Store) batchGetByKey(ctx context.Context, ks keySet) (map[keys.Key]map[string]types.AttributeValue, error) {
	keyList := make([]map[string]types.AttributeValue, len(ks.list))
	for i, k := range ks.list {
		keyList[i] = table.KeyAttrs(k)
	}
	raw, err := s.t.BatchGet(ctx, keyList)
	if err != nil {
		return nil, err
	}
	out := make(map[keys.Key]map[string]types.AttributeValue, len(raw))
	for _, item := range raw {
		pk, _ := item["PK"].(*types.AttributeValueMemberS)
		sk, _ := item["SK"].(*types.AttributeValueMemberS)
		if pk != nil && sk != nil {
			out[keys.Key{PK: pk.Value, SK: sk.Value}] = item
		}
	}
	return out, nil
}

// decodeFound unmarshals the found items of ids into I and hands each to use.
func decodeFound[ID comparable, I any](found map[keys.Key]map[string]types.AttributeValue, ids []ID, key func(ID) keys.Key, use func(I)) error {
	for _, id := range ids {
		raw, ok := found[key(id)]
		if !ok {
			continue
		}
		var it I
		if err := attributevalue.UnmarshalMap(raw, &it); err != nil {
			return err
		}
		use(it)
	}
	return nil
}
