package table_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/timefmt"
)

// TestShardedListingsMergeInOrder: the customer listing (spread by id over the
// listing shards) and the activity log (spread by uuid hash) read page by page, with
// and without filters and in both directions, return every matching item once, in the
// order of one partition, each page at most its limit.
func TestShardedListingsMergeInOrder(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	db := env.Deps.Store
	acc := env.NewAccount(t, "Sharded").ID
	ds := model.NewDataSource(acc, "Billing", env.Deps.Now())
	if err := db.CreateDataSource(ctx, ds); err != nil {
		t.Fatal(err)
	}
	const customers = 23 // not a multiple of the shard count
	var all, active []int64
	for i := range customers {
		id, err := db.NextCustomerID(ctx, acc)
		if err != nil {
			t.Fatal(err)
		}
		status := model.StatusNewLead
		if i%3 == 0 {
			status, active = model.StatusActive, append(active, id)
		}
		all = append(all, id)
		xid := fmt.Sprintf("c%02d", i)
		if err := db.CreateCustomer(ctx, model.Customer{AccountID: acc, UUID: fmt.Sprintf("cus_shard_%02d", i), ID: id,
			DataSourceUUID: ds.UUID, DataSourceUUIDs: []string{ds.UUID}, ExternalID: xid, ExternalIDs: []string{xid},
			Name: xid, Status: status, CreatedAt: env.Deps.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	customerCases := []struct {
		name  string
		f     store.CustomerFilter
		limit int
		want  []int64
	}{
		{"one per page", store.CustomerFilter{}, 1, all},
		{"a few per page", store.CustomerFilter{}, 5, all},
		{"all in one page", store.CustomerFilter{}, 200, all},
		{"filtered, a few per page", store.CustomerFilter{Status: model.StatusActive}, 2, active},
		{"filtered, one page", store.CustomerFilter{Status: model.StatusActive}, 50, active},
	}
	for _, tc := range customerCases {
		t.Run("customers "+tc.name, func(t *testing.T) {
			ids := walk(t, func(start store.PageToken) (store.Page[model.Customer], error) {
				return db.ListCustomers(ctx, acc, tc.f, tc.limit, start)
			}, tc.limit, func(c model.Customer) int64 { return c.ID })
			if !slices.Equal(ids, tc.want) {
				t.Errorf("ids %v, want %v", ids, tc.want)
			}
		})
	}

	// Activities one minute apart, alternating two types.
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var acts []store.Activity
	for i := range 19 {
		typ := "new_biz"
		if i%2 == 1 {
			typ = "expansion"
		}
		at := base.Add(time.Duration(i) * time.Minute)
		acts = append(acts, store.Activity{UUID: fmt.Sprintf("act-%02d", i), Date: at, Type: typ,
			CustomerUUID: "cus_shard_00"})
	}
	if err := db.Series().WriteActivities(ctx, acc, "cus_shard_00", acts, nil); err != nil {
		t.Fatal(err)
	}
	shards := map[string]bool{}
	for _, a := range acts {
		shards[keys.ActivitiesByAccount(acc, a.UUID)] = true
	}
	if len(shards) < 2 {
		t.Fatalf("the activities landed in %d shard(s); the test needs several", len(shards))
	}
	activityCases := []struct {
		name  string
		f     store.ActivityFilter
		limit int
		keep  func(store.Activity) bool
	}{
		{"ascending", store.ActivityFilter{}, 4, nil},
		{"descending", store.ActivityFilter{Descending: true}, 3, nil},
		{"one type, descending", store.ActivityFilter{Type: "expansion", Descending: true}, 2, func(a store.Activity) bool { return a.Type == "expansion" }},
		{"one type, ascending, after the third", store.ActivityFilter{Type: "new_biz", After: keys.ActivityOrder(timefmt.Nanos(acts[2].Date), acts[2].UUID)}, 2,
			func(a store.Activity) bool { return a.Type == "new_biz" && a.Date.After(acts[2].Date) }},
	}
	for _, tc := range activityCases {
		t.Run("activities "+tc.name, func(t *testing.T) {
			var want []string
			for _, a := range acts {
				if tc.keep == nil || tc.keep(a) {
					want = append(want, a.UUID)
				}
			}
			if tc.f.Descending {
				slices.Reverse(want)
			}
			uuids := walk(t, func(start store.PageToken) (store.Page[store.Activity], error) {
				return db.ListActivities(ctx, acc, tc.f, tc.limit, start)
			}, tc.limit, func(a store.Activity) string { return a.UUID })
			if !slices.Equal(uuids, want) {
				t.Errorf("uuids %v, want %v", uuids, want)
			}
		})
	}
}

// walk follows a listing's tokens to its end and returns the id of every item read.
func walk[T, ID any](t *testing.T, page func(store.PageToken) (store.Page[T], error), limit int, id func(T) ID) []ID {
	t.Helper()
	var out []ID
	var start store.PageToken
	for range 100 {
		p, err := page(start)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Items) > limit {
			t.Fatalf("a page of %d items, limit %d", len(p.Items), limit)
		}
		for _, it := range p.Items {
			out = append(out, id(it))
		}
		if !p.HasMore {
			return out
		}
		start = p.Next
	}
	t.Fatal("the listing does not end")
	return nil
}
