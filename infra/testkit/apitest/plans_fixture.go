package apitest

import (
	"context"
	"net/url"
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/model"
)

// ResourceEnv is a fresh table with two accounts: acc (two data sources, a team
// member, customers made on demand) and other (its own data source), for the plan and
// note tests.
type ResourceEnv struct {
	t        testing.TB
	Env      *testenv.Env
	D        *api.Deps
	Acc      string
	Other    string
	DS       model.DataSource
	DS2      model.DataSource
	OtherDS  model.DataSource
	Member   model.Member
	Ctx      context.Context
	Customer string
}

func NewResourceEnv(t testing.TB) *ResourceEnv {
	t.Helper()
	env := testenv.New(t)
	e := newResourceEnv(t, env, env.API, model.Member{Email: "Ann.Author@example.com", Name: "Ann Author"})
	e.OtherDS = e.DataSource(e.Other, "Theirs")
	return e
}

// newResourceEnv makes the accounts, acc's data sources, member and customer, on env's
// table through d's store.
func newResourceEnv(t testing.TB, env *testenv.Env, d *api.Deps, member model.Member) *ResourceEnv {
	t.Helper()
	e := &ResourceEnv{t: t, Env: env, D: d, Ctx: context.Background()}
	e.Acc, e.Other = env.NewAccountWithoutMembers(t, "Acme").ID, env.NewAccountWithoutMembers(t, "Other Co").ID
	e.DS, e.DS2 = e.DataSource(e.Acc, "Billing"), e.DataSource(e.Acc, "Second")
	e.Member = member
	e.Member.AccountID = e.Acc
	if err := e.D.Store.PutMember(e.Ctx, e.Member); err != nil {
		t.Fatal(err)
	}
	e.Customer = e.NewCustomer(e.Acc, e.DS)
	return e
}

func (e *ResourceEnv) DataSource(accountID, name string) model.DataSource {
	e.t.Helper()
	return e.Env.NewDataSource(e.t, accountID, name)
}

// NewCustomer stores a minimal customer through the customers store.
func (e *ResourceEnv) NewCustomer(accountID string, ds model.DataSource) string {
	e.t.Helper()
	id, err := e.D.Store.NextCustomerID(e.Ctx, accountID)
	if err != nil {
		e.t.Fatal(err)
	}
	uuid := model.NewCustomerUUID()
	ext := "ext-" + uuid
	c := model.Customer{AccountID: accountID, ID: id, UUID: uuid, DataSourceUUID: ds.UUID,
		DataSourceUUIDs: []string{ds.UUID}, ExternalID: ext, ExternalIDs: []string{ext},
		Systems: []string{ds.System}, Name: "Customer " + uuid, Status: model.StatusNewLead,
		Tags: []string{}, BillingSystemType: model.BillingSystemCustom, Currency: "USD",
		CreatedAt: e.D.Now(), UpdatedAt: e.D.Now()}
	if err := e.D.Store.CreateCustomer(e.Ctx, c); err != nil {
		e.t.Fatal(err)
	}
	return uuid
}

// Do calls the operation named (its registry name, Operation) as the given account.
func (e *ResourceEnv) Do(accountID, operation string, params map[string]string, query url.Values, body any) (int, map[string]any) {
	e.t.Helper()
	return Do(e.t, e.D, operation, apigwtest.Call{PathParams: params, Query: query, Body: body, AccountID: accountID})
}

// Raw calls the operation named and returns the raw body, for key-order checks.
func (e *ResourceEnv) Raw(accountID, operation string, params map[string]string, body any) (int, string) {
	e.t.Helper()
	resp := Raw(e.t, e.D, operation, apigwtest.Call{PathParams: params, Body: body, AccountID: accountID})
	return resp.StatusCode, resp.Body
}
