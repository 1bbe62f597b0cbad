package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/api/billing"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/workers"
)

const reshardEvents = 8

// TestReshardMovesItemsWrittenBeforeTheShards builds an account through the API and
// the workers (customers, their activities, subscription events, event external ids
// given by a PATCH), puts every item back where the code before the write shards
// wrote it (shard 0's key), and shows what that breaks: the external-id lookups and
// the activity lookup by uuid miss the items of the other shards. reshard moves
// exactly those items, after which every item is on the shard its key builder names,
// every lookup finds it and every listing still lists everything; a second run moves
// nothing.
func TestReshardMovesItemsWrittenBeforeTheShards(t *testing.T) {
	te := testenv.New(t)
	acc := te.NewAccount(t, "Resharded")
	ctx := context.Background()
	st := te.Deps.Store

	var customers, invoices, items []any
	var customerIDs []string
	for i := 1; i <= 8; i++ {
		ext := fmt.Sprintf("c%d", i)
		customerIDs = append(customerIDs, ext)
		customers = append(customers, map[string]any{"external_id": ext, "name": ext, "country": "US"})
		invoice, item := monthlyPeriod(ext+"-0", ext, "USD", time.Date(2024, 1, i, 0, 0, 0, 0, time.UTC), int64(1000*i))
		invoices, items = append(invoices, invoice), append(items, item)
	}
	importMonthly(t, te, acc.ID, "reshard", customers, invoices, items)
	te.DrainImports(t)
	sources, err := st.ListDataSources(ctx, acc.ID)
	if err != nil || len(sources) != 1 {
		t.Fatalf("data sources %v %v", sources, err)
	}
	ds := sources[0].UUID

	// Events created with an external id, then given another one: the new one is held
	// by a claim item in the data source's reservations.
	var claims []string
	for i := range reshardEvents {
		event := map[string]any{"data_source_uuid": ds, "customer_external_id": "c1", "event_type": "subscription_cancelled",
			"event_date": "2024-05-01", "effective_date": "2024-05-01", "subscription_external_id": "c1-sub",
			"external_id": fmt.Sprintf("ev%d", i)}
		status, body := apigwtest.Do(t, billing.CreateSubscriptionEvent(te.API), apigwtest.Call{Method: http.MethodPost,
			Route: "/v1/subscription_events", AccountID: acc.ID, Body: map[string]any{"subscription_event": event}})
		if status != http.StatusCreated {
			t.Fatalf("create event: %d %v", status, body)
		}
		claim := fmt.Sprintf("renamed%d", i)
		status, body = apigwtest.Do(t, billing.UpdateSubscriptionEvent(te.API), apigwtest.Call{Method: http.MethodPatch,
			Route: "/v1/subscription_events", AccountID: acc.ID,
			Body: map[string]any{"subscription_event": map[string]any{"id": body["id"], "external_id": claim}}})
		if status != http.StatusOK {
			t.Fatalf("rename event: %d %v", status, body)
		}
		claims = append(claims, claim)
	}
	te.DrainJobs(t, workers.Jobs(te.Workers))

	customersBefore, eventsBefore, activitiesBefore := listEverything(t, te, acc.ID)
	if len(customersBefore) != 8 || len(eventsBefore) != reshardEvents || len(activitiesBefore) < 8 {
		t.Fatalf("built %d customers, %d events, %d activities", len(customersBefore), len(eventsBefore), len(activitiesBefore))
	}

	lookups := []struct {
		name string
		ids  []string
		find func(id string) error
	}{
		{"customer by external id", customerIDs, func(id string) error {
			_, err := st.CustomerUUIDByExternalID(ctx, acc.ID, ds, id)
			return err
		}},
		{"event by claimed external id", claims, func(id string) error {
			_, err := st.SubscriptionEventByExternalID(ctx, acc.ID, ds, id)
			return err
		}},
		{"activity by uuid", activitiesBefore, func(id string) error {
			_, err := st.ActivityOrder(ctx, acc.ID, id)
			return err
		}},
	}
	// missing counts the ids each lookup does not find.
	missing := func() map[string]int {
		out := map[string]int{}
		for _, l := range lookups {
			for _, id := range l.ids {
				err := l.find(id)
				if errors.Is(err, store.ErrNotFound) {
					out[l.name]++
				} else if err != nil {
					t.Fatalf("%s %s: %v", l.name, id, err)
				}
			}
		}
		return out
	}
	if m := missing(); len(m) != 0 {
		t.Fatalf("lookups miss before any item was moved: %v", m)
	}

	old := unshard(t, te, acc.ID, ds)
	t.Logf("put back on shard 0: %+v", old)
	for name, n := range old {
		if n == 0 {
			t.Fatalf("no %s outside shard 0 to put back: the test shows nothing", name)
		}
	}
	m := missing()
	if m["customer by external id"]+m["event by claimed external id"] != old["reservations"] || m["activity by uuid"] != old["activities"] {
		t.Fatalf("on the old layout the lookups miss %v, want the %+v items off their shard", m, old)
	}
	t.Logf("on the old layout the lookups miss %v", m)

	e := env{store: st}
	out, err := runCmd(t, e, "reshard", "-account", acc.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("reshard: %v", out)
	for _, c := range []struct{ field, moved string }{
		{"reservations_moved", "reservations"}, {"customers_rekeyed", "customers"},
		{"events_rekeyed", "events"}, {"activities_rekeyed", "activities"},
	} {
		if out[c.field] != float64(old[c.moved]) {
			t.Errorf("%s = %v, want %d", c.field, out[c.field], old[c.moved])
		}
	}
	if conflicts, _ := out["reservation_conflicts"].([]any); len(conflicts) != 0 {
		t.Errorf("conflicts %v", conflicts)
	}
	if m := missing(); len(m) != 0 {
		t.Fatalf("after reshard the lookups still miss %v", m)
	}
	if off := offShard(t, te, acc.ID, ds); len(off) != 0 {
		t.Fatalf("items not on the shard their key builder names: %v", off)
	}
	c2, e2, a2 := listEverything(t, te, acc.ID)
	if fmt.Sprint(c2) != fmt.Sprint(customersBefore) || fmt.Sprint(e2) != fmt.Sprint(eventsBefore) || fmt.Sprint(a2) != fmt.Sprint(activitiesBefore) {
		t.Fatalf("listings changed: customers %v -> %v, events %v -> %v, activities %v -> %v",
			customersBefore, c2, eventsBefore, e2, activitiesBefore, a2)
	}

	again, err := runCmd(t, e, "reshard", "-account", acc.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"reservations_moved", "customers_rekeyed", "events_rekeyed", "activities_rekeyed"} {
		if again[f] != 0.0 {
			t.Errorf("second run: %s = %v, want 0", f, again[f])
		}
	}
}

// listEverything lists the account's customers (external ids), subscription events
// (ids) and activities (uuids), in listing order, a few per page so that the shard
// merge pages are exercised.
func listEverything(t *testing.T, te *testenv.Env, accountID string) (customers, events, activities []string) {
	t.Helper()
	ctx := context.Background()
	st := te.Deps.Store
	customers = listAll(t, func(tok store.PageToken) (store.Page[model.Customer], error) {
		return st.ListCustomers(ctx, accountID, store.CustomerFilter{}, 3, tok)
	}, func(c model.Customer) string { return c.ExternalID })
	events = listAll(t, func(tok store.PageToken) (store.Page[model.SubscriptionEvent], error) {
		return st.ListSubscriptionEvents(ctx, accountID, nil, 3, tok)
	}, func(e model.SubscriptionEvent) string { return fmt.Sprint(e.ID) })
	activities = listAll(t, func(tok store.PageToken) (store.Page[store.Activity], error) {
		return st.ListActivities(ctx, accountID, store.ActivityFilter{}, 3, tok)
	}, func(a store.Activity) string { return a.UUID })
	return customers, events, activities
}

// listAll reads a listing page after page and returns each item's name.
func listAll[T any](t *testing.T, page func(store.PageToken) (store.Page[T], error), name func(T) string) []string {
	t.Helper()
	var out []string
	for tok := store.PageToken(nil); ; {
		p, err := page(tok)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range p.Items {
			out = append(out, name(it))
		}
		if tok = p.Next; !p.HasMore {
			return out
		}
	}
}

// listingShards are the sharded GSI1 listings: their shard keys, and the GSI2 shard
// keys of an item (activities only) from its type.
func listingShards(accountID string) map[string][]string {
	return map[string][]string{
		"customers":  keys.CustomerListShards(accountID),
		"events":     keys.SubscriptionEventsShards(accountID),
		"activities": keys.ActivitiesByAccountShards(accountID),
	}
}

func sAttr(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func sValue(item map[string]types.AttributeValue, name string) string {
	v, _ := item[name].(*types.AttributeValueMemberS)
	if v == nil {
		return ""
	}
	return v.Value
}

func queryAll(t *testing.T, te *testenv.Env, in *dynamodb.QueryInput) []map[string]types.AttributeValue {
	t.Helper()
	in.TableName = &te.TableName
	var items []map[string]types.AttributeValue
	p := dynamodb.NewQueryPaginator(te.Deps.Clients.DynamoDB, in)
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, page.Items...)
	}
	return items
}

func gsi1Partition(t *testing.T, te *testenv.Env, pk string) []map[string]types.AttributeValue {
	return queryAll(t, te, &dynamodb.QueryInput{IndexName: aws.String(keys.GSI1),
		KeyConditionExpression:    aws.String("GSI1PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": sAttr(pk)}})
}

func tablePartition(t *testing.T, te *testenv.Env, pk string) []map[string]types.AttributeValue {
	return queryAll(t, te, &dynamodb.QueryInput{KeyConditionExpression: aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": sAttr(pk)}, ConsistentRead: aws.Bool(true)})
}

// unshard rewrites, with plain SDK calls, every item of the account off shard 0 to
// the layout written before the shards: reservations into the data source's
// partition, listed items onto shard 0's GSI1 (and, activities, GSI2) partition. It
// returns how many it moved of each collection.
func unshard(t *testing.T, te *testenv.Env, accountID, dsUUID string) map[string]int {
	t.Helper()
	ctx := context.Background()
	db := te.Deps.Clients.DynamoDB
	moved := map[string]int{"reservations": 0, "customers": 0, "events": 0, "activities": 0}
	partitions := keys.DataSourcePartitions(accountID, dsUUID)
	for _, pk := range partitions[1:] {
		for _, it := range tablePartition(t, te, pk) {
			it[keys.PK] = sAttr(partitions[0])
			if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &te.TableName, Item: it}); err != nil {
				t.Fatal(err)
			}
			if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &te.TableName,
				Key: map[string]types.AttributeValue{keys.PK: sAttr(pk), keys.SK: it[keys.SK]}}); err != nil {
				t.Fatal(err)
			}
			moved["reservations"]++
		}
	}
	for name, shards := range listingShards(accountID) {
		for _, pk := range shards[1:] {
			for _, it := range gsi1Partition(t, te, pk) {
				set, values := "SET GSI1PK = :old", map[string]types.AttributeValue{":old": sAttr(shards[0])}
				if name == "activities" {
					set, values[":old2"] = set+", GSI2PK = :old2", sAttr(keys.ActivitiesByTypeShards(accountID, sValue(it, "type"))[0])
				}
				if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &te.TableName,
					Key:              map[string]types.AttributeValue{keys.PK: it[keys.PK], keys.SK: it[keys.SK]},
					UpdateExpression: aws.String(set), ExpressionAttributeValues: values}); err != nil {
					t.Fatal(err)
				}
				moved[name]++
			}
		}
	}
	return moved
}

// offShard lists the account's reservations and listed items that are not on the
// shard their key builder names.
func offShard(t *testing.T, te *testenv.Env, accountID, dsUUID string) []string {
	t.Helper()
	var off []string
	for _, pk := range keys.DataSourcePartitions(accountID, dsUUID) {
		for _, it := range tablePartition(t, te, pk) {
			sk := sValue(it, keys.SK)
			for _, prefix := range []string{keys.CustomerExternalIDPrefix, keys.SubscriptionEventExternalIDPrefix} {
				if strings.HasPrefix(sk, prefix) && keys.DataSourceReservations(accountID, dsUUID, strings.TrimPrefix(sk, prefix)) != pk {
					off = append(off, pk+" "+sk)
				}
			}
		}
	}
	for name, shards := range listingShards(accountID) {
		for _, pk := range shards {
			for _, it := range gsi1Partition(t, te, pk) {
				var want string
				switch name {
				case "activities":
					want = keys.ActivitiesByAccount(accountID, sValue(it, "uuid"))
					if got, w2 := sValue(it, keys.GSI2PK), keys.ActivitiesByType(accountID, sValue(it, "type"), sValue(it, "uuid")); got != w2 {
						off = append(off, "GSI2 "+got+" "+sValue(it, keys.SK))
					}
				default:
					n, _ := it["id"].(*types.AttributeValueMemberN)
					var id int64
					fmt.Sscan(n.Value, &id)
					if name == "customers" {
						want = keys.CustomerList(accountID, id)
					} else {
						want = keys.SubscriptionEvents(accountID, id)
					}
				}
				if want != pk {
					off = append(off, "GSI1 "+pk+" "+sValue(it, keys.PK))
				}
			}
		}
	}
	return off
}

// TestReshardReservationAlreadyAtItsShard covers a reservation found both in the data
// source's partition and on its shard: the same item (a run stopped between its copy
// and its delete) is moved, i.e. the old one deleted; a different item (the external
// id reserved again after the shards came, so two customers claim it) is left in
// place on both keys and reported.
func TestReshardReservationAlreadyAtItsShard(t *testing.T) {
	te := testenv.New(t)
	ctx := context.Background()
	db := te.Deps.Clients.DynamoDB
	cases := []struct {
		name, onShard   string // customer_uuid of the item already on the shard
		moved, conflict int
	}{
		{"the same item", "cus_a", 1, 0},
		{"another customer's", "cus_b", 0, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			acc := te.NewAccount(t, "Conflict")
			ds := te.NewDataSource(t, acc.ID, "Billing")
			ext := "x0"
			for i := 1; keys.DataSourceReservations(acc.ID, ds.UUID, ext) == keys.DataSourcePartition(acc.ID, ds.UUID); i++ {
				ext = fmt.Sprintf("x%d", i)
			}
			k := keys.CustomerExternalID(acc.ID, ds.UUID, ext)
			old := keys.DataSourcePartition(acc.ID, ds.UUID)
			item := func(pk, customer string) map[string]types.AttributeValue {
				return map[string]types.AttributeValue{keys.PK: sAttr(pk), keys.SK: sAttr(k.SK),
					"et": sAttr(keys.TypeCustomerExternalID), "customer_uuid": sAttr(customer)}
			}
			for _, it := range []map[string]types.AttributeValue{item(old, "cus_a"), item(k.PK, tc.onShard)} {
				if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &te.TableName, Item: it}); err != nil {
					t.Fatal(err)
				}
			}
			out, err := runCmd(t, env{store: te.Deps.Store}, "reshard", "-account", acc.ID)
			if err != nil {
				t.Fatal(err)
			}
			conflicts, _ := out["reservation_conflicts"].([]any)
			if out["reservations_moved"] != float64(tc.moved) || len(conflicts) != tc.conflict {
				t.Fatalf("reshard printed %v", out)
			}
			if left := len(tablePartition(t, te, old)); left != tc.conflict {
				t.Errorf("%d reservations left in the data source's partition, want %d", left, tc.conflict)
			}
			if got, err := te.Deps.Store.CustomerUUIDByExternalID(ctx, acc.ID, ds.UUID, ext); err != nil || got != tc.onShard {
				t.Errorf("the reservation on the shard names %q (%v), want %q", got, err, tc.onShard)
			}
		})
	}
}
