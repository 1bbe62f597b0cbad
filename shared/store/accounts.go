package store

import (
	"context"

	"github.com/subsight/subsight/shared/model"
)

// FXRate is the value of one unit of Currency in the account currency on Day (UTC,
// "2006-01-02"). Rate keeps the operator's decimal text so nothing is lost to binary
// floating point on the way in.
type FXRate struct {
	Day      string
	Currency string
	Rate     string
}

// Accounts are the accounts, their settings and their team members.
type Accounts interface {
	// CreateAccount stores a new account; ErrConflict if the id exists.
	CreateAccount(ctx context.Context, a model.Account) error
	// GetAccount reads the account (its calendar).
	GetAccount(ctx context.Context, accountID string) (model.Account, error)
	// UpdateSettings replaces the account's analytics settings.
	UpdateSettings(ctx context.Context, accountID string, st model.Settings) error
	// UpdateCalendar replaces the account's time zone and first day of the week (the
	// calendar of its metrics; the caller re-buckets the account series afterwards).
	UpdateCalendar(ctx context.Context, accountID, timeZone, weekStartOn string) error
	// UpdateLimits replaces the account's limits (zero: the default) and the copy of
	// requests_per_second on its keys' lookup items; nothing is recomputed.
	UpdateLimits(ctx context.Context, accountID string, l model.Limits) error
	// PutMember adds or renames a team member.
	PutMember(ctx context.Context, m model.Member) error
	// GetMember finds a team member by e-mail (case-insensitive).
	GetMember(ctx context.Context, accountID, email string) (model.Member, error)
	// ListMembers returns the account's team.
	ListMembers(ctx context.Context, accountID string) ([]model.Member, error)
}

// KeyOwner is what the authorizer needs of a key: its account and the account's
// requests per second (0: the default), and the key's id (the rate gate checks it
// against the keys revoked since the authorizer's answer was cached).
type KeyOwner struct {
	AccountID         string
	KeyID             string
	RequestsPerSecond int
}

// KeyResolver finds the account of an API key; all the authorizer needs.
type KeyResolver interface {
	// AccountForKeyHash finds the account that owns an unrevoked key (one consistent read).
	AccountForKeyHash(ctx context.Context, hash string) (string, error)
	// KeyOwner finds the account that owns an unrevoked key with its requests per
	// second, kept on the key's lookup item (one consistent read).
	KeyOwner(ctx context.Context, hash string) (KeyOwner, error)
}

// APIKeys are an account's API keys, stored as hashes.
type APIKeys interface {
	KeyResolver
	// CreateAPIKey stores the hash of a new key and returns the key's id: the lookup item
	// the authorizer reads, then the key in the account's partition (a crash in between
	// leaves a usable key the account does not list; the admin command reports failure
	// and creates another).
	CreateAPIKey(ctx context.Context, accountID, hash string) (string, error)
	// ListAPIKeys returns every key of the account, revoked ones included.
	ListAPIKeys(ctx context.Context, accountID string) ([]model.APIKey, error)
	// RevokeAPIKey makes the key fail at once: the rate gate refuses it from then on
	// (CountRequest's ErrRevoked) even while API Gateway still caches the authorizer's
	// answer for it, and the authorizer can no longer find it.
	RevokeAPIKey(ctx context.Context, accountID, keyID string) error
}

// AttributeDefinitions are the account's custom attribute definitions.
type AttributeDefinitions interface {
	// DefineAttribute defines a custom attribute key unless it is defined already, by a
	// conditional write, and returns the definition in force (the existing one when the
	// key was defined before, possibly with another type).
	DefineAttribute(ctx context.Context, d model.AttrDefinition) (model.AttrDefinition, error)
	// AttrDefinitions returns the account's definitions for an object type, by key.
	AttrDefinitions(ctx context.Context, accountID, object string) (map[string]model.AttrDefinition, error)
}

// FXRates are the account's exchange rates.
type FXRates interface {
	// PutFXRates stores rates of the account, replacing those of the same day and currency.
	PutFXRates(ctx context.Context, accountID string, rates []FXRate) error
	// FXRatesBetween reads the rates of one currency from day from to day to (inclusive),
	// keyed by day.
	FXRatesBetween(ctx context.Context, accountID, currency, from, to string) (map[string]float64, error)
}
