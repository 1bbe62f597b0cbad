package main

import (
	"context"

	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/auth"
	"github.com/subsight/subsight/shared/model"
)

// Demo account of the local stack (docs/local-stack.md, "What starts, in order").
const (
	demoAccountName = "Demo Company"
	demoMemberEmail = "demo@example.com"
	demoMemberName  = "Demo User"
)

// seedDemoAccount creates the demo account with apiKey and its one team member, and
// returns the account id. Each run has a fresh emulator, so there is nothing to find
// first.
func seedDemoAccount(ctx context.Context, d *app.Deps, apiKey string) (string, error) {
	acc := model.Account{
		ID:          model.NewAccountID(),
		Name:        demoAccountName,
		Currency:    "USD",
		TimeZone:    "UTC",
		WeekStartOn: "monday",
		Settings:    model.DefaultSettings(),
		CreatedAt:   d.Now(),
	}
	if err := d.Store.CreateAccount(ctx, acc); err != nil {
		return "", err
	}
	if _, err := d.Store.CreateAPIKey(ctx, acc.ID, auth.Hash(apiKey)); err != nil {
		return "", err
	}
	if err := d.Store.PutMember(ctx, model.Member{AccountID: acc.ID, Email: demoMemberEmail, Name: demoMemberName}); err != nil {
		return "", err
	}
	return acc.ID, nil
}
