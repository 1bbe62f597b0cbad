// Package plans stores plans and plan groups in the single table, with the external
// id reservations and the reference marker that keeps a plan in use from changing or
// going. The plan item encodings are exported for the import, which reads a batch's
// plans with its other records.
package plans

import "github.com/subsight/subsight/shared/store/dynamo/table"

// Store reads and writes plans and plan groups.
type Store struct {
	t *table.Table
}

// New returns the plans' store on t.
func New(t *table.Table) *Store { return &Store{t: t} }
