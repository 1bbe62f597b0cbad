package dynamo

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// The import worker applies the customers of a batch together: it reads everything
// they touch in two batch reads (ReadImportState) and writes it back in batch writes
// (import_writes.go), instead of a dozen single requests per customer.

// ReadImportState reads, in two rounds of BatchGetItem: the reservations of the
// customers' external ids, the invoices, subscriptions, events and plan external ids;
// then the customers, their billing indexes and the plans themselves.
func (s *Store) ReadImportState(ctx context.Context, q store.ImportStateQuery) (store.ImportState, error) {
	acc := q.AccountID
	st := store.ImportState{Customers: map[store.ExternalRef]store.ImportedCustomerState{}, Invoices: map[string]model.Invoice{},
		Subscriptions: map[string]model.Subscription{}, Events: map[int64]model.SubscriptionEvent{},
		EventClaims: map[store.ExternalRef]int64{}, Plans: map[store.ExternalRef]model.Plan{}}

	var first keySet
	for _, c := range q.Customers {
		first.add(keys.CustomerExternalID(acc, c.DataSourceUUID, c.ExternalID))
	}
	for _, u := range q.Invoices {
		first.add(keys.Invoice(acc, u))
	}
	for _, u := range q.Subscriptions {
		first.add(keys.Subscription(acc, u))
	}
	for _, id := range q.Events {
		first.add(keys.SubscriptionEvent(acc, strconv.FormatInt(id, 10)))
	}
	for _, e := range q.EventExternalIDs {
		first.add(keys.SubscriptionEventExternalID(acc, e.DataSourceUUID, e.ExternalID))
	}
	for _, p := range q.Plans {
		first.add(keys.PlanExternalID(acc, p.DataSourceUUID, p.ExternalID))
	}
	for _, u := range q.Records {
		first.add(keys.RecordLocator(acc, u))
	}
	found, err := s.batchGetByKey(ctx, first)
	if err != nil {
		return st, err
	}
	holders, err := recordHolders(found, acc, q.Records)
	if err != nil {
		return st, err
	}

	var second keySet
	for _, c := range q.Customers {
		cs := store.ImportedCustomerState{UUID: store.ImportedCustomerUUID(acc, c.DataSourceUUID, c.ExternalID)}
		if raw, ok := found[keys.CustomerExternalID(acc, c.DataSourceUUID, c.ExternalID)]; ok {
			var res uniqueItem
			if err := attributevalue.UnmarshalMap(raw, &res); err != nil {
				return st, err
			}
			cs.Reserved, cs.UUID = true, res.CustomerUUID
		}
		st.Customers[c] = cs
		second.add(keys.Customer(acc, cs.UUID))
		second.add(keys.BillingIndex(acc, cs.UUID))
	}
	if err := decodeFound(found, q.Invoices, func(u string) keys.Key { return keys.Invoice(acc, u) },
		func(it invoiceItem) { st.Invoices[it.UUID] = it.invoice(acc) }); err != nil {
		return st, err
	}
	if err := decodeFound(found, q.Subscriptions, func(u string) keys.Key { return keys.Subscription(acc, u) },
		func(it subscriptionItem) { st.Subscriptions[it.UUID] = it.subscription(acc) }); err != nil {
		return st, err
	}
	// The worker re-derives the subscriptions of every invoice a part touches: those of the
	// stored invoices' other line items must be read too, or a transaction added to an
	// invoice would rewrite them from scratch (losing their creation time and the
	// cancellation dates set through the subscriptions API).
	subsOfInvoices := subscriptionsNotRead(acc, st, first)
	for _, u := range subsOfInvoices {
		second.add(keys.Subscription(acc, u))
	}
	if err := decodeFound(found, q.Events, func(id int64) keys.Key { return keys.SubscriptionEvent(acc, strconv.FormatInt(id, 10)) },
		func(it subscriptionEventItem) { st.Events[it.ID] = it.event(acc) }); err != nil {
		return st, err
	}
	var claimed []int64
	for _, e := range q.EventExternalIDs {
		if raw, ok := found[keys.SubscriptionEventExternalID(acc, e.DataSourceUUID, e.ExternalID)]; ok {
			var claim eventExternalIDItem
			if err := attributevalue.UnmarshalMap(raw, &claim); err != nil {
				return st, err
			}
			st.EventClaims[e] = claim.EventID
			claimed = append(claimed, claim.EventID)
			second.add(eventKey(acc, claim.EventID))
		}
	}
	planUUIDs := map[store.ExternalRef]string{}
	for _, p := range q.Plans {
		if raw, ok := found[keys.PlanExternalID(acc, p.DataSourceUUID, p.ExternalID)]; ok {
			var res planExternalIDItem
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

	firstFound := found
	found, err = s.batchGetByKey(ctx, second)
	if err != nil {
		return st, err
	}
	if st.RecordHolders, st.StaleHolders, err = liveHolders(acc, holders, time.Now(), firstFound, found); err != nil {
		return st, err
	}
	for ref, cs := range st.Customers {
		if raw, ok := found[keys.Customer(acc, cs.UUID)]; ok {
			var it customerItem
			if err := attributevalue.UnmarshalMap(raw, &it); err != nil {
				return st, err
			}
			c := it.customer()
			cs.Customer = &c
		}
		cs.Index = emptyBillingIndex(acc, cs.UUID)
		if raw, ok := found[keys.BillingIndex(acc, cs.UUID)]; ok {
			var it billingIndexItem
			if err := attributevalue.UnmarshalMap(raw, &it); err != nil {
				return st, err
			}
			cs.Index = it.index(acc, cs.UUID)
		}
		st.Customers[ref] = cs
	}
	if err := decodeFound(found, subsOfInvoices, func(u string) keys.Key { return keys.Subscription(acc, u) },
		func(it subscriptionItem) { st.Subscriptions[it.UUID] = it.subscription(acc) }); err != nil {
		return st, err
	}
	if err := decodeFound(found, claimed, func(id int64) keys.Key { return eventKey(acc, id) },
		func(it subscriptionEventItem) { st.Events[it.ID] = it.event(acc) }); err != nil {
		return st, err
	}
	for ref, planUUID := range planUUIDs {
		if raw, ok := found[keys.Plan(acc, ref.DataSourceUUID, planUUID)]; ok {
			var it planItem
			if err := attributevalue.UnmarshalMap(raw, &it); err != nil {
				return st, err
			}
			st.Plans[ref] = it.plan()
		}
	}
	return st, nil
}

// subscriptionsNotRead are the subscriptions of the read invoices' line items that the
// first round did not ask for, in a stable order.
func subscriptionsNotRead(accountID string, st store.ImportState, first keySet) []string {
	var out []string
	seen := map[string]bool{}
	for _, inv := range st.Invoices {
		for _, li := range inv.LineItems {
			u := li.SubscriptionUUID
			if u == "" || seen[u] || first.seen[keys.Subscription(accountID, u)] {
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
		keyList[i] = keyAttrs(k)
	}
	raw, err := s.batchGet(ctx, keyList)
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
