// Package accounts stores the account aggregate in the single table: accounts and
// their calendars, team members, API keys, the request counter of the rate gate, data
// sources, exchange rates and dead letters.
package accounts

import "github.com/subsight/subsight/shared/store/dynamo/table"

// Store reads and writes the account aggregate.
type Store struct {
	t *table.Table
}

// New returns the account aggregate's store on t.
func New(t *table.Table) *Store { return &Store{t: t} }
