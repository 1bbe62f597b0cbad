// Package billing holds the HTTP operations of the billing records: plans and plan
// groups, invoices with their line items and transactions, subscription events, and
// the Import-API view of subscriptions.
package billing
