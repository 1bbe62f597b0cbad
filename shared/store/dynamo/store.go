// Package dynamo is the DynamoDB implementation of the storage contract (package
// store): it maps domain types to items of the single table (keys come from package
// keys) and back. Only the wiring builds it.
package dynamo

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// Store reads and writes the single table.
type Store struct {
	t *table.Table
}

var _ store.Store = (*Store)(nil)

// New returns a store on table.
func New(db *dynamodb.Client, tableName string, now func() time.Time) *Store {
	return &Store{t: table.New(db, tableName, now)}
}
