package apitest

import (
	"context"
	"fmt"
	"net/url"
	"sync"

	"github.com/subsight/subsight/shared/model"
)

// SeedCustomers stores n customers in ds (of its account) through the store (fast), with the given
// status and e-mail, and returns their uuids in creation order.
func (e *ResourceEnv) SeedCustomers(n int, ds model.DataSource, status, email string) []string {
	return e.seedCustomersIn(ds.AccountID, n, ds, status, email)
}

func (e *ResourceEnv) seedCustomersIn(accountID string, n int, ds model.DataSource, status, email string) []string {
	e.t.Helper()
	uuids := make([]string, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	// moto does not serialise concurrent updates of one item (the id counter), so
	// the seeding runs one create at a time.
	sem := make(chan struct{}, 1)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			ctx := context.Background()
			id, err := e.D.Store.NextCustomerID(ctx, accountID)
			if err != nil {
				errs <- err
				return
			}
			uuid := model.NewCustomerUUID()
			ext := fmt.Sprintf("seed-%s-%d", ds.UUID, id)
			c := model.Customer{AccountID: accountID, ID: id, UUID: uuid, DataSourceUUID: ds.UUID,
				DataSourceUUIDs: []string{ds.UUID}, ExternalID: ext, ExternalIDs: []string{ext},
				Systems: []string{ds.System}, Name: "Seed " + ext, Email: email, Status: status, Tags: []string{},
				BillingSystemType: model.BillingSystemCustom, Currency: "USD", CreatedAt: e.D.Now(), UpdatedAt: e.D.Now()}
			if err := e.D.Store.CreateCustomer(ctx, c); err != nil {
				errs <- err
				return
			}
			uuids[i] = uuid
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		e.t.Fatal(err)
	}
	return uuids
}

// CustomerPages walks a listing and returns every uuid and the page sizes.
func (e *ResourceEnv) CustomerPages(q url.Values) ([]string, []int) {
	e.t.Helper()
	var uuids []string
	var sizes []int
	q = cloneValues(q)
	for range 20 {
		status, body := e.Do(e.Acc, "ListCustomers", nil, q, nil)
		if status != 200 {
			e.t.Fatalf("%v: %d %v", q, status, body)
		}
		entries := body["entries"].([]any)
		sizes = append(sizes, len(entries))
		for _, en := range entries {
			uuids = append(uuids, en.(map[string]any)["uuid"].(string))
		}
		if _, first := body["current_page"]; first != (q.Get("cursor") == "") {
			e.t.Fatalf("legacy keys on the wrong page: %v", body)
		}
		if body["has_more"] != true {
			return uuids, sizes
		}
		q.Set("cursor", body["cursor"].(string))
	}
	e.t.Fatal("listing does not end")
	return nil, nil
}
