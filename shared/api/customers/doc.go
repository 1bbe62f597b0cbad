// Package customers holds the HTTP operations of customers and what hangs on them:
// contacts, custom attributes and tags, and the merges and unmerges of customer
// records.
package customers
