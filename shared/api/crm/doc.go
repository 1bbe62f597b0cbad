// Package crm holds the HTTP operations of a customer's CRM records: notes and call
// logs (under /v1/customer_notes and /v1/notes), opportunities and tasks.
package crm
