// Package table is the DynamoDB adapter's handle on the single table (the client, the
// table's name, the clock) and the helpers every aggregate's storage uses: reads and
// conditional writes, queries and batches, the one transaction helper and retry
// policy, listings and their page tokens, packed values, the mapping of failed
// conditions to the store's errors. Every request leaves through a Table, which names
// the table and asks DynamoDB for the capacity the request consumed (what ddbmeter
// counts).
package table

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Table is one table of one client.
type Table struct {
	db   *dynamodb.Client
	name string
	now  func() time.Time
}

// New returns the handle on table name.
func New(db *dynamodb.Client, name string, now func() time.Time) *Table {
	return &Table{db: db, name: name, now: now}
}

// Name is the table's name, for the items of a transaction.
func (t *Table) Name() *string {
	name := t.name
	return &name
}

// Now is the store's clock.
func (t *Table) Now() time.Time { return t.now() }

// The requests the store sends, each with the table's name and a report of the
// capacity it consumed. Their signatures are the client's, so that the SDK's
// paginators take a Table.

func (t *Table) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	in.TableName, in.ReturnConsumedCapacity = t.Name(), consumed
	return t.db.GetItem(ctx, in, opts...)
}

func (t *Table) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	in.TableName, in.ReturnConsumedCapacity = t.Name(), consumed
	return t.db.PutItem(ctx, in, opts...)
}

func (t *Table) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	in.TableName, in.ReturnConsumedCapacity = t.Name(), consumed
	return t.db.UpdateItem(ctx, in, opts...)
}

func (t *Table) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	in.TableName, in.ReturnConsumedCapacity = t.Name(), consumed
	return t.db.DeleteItem(ctx, in, opts...)
}

func (t *Table) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	in.TableName, in.ReturnConsumedCapacity = t.Name(), consumed
	return t.db.Query(ctx, in, opts...)
}

func (t *Table) Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	in.TableName, in.ReturnConsumedCapacity = t.Name(), consumed
	return t.db.Scan(ctx, in, opts...)
}

// consumed is what every request asks DynamoDB to report: the capacity it consumed.
const consumed = types.ReturnConsumedCapacityTotal
