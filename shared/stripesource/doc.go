// Package stripesource turns Stripe objects (API version 2026-02-25.clover, the types of
// stripe-go v84) into the import records a json_import carries: customers, plans,
// invoices with their line items and transactions, subscription events, plus the invoice
// statuses an import cannot set. It also verifies a webhook's Stripe-Signature header.
//
// It is pure: it stores, fetches and serves nothing and imports no AWS package; the
// signature check reads the clock it is given (time.Now without one). The rules it
// follows, with the Stripe fields each reads and the import fields it writes, are in
// docs/stripe.md, "Mapping rules".
package stripesource
