package ddbmeter

import (
	"context"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// Read units, as DynamoDB charges them (the emulator's figures are placeholders): a
// GetItem, and every key of a BatchGetItem, costs one unit per started 4 KB of the item
// (one unit when there is no item); a Query or Scan one unit per started 4 KB of all
// the items it returns together (at least one); eventually consistent reads half of
// that, transactional reads twice. A Query with a filter expression is charged for the
// items it reads, which the response does not show: the estimate then counts only the
// items returned.
const readUnitBytes = 4096

// Reads is what a ReadRecorder counted.
type Reads struct {
	Requests int           // read requests
	Items    int           // items returned
	Units    float64       // estimated read units
	Elapsed  time.Duration // time spent in those requests, round trips included
}

// ReadRecorder (its zero value is ready) estimates the read units of the requests of
// the clients it is attached to.
type ReadRecorder struct {
	mu    sync.Mutex
	reads Reads
}

// Attach makes every client built from cfg afterwards report its reads.
func (r *ReadRecorder) Attach(cfg *aws.Config) {
	attach(cfg, "ddbmeter-reads", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
		middleware.InitializeOutput, middleware.Metadata, error) {
		start := time.Now()
		out, md, err := next.HandleInitialize(ctx, in)
		if units, items, ok := ReadUnits(in.Parameters, out.Result); ok {
			r.mu.Lock()
			r.reads.Requests++
			r.reads.Items += items
			r.reads.Units += units
			r.reads.Elapsed += time.Since(start)
			r.mu.Unlock()
		}
		return out, md, err
	})
}

// Reset forgets the reads recorded so far.
func (r *ReadRecorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reads = Reads{}
}

// Reads returns what was recorded.
func (r *ReadRecorder) Reads() Reads {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reads
}

// ReadUnits estimates the read units and counts the items of one read request from
// its input and output; ok is false for anything but a read.
func ReadUnits(params, result any) (units float64, items int, ok bool) {
	half := func(consistent *bool) float64 {
		if aws.ToBool(consistent) {
			return 1
		}
		return 0.5
	}
	switch out := result.(type) {
	case *dynamodb.GetItemOutput:
		in, _ := params.(*dynamodb.GetItemInput)
		if out.Item != nil {
			items = 1
		}
		return half(consistentGet(in)) * itemUnits(out.Item), items, true
	case *dynamodb.BatchGetItemOutput:
		in, _ := params.(*dynamodb.BatchGetItemInput)
		for table, got := range out.Responses {
			var consistent *bool
			requested := 0
			if in != nil {
				consistent, requested = in.RequestItems[table].ConsistentRead, len(in.RequestItems[table].Keys)
			}
			requested -= len(out.UnprocessedKeys[table].Keys)
			for _, item := range got {
				units += half(consistent) * itemUnits(item)
			}
			if missing := requested - len(got); missing > 0 {
				units += half(consistent) * float64(missing)
			}
			items += len(got)
		}
		return units, items, true
	case *dynamodb.QueryOutput:
		in, _ := params.(*dynamodb.QueryInput)
		var consistent *bool
		if in != nil {
			consistent = in.ConsistentRead
		}
		return half(consistent) * pageUnits(out.Items), len(out.Items), true
	case *dynamodb.ScanOutput:
		in, _ := params.(*dynamodb.ScanInput)
		var consistent *bool
		if in != nil {
			consistent = in.ConsistentRead
		}
		return half(consistent) * pageUnits(out.Items), len(out.Items), true
	case *dynamodb.TransactGetItemsOutput:
		for _, r := range out.Responses {
			units += 2 * itemUnits(r.Item)
			if r.Item != nil {
				items++
			}
		}
		return units, items, true
	}
	return 0, 0, false
}

func consistentGet(in *dynamodb.GetItemInput) *bool {
	if in == nil {
		return nil
	}
	return in.ConsistentRead
}

// itemUnits is the strongly consistent units of reading one item (1 when absent).
func itemUnits(item map[string]types.AttributeValue) float64 {
	return float64(max(1, (ItemSize(item)+readUnitBytes-1)/readUnitBytes))
}

// pageUnits is the strongly consistent units of a Query or Scan page.
func pageUnits(items []map[string]types.AttributeValue) float64 {
	size := 0
	for _, item := range items {
		size += ItemSize(item)
	}
	return float64(max(1, (size+readUnitBytes-1)/readUnitBytes))
}
