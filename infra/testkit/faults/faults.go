// Package faults injects into the DynamoDB requests of the SDK clients it is attached
// to the failures DynamoDB really produces and the emulator never does: transaction
// conflicts, throttling, 500 and 503 answers, and timeouts after the write was applied
// (the retry then meets its own first attempt). It is a test mode: a middleware inside
// the SDK's retry loop, so that the SDK retries what it would retry on AWS and the
// rest reaches the code.
package faults

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// Kinds of fault.
const (
	TransactionConflict    = "TransactionConflict" // a transaction cancelled, or a write refused, because another transaction holds the item
	Throttling             = "ThrottlingException"
	ProvisionedThroughput  = "ProvisionedThroughputExceededException"
	InternalServerError    = "500"
	ServiceUnavailable     = "503"
	TimeoutAfterWriteApply = "timeout after the write applied"
)

// Kinds lists every kind, in the order the injector draws them.
var Kinds = []string{TransactionConflict, Throttling, ProvisionedThroughput, InternalServerError, ServiceUnavailable, TimeoutAfterWriteApply}

// Injector fails a fraction of the DynamoDB requests (each attempt of each request
// drawn independently) with a kind drawn uniformly among those that fit the request:
// conflicts and timeouts only for writes. It counts what it injected. Off until Start.
type Injector struct {
	rate float64
	on   atomic.Bool

	mu       sync.Mutex
	rnd      *rand.Rand
	injected map[string]int
	requests int

	hot      func(pk string) bool // nil: no hot partition
	hotUntil time.Time
}

// New returns an injector failing rate (0–1) of the requests, drawn from seed.
func New(rate float64, seed uint64) *Injector {
	return &Injector{rate: rate, rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), injected: map[string]int{}}
}

// Hot adds a hot partition: from now on, for window, while the injector is on, every attempt of every request
// that touches a partition key value for which match is true (a key of its item or
// items, or the key value of a Query of the table) fails with
// ProvisionedThroughputExceededException, as DynamoDB answers while one partition
// takes more than its share. Counted as kind HotPartition.
func (f *Injector) Hot(match func(pk string) bool, window time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hot, f.hotUntil = match, time.Now().Add(window)
}

// HotPartition is the kind of the faults of a hot partition (Hot).
const HotPartition = "hot partition"

// Start and Stop switch injection on and off (set-up and checks run without faults).
func (f *Injector) Start() { f.on.Store(true) }

// Stop switches injection off.
func (f *Injector) Stop() { f.on.Store(false) }

// Injected returns the number of faults of each kind injected so far.
func (f *Injector) Injected() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]int, len(f.injected))
	for k, v := range f.injected {
		out[k] = v
	}
	return out
}

// Requests is the number of DynamoDB request attempts seen while on.
func (f *Injector) Requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests
}

// Summary renders the counts: "TransactionConflict=12 ThrottlingException=9 …".
func (f *Injector) Summary() string {
	in := f.Injected()
	parts := make([]string, 0, len(Kinds))
	total := 0
	for _, k := range Kinds {
		parts = append(parts, fmt.Sprintf("%s=%d", k, in[k]))
		total += in[k]
	}
	if n := in[HotPartition]; n > 0 {
		parts = append(parts, fmt.Sprintf("%s=%d", HotPartition, n))
		total += n
	}
	return fmt.Sprintf("%d faults in %d DynamoDB request attempts (%s)", total, f.Requests(), strings.Join(parts, ", "))
}

// Attach makes every client built from cfg afterwards go through the injector.
func (f *Injector) Attach(cfg *aws.Config) {
	cfg.APIOptions = append(cfg.APIOptions, func(stack *middleware.Stack) error {
		// The operation's input is seen only before serialisation: note there whether
		// the request touches the hot partition.
		if err := stack.Initialize.Add(middleware.InitializeMiddlewareFunc("faults-hot", f.noteHot), middleware.After); err != nil {
			return err
		}
		mw := middleware.FinalizeMiddlewareFunc("faults", f.handle)
		// Inside the retry loop: every attempt may fail, and the SDK retries as on AWS.
		if err := stack.Finalize.Insert(mw, "Retry", middleware.After); err != nil {
			return stack.Finalize.Add(mw, middleware.After)
		}
		return nil
	})
}

var writes = map[string]bool{"PutItem": true, "UpdateItem": true, "DeleteItem": true, "BatchWriteItem": true, "TransactWriteItems": true}

// draw decides the fault of one attempt ("" = none).
func (f *Injector) draw(op string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests++
	if f.rnd.Float64() >= f.rate {
		return ""
	}
	kinds := Kinds
	if !writes[op] {
		kinds = []string{Throttling, ProvisionedThroughput, InternalServerError, ServiceUnavailable}
	}
	k := kinds[f.rnd.IntN(len(kinds))]
	f.injected[k]++
	return k
}

func (f *Injector) handle(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (
	middleware.FinalizeOutput, middleware.Metadata, error) {
	if !f.on.Load() || awsmiddleware.GetServiceID(ctx) != "DynamoDB" {
		return next.HandleFinalize(ctx, in)
	}
	op := awsmiddleware.GetOperationName(ctx)
	if hot, _ := ctx.Value(hotKey{}).(bool); hot && f.hotNow() {
		return middleware.FinalizeOutput{}, middleware.Metadata{}, &types.ProvisionedThroughputExceededException{
			Message: aws.String("The level of configured provisioned throughput for the table was exceeded (injected: hot partition)")}
	}
	kind := f.draw(op)
	switch kind {
	case "":
		return next.HandleFinalize(ctx, in)
	case TimeoutAfterWriteApply:
		out, md, err := next.HandleFinalize(ctx, in)
		if err != nil {
			return out, md, err
		}
		// The write is done; the client sees its connection time out, as when the
		// answer is lost, and the SDK sends the request again.
		return middleware.FinalizeOutput{}, md, &smithyhttp.RequestSendError{Err: timeoutError{}}
	case TransactionConflict:
		if op == "TransactWriteItems" {
			return middleware.FinalizeOutput{}, middleware.Metadata{}, &types.TransactionCanceledException{
				Message:             aws.String("Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict] (injected)"),
				CancellationReasons: []types.CancellationReason{{Code: aws.String("TransactionConflict")}},
			}
		}
		return middleware.FinalizeOutput{}, middleware.Metadata{}, &types.TransactionConflictException{
			Message: aws.String("Transaction is ongoing for the item (injected)")}
	case Throttling:
		return middleware.FinalizeOutput{}, middleware.Metadata{}, &smithy.GenericAPIError{Code: Throttling, Message: "Rate exceeded (injected)"}
	case ProvisionedThroughput:
		return middleware.FinalizeOutput{}, middleware.Metadata{}, &types.ProvisionedThroughputExceededException{
			Message: aws.String("The level of configured provisioned throughput for the table was exceeded (injected)")}
	default: // 500, 503
		status := http.StatusInternalServerError
		if kind == ServiceUnavailable {
			status = http.StatusServiceUnavailable
		}
		return middleware.FinalizeOutput{}, middleware.Metadata{}, &awshttp.ResponseError{ResponseError: &smithyhttp.ResponseError{
			Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status, Header: http.Header{}}},
			Err:      errors.New("injected " + kind)}}
	}
}

type hotKey struct{}

func (f *Injector) noteHot(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
	middleware.InitializeOutput, middleware.Metadata, error) {
	f.mu.Lock()
	match := f.hot
	f.mu.Unlock()
	if match != nil && f.on.Load() && touches(in.Parameters, match) {
		ctx = context.WithValue(ctx, hotKey{}, true)
	}
	return next.HandleInitialize(ctx, in)
}

// hotNow counts an attempt on the hot partition and reports whether it fails.
func (f *Injector) hotNow() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if time.Now().After(f.hotUntil) {
		return false
	}
	f.requests++
	f.injected[HotPartition]++
	return true
}

// touches reports whether a DynamoDB operation's input reads or writes a partition key
// value that match accepts.
func touches(params any, match func(string) bool) bool {
	var keys []map[string]types.AttributeValue
	switch in := params.(type) {
	case *dynamodb.GetItemInput:
		keys = append(keys, in.Key)
	case *dynamodb.PutItemInput:
		keys = append(keys, in.Item)
	case *dynamodb.UpdateItemInput:
		keys = append(keys, in.Key)
	case *dynamodb.DeleteItemInput:
		keys = append(keys, in.Key)
	case *dynamodb.QueryInput:
		if in.IndexName == nil {
			keys = append(keys, in.ExpressionAttributeValues)
		}
	case *dynamodb.BatchGetItemInput:
		for _, r := range in.RequestItems {
			keys = append(keys, r.Keys...)
		}
	case *dynamodb.BatchWriteItemInput:
		for _, rs := range in.RequestItems {
			for _, r := range rs {
				if r.PutRequest != nil {
					keys = append(keys, r.PutRequest.Item)
				}
				if r.DeleteRequest != nil {
					keys = append(keys, r.DeleteRequest.Key)
				}
			}
		}
	case *dynamodb.TransactGetItemsInput:
		for _, it := range in.TransactItems {
			if it.Get != nil {
				keys = append(keys, it.Get.Key)
			}
		}
	case *dynamodb.TransactWriteItemsInput:
		for _, it := range in.TransactItems {
			switch {
			case it.Put != nil:
				keys = append(keys, it.Put.Item)
			case it.Update != nil:
				keys = append(keys, it.Update.Key)
			case it.Delete != nil:
				keys = append(keys, it.Delete.Key)
			case it.ConditionCheck != nil:
				keys = append(keys, it.ConditionCheck.Key)
			}
		}
	}
	for _, k := range keys {
		for name, v := range k {
			// The table's partition key, or a Query's value for it.
			if s, ok := v.(*types.AttributeValueMemberS); ok && (name == "PK" || strings.HasPrefix(name, ":")) && match(s.Value) {
				return true
			}
		}
	}
	return false
}

// timeoutError is a network read that timed out.
type timeoutError struct{}

func (timeoutError) Error() string   { return "read tcp: i/o timeout (injected after the write applied)" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }
