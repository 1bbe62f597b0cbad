package ddbmeter

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// The emulator's ConsumedCapacity is a placeholder, so benchmarks that must state
// what a workload costs on DynamoDB compute write units from the items themselves,
// with DynamoDB's rules: one unit per started KB of the item per write, the same
// again for every global secondary index the item is in (all project everything),
// twice for a transaction.

// ItemSize is DynamoDB's size of an item: attribute names plus values.
func ItemSize(item map[string]types.AttributeValue) int {
	n := 0
	for k, v := range item {
		n += len(k) + valueSize(v)
	}
	return n
}

// valueSize: strings by length, numbers about one byte per two digits plus one,
// lists and maps 3 bytes plus 1 per element (and the keys of maps).
func valueSize(v types.AttributeValue) int {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return len(x.Value)
	case *types.AttributeValueMemberN:
		return (len(x.Value)+1)/2 + 1
	case *types.AttributeValueMemberB:
		return len(x.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range x.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range x.Value {
			n += 1 + valueSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range x.Value {
			n += 1 + len(k) + valueSize(e)
		}
		return n
	}
	return 0
}

// gsiKeys are the partition keys of the table's global secondary indexes.
var gsiKeys = []string{"GSI1PK", "GSI2PK"}

// WriteUnits is what one write of item costs, its indexes included.
func WriteUnits(item map[string]types.AttributeValue) float64 {
	units := float64((ItemSize(item) + 1023) / 1024)
	if units == 0 {
		units = 1
	}
	w := units
	for _, g := range gsiKeys {
		if _, ok := item[g]; ok {
			w += units
		}
	}
	return w
}

// WriteRecorder (its zero value is ready) estimates the write units of the requests
// of the clients it is attached to. Puts are priced from the item sent; deletes and updates from the item
// as it is when Units is called (an update's new size is unknown from its request).
type WriteRecorder struct {
	mu      sync.Mutex
	puts    float64
	touched []map[string]types.AttributeValue // keys of updates and deletes
	factor  []float64                         // 2 for a transaction's items
}

// Reset forgets the writes recorded so far.
func (w *WriteRecorder) Reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.puts, w.touched, w.factor = 0, nil, nil
}

// Attach makes every client built from cfg afterwards report its writes.
func (w *WriteRecorder) Attach(cfg *aws.Config) {
	attach(cfg, "ddbmeter-writes", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
		middleware.InitializeOutput, middleware.Metadata, error) {
		w.record(in.Parameters)
		return next.HandleInitialize(ctx, in)
	})
}

func (w *WriteRecorder) record(params any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch in := params.(type) {
	case *dynamodb.PutItemInput:
		w.puts += WriteUnits(in.Item)
	case *dynamodb.BatchWriteItemInput:
		for _, reqs := range in.RequestItems {
			for _, r := range reqs {
				switch {
				case r.PutRequest != nil:
					w.puts += WriteUnits(r.PutRequest.Item)
				case r.DeleteRequest != nil:
					w.touched, w.factor = append(w.touched, r.DeleteRequest.Key), append(w.factor, 1)
				}
			}
		}
	case *dynamodb.UpdateItemInput:
		w.touched, w.factor = append(w.touched, in.Key), append(w.factor, 1)
	case *dynamodb.DeleteItemInput:
		w.touched, w.factor = append(w.touched, in.Key), append(w.factor, 1)
	case *dynamodb.TransactWriteItemsInput:
		for _, it := range in.TransactItems {
			switch {
			case it.Put != nil:
				w.puts += 2 * WriteUnits(it.Put.Item)
			case it.Update != nil:
				w.touched, w.factor = append(w.touched, it.Update.Key), append(w.factor, 2)
			case it.Delete != nil:
				w.touched, w.factor = append(w.touched, it.Delete.Key), append(w.factor, 2)
			}
		}
	}
}

// Units returns the estimated write units so far, reading the updated and deleted
// items of table (the one table of the application) with db, a client the recorder
// is not attached to; an item that no longer exists counts one unit.
func (w *WriteRecorder) Units(ctx context.Context, db *dynamodb.Client, table string) (float64, error) {
	w.mu.Lock()
	total, touched, factor := w.puts, w.touched, w.factor
	w.mu.Unlock()
	for i, k := range touched {
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: k})
		if err != nil {
			return 0, err
		}
		units := 1.0
		if out.Item != nil {
			units = WriteUnits(out.Item)
		}
		total += factor[i] * units
	}
	return total, nil
}
