// Package stripesource turns Stripe objects (API version 2026-02-25.clover, the types of
// stripe-go v84) into the import records a json_import carries: customers, plans,
// invoices with their line items and transactions, subscription events, plus the invoice
// statuses an import cannot set. It also verifies a webhook's Stripe-Signature header.
//
// It is pure: it stores, fetches and serves nothing, imports no AWS package and reads no
// clock of its own. The rules it follows, with the Stripe fields each reads and the import
// fields it writes, are in docs/stripe.md, "Mapping rules".
package stripesource
