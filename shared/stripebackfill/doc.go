// Package stripebackfill reads a Stripe account's history through Stripe's API
// (stripe-go v84, API version 2026-02-25.clover) and hands it on, one Stripe customer's
// records at a time, to an Applier: recurring prices, then customers a page at a time
// and, for each, its subscriptions (every status), invoices (every status, their lines
// and payments to the end), charges and their refunds, mapped by package stripesource.
//
// Requests keep to a rate per connection (Options.Rate) and wait out Stripe's 429s;
// every list is followed to its end. A backfill runs as a job of the Stripe backfill queue
// (package stripeworkers), in steps (Runner.Step): each reads pages of customers for a bounded time, saves its
// position and progress (model.StripeBackfill), and asks for the next step.
// docs/stripe.md, "Backfill", has the order, the rate and what one account's backfill
// costs the others.
package stripebackfill
