package api_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/model"
)

// resourceEnv is a fresh table with two accounts: acc (two data sources, a team
// member, customers made on demand) and other (its own data source), for the plan and
// note tests.
type resourceEnv struct {
	t        testing.TB
	env      *testenv.Env
	d        *api.Deps
	acc      string
	other    string
	ds       model.DataSource
	ds2      model.DataSource
	otherDS  model.DataSource
	member   model.Member
	ctx      context.Context
	customer string
}

func newResourceEnv(t testing.TB) *resourceEnv {
	t.Helper()
	env := testenv.New(t)
	e := &resourceEnv{t: t, env: env, d: env.API, ctx: context.Background()}
	e.acc, e.other = e.account("Acme"), e.account("Other Co")
	e.ds, e.ds2 = e.dataSource(e.acc, "Billing"), e.dataSource(e.acc, "Second")
	e.otherDS = e.dataSource(e.other, "Theirs")
	e.member = model.Member{AccountID: e.acc, Email: "Ann.Author@example.com", Name: "Ann Author"}
	if err := e.d.Store.PutMember(e.ctx, e.member); err != nil {
		t.Fatal(err)
	}
	e.customer = e.newCustomer(e.acc, e.ds)
	return e
}

func (e *resourceEnv) account(name string) string {
	e.t.Helper()
	a := model.Account{ID: model.NewAccountID(), Name: name, Currency: "USD", TimeZone: "UTC",
		WeekStartOn: "monday", Settings: model.DefaultSettings()}
	if err := e.d.Store.CreateAccount(e.ctx, a); err != nil {
		e.t.Fatal(err)
	}
	return a.ID
}

func (e *resourceEnv) dataSource(accountID, name string) model.DataSource {
	e.t.Helper()
	ds := model.NewDataSource(accountID, name, e.d.Now())
	if err := e.d.Store.CreateDataSource(e.ctx, ds); err != nil {
		e.t.Fatal(err)
	}
	return ds
}

// newCustomer stores a minimal customer through the customers store.
func (e *resourceEnv) newCustomer(accountID string, ds model.DataSource) string {
	e.t.Helper()
	id, err := e.d.Store.NextCustomerID(e.ctx, accountID)
	if err != nil {
		e.t.Fatal(err)
	}
	uuid := model.NewCustomerUUID()
	ext := "ext-" + uuid
	c := model.Customer{AccountID: accountID, ID: id, UUID: uuid, DataSourceUUID: ds.UUID,
		DataSourceUUIDs: []string{ds.UUID}, ExternalID: ext, ExternalIDs: []string{ext},
		Systems: []string{ds.System}, Name: "Customer " + uuid, Status: model.StatusNewLead,
		Tags: []string{}, BillingSystemType: model.BillingSystemCustom, Currency: "USD",
		CreatedAt: e.d.Now(), UpdatedAt: e.d.Now()}
	if err := e.d.Store.CreateCustomer(e.ctx, c); err != nil {
		e.t.Fatal(err)
	}
	return uuid
}

// do calls an endpoint as the given account.
func (e *resourceEnv) do(accountID string, ep func(*api.Deps) apigw.Endpoint, method, route string,
	params map[string]string, query url.Values, body any) (int, map[string]any) {
	e.t.Helper()
	return apigwtest.Do(e.t, ep(e.d), apigwtest.Call{Method: method, Route: route, PathParams: params,
		Query: query, Body: body, AccountID: accountID})
}

// raw calls an endpoint and returns the raw body, for key-order checks.
func (e *resourceEnv) raw(accountID string, ep func(*api.Deps) apigw.Endpoint, method, route string,
	params map[string]string, body any) (int, string) {
	e.t.Helper()
	resp := apigwtest.Raw(e.t, ep(e.d), apigwtest.Call{Method: method, Route: route, PathParams: params,
		Body: body, AccountID: accountID})
	return resp.StatusCode, resp.Body
}
