package store

import (
	"context"
	"time"
)

// StripeSync is what applying a data source's Stripe events keeps between events: the
// events applied (markers that expire), what is known of each Stripe object (the
// snapshot applied last, and the links an event does not carry), and the prices seen.
// Every item lives in the data source's partitions, so purging the data source removes
// them.
type StripeSync interface {
	// StripeEventApplied reports whether the event was marked applied (one read).
	StripeEventApplied(ctx context.Context, accountID, dsUUID, eventID string) (bool, error)
	// MarkStripeEventApplied marks the event applied until expiresAt, with a write that
	// never replaces a marker (a second marking is not an error).
	MarkStripeEventApplied(ctx context.Context, accountID, dsUUID, eventID string, expiresAt time.Time) error
	// GetStripeObjects reads the state of Stripe objects by id; unknown ones are absent.
	GetStripeObjects(ctx context.Context, accountID, dsUUID string, ids []string) (map[string]StripeObject, error)
	// PutStripeObject writes o over the state read at o.Version (0: none), conditional on
	// that version: ErrConflict when another writer got there first. It returns the
	// state as written (its version bumped).
	PutStripeObject(ctx context.Context, accountID, dsUUID string, o StripeObject) (StripeObject, error)
	// GetStripePrices reads prices by id; unknown ones are absent.
	GetStripePrices(ctx context.Context, accountID, dsUUID string, ids []string) (map[string]StripePrice, error)
	// PutStripePrices writes prices (a price with the same id is replaced).
	PutStripePrices(ctx context.Context, accountID, dsUUID string, prices []StripePrice) error
}

// StripeObject is what is kept of one Stripe object (customer, subscription, invoice,
// payment intent or charge) of a data source.
type StripeObject struct {
	ID string
	// Created is the creation (Unix seconds) of the latest event applied for the object
	// and Rank the precedence of the status it carried (invoices): an event older, or
	// of a lower rank, holds an older snapshot.
	Created int64
	Rank    int
	// Customer is the Stripe customer of an invoice, payment intent or charge; Invoice
	// the invoice a payment intent or charge paid.
	Customer string
	Invoice  string
	// TrialStart is a customer's earliest subscription trial start; Deleted: the
	// customer was deleted in Stripe.
	TrialStart int64
	Deleted    bool
	// Items are a subscription's item ids by price id (to place a proration billed as
	// an invoice item).
	Items map[string]string
	// Misses counts the attempts to apply an invoice that found a price unknown.
	Misses  int
	Version int64
}

// StripePrice is what the mapping needs of a Stripe price.
type StripePrice struct {
	ID            string
	Currency      string
	Nickname      string
	ProductName   string
	Interval      string // "" for a one-off price
	IntervalCount int64
	UsageType     string
	Meter         string
	// UnitAmount (smallest currency unit) and BillingScheme (per_unit, tiered) price a
	// subscription schedule's phase.
	UnitAmount    int64
	BillingScheme string
}
