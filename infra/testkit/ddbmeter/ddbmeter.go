// Package ddbmeter counts the DynamoDB requests a client makes and the capacity units
// DynamoDB reports for them (the store sets ReturnConsumedCapacity TOTAL on every
// call), per operation: benchmarks and tests use it to show what an API operation
// costs on the AWS bill, and that an idempotent repeat writes nothing.
package ddbmeter

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// Meter accumulates requests and units.
type Meter struct {
	mu       sync.Mutex
	requests map[string]int
	units    map[string]float64
}

// New returns an empty meter.
func New() *Meter {
	return &Meter{requests: map[string]int{}, units: map[string]float64{}}
}

// Attach makes every client built from cfg afterwards report to the meter.
func (m *Meter) Attach(cfg *aws.Config) {
	cfg.APIOptions = append(cfg.APIOptions, m.middleware)
}

// Client returns a DynamoDB client on cfg that reports to the meter.
func (m *Meter) Client(cfg aws.Config) *dynamodb.Client {
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, m.middleware)
	})
}

// Reset forgets everything counted so far.
func (m *Meter) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests, m.units = map[string]int{}, map[string]float64{}
}

// Snapshot is what was counted.
type Snapshot struct {
	Requests map[string]int     // per operation name, e.g. "Query"
	Units    map[string]float64 // capacity units reported, per operation
}

// Snapshot returns a copy of the counts.
func (m *Meter) Snapshot() Snapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := Snapshot{Requests: map[string]int{}, Units: map[string]float64{}}
	for k, v := range m.requests {
		s.Requests[k] = v
	}
	for k, v := range m.units {
		s.Units[k] = v
	}
	return s
}

// TotalRequests is the number of requests of every operation.
func (s Snapshot) TotalRequests() int {
	n := 0
	for _, v := range s.Requests {
		n += v
	}
	return n
}

// TotalUnits is the capacity units of every operation.
func (s Snapshot) TotalUnits() float64 {
	n := 0.0
	for _, v := range s.Units {
		n += v
	}
	return n
}

// dynamoDBOps are DynamoDB's data operations (a meter attached to a configuration
// also counts the requests of the other services' clients built from it).
var dynamoDBOps = map[string]bool{"GetItem": true, "PutItem": true, "UpdateItem": true, "DeleteItem": true, "Query": true,
	"Scan": true, "BatchGetItem": true, "BatchWriteItem": true, "TransactWriteItems": true, "TransactGetItems": true}

// DynamoDBRequests is the number of DynamoDB data requests.
func (s Snapshot) DynamoDBRequests() int {
	n := 0
	for op, v := range s.Requests {
		if dynamoDBOps[op] {
			n += v
		}
	}
	return n
}

// Writes counts the write requests (the ones that cost write units).
func (s Snapshot) Writes() int {
	n := 0
	for op, v := range s.Requests {
		switch op {
		case "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems":
			n += v
		}
	}
	return n
}

// String renders "Query=1 GetItem=2".
func (s Snapshot) String() string {
	ops := make([]string, 0, len(s.Requests))
	for op := range s.Requests {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	var b strings.Builder
	for i, op := range ops {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(op)
		b.WriteByte('=')
		b.WriteString(strconv.Itoa(s.Requests[op]))
	}
	return b.String()
}

func (m *Meter) middleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("ddbmeter",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
			middleware.InitializeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleInitialize(ctx, in)
			op := awsmiddleware.GetOperationName(ctx)
			m.mu.Lock()
			m.requests[op]++
			m.units[op] += consumedUnits(out.Result)
			m.mu.Unlock()
			return out, md, err
		}), middleware.After)
}

func consumedUnits(result any) float64 {
	one := func(c *types.ConsumedCapacity) float64 {
		if c == nil || c.CapacityUnits == nil {
			return 0
		}
		return *c.CapacityUnits
	}
	many := func(cs []types.ConsumedCapacity) (n float64) {
		for i := range cs {
			n += one(&cs[i])
		}
		return n
	}
	switch r := result.(type) {
	case *dynamodb.GetItemOutput:
		return one(r.ConsumedCapacity)
	case *dynamodb.PutItemOutput:
		return one(r.ConsumedCapacity)
	case *dynamodb.UpdateItemOutput:
		return one(r.ConsumedCapacity)
	case *dynamodb.DeleteItemOutput:
		return one(r.ConsumedCapacity)
	case *dynamodb.QueryOutput:
		return one(r.ConsumedCapacity)
	case *dynamodb.ScanOutput:
		return one(r.ConsumedCapacity)
	case *dynamodb.TransactWriteItemsOutput:
		return many(r.ConsumedCapacity)
	case *dynamodb.TransactGetItemsOutput:
		return many(r.ConsumedCapacity)
	case *dynamodb.BatchWriteItemOutput:
		return many(r.ConsumedCapacity)
	case *dynamodb.BatchGetItemOutput:
		return many(r.ConsumedCapacity)
	}
	return 0
}
