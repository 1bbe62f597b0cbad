package testenv

import (
	"context"
	"testing"

	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/model"
)

// Member is the team member every test account has.
var Member = model.Member{Email: "owner@example.com", Name: "Owner Person"}

// NewAccount creates an account (USD, UTC, weeks start on Monday, default settings)
// with one team member, Member, and returns it.
func (e *Env) NewAccount(t testing.TB, name string) model.Account {
	t.Helper()
	ctx := context.Background()
	acc := e.NewAccountWithoutMembers(t, name)
	m := Member
	m.AccountID = acc.ID
	if err := e.Deps.Store.PutMember(ctx, m); err != nil {
		t.Fatalf("testenv: add member: %v", err)
	}
	got, err := e.Deps.Store.GetAccount(ctx, acc.ID)
	if err != nil {
		t.Fatalf("testenv: read account: %v", err)
	}
	return got
}

// NewAccountWithoutMembers creates an account as NewAccount does, without a team
// member: for tests whose first member (the default author of notes) is their own.
func (e *Env) NewAccountWithoutMembers(t testing.TB, name string) model.Account {
	t.Helper()
	acc := model.Account{ID: model.NewAccountID(), Name: name, Currency: "USD", TimeZone: "UTC",
		WeekStartOn: "monday", Settings: model.DefaultSettings()}
	if err := e.Deps.Store.CreateAccount(context.Background(), acc); err != nil {
		t.Fatalf("testenv: create account: %v", err)
	}
	return acc
}

// NewDataSource creates a data source of the account, named name, and returns it.
func (e *Env) NewDataSource(t testing.TB, accountID, name string) model.DataSource {
	t.Helper()
	ds := model.NewDataSource(accountID, name, e.Deps.Now())
	if err := e.Deps.Store.CreateDataSource(context.Background(), ds); err != nil {
		t.Fatalf("testenv: create data source: %v", err)
	}
	return ds
}

// NewCustomer creates a lead of the account in the data source, with external id and
// name xid, and returns it.
func (e *Env) NewCustomer(t testing.TB, accountID, dsUUID, xid string) model.Customer {
	t.Helper()
	ctx := context.Background()
	id, err := e.Deps.Store.NextCustomerID(ctx, accountID)
	if err != nil {
		t.Fatalf("testenv: next customer id: %v", err)
	}
	c := model.Customer{AccountID: accountID, UUID: ids.New(ids.Customer), ID: id, DataSourceUUID: dsUUID,
		DataSourceUUIDs: []string{dsUUID}, ExternalID: xid, ExternalIDs: []string{xid}, Name: xid,
		Status: model.StatusNewLead, CreatedAt: e.Deps.Now()}
	if err := e.Deps.Store.CreateCustomer(ctx, c); err != nil {
		t.Fatalf("testenv: create customer: %v", err)
	}
	return c
}
