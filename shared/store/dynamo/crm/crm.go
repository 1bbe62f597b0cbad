// Package crm stores the customer aggregate in the single table: customers and their
// external id and e-mail reservations, contacts, notes, custom attribute definitions
// and the CRM records (opportunities and tasks). The customer's item encoding and
// listing are exported for the aggregates that write or walk customers alongside
// their own records (billing, imports, metrics).
package crm

import "github.com/subsight/subsight/shared/store/dynamo/table"

// Store reads and writes the customer aggregate.
type Store struct {
	t *table.Table
}

// New returns the customer aggregate's store on t.
func New(t *table.Table) *Store { return &Store{t: t} }
