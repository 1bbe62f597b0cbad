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

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
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
}

// New returns an injector failing rate (0–1) of the requests, drawn from seed.
func New(rate float64, seed uint64) *Injector {
	return &Injector{rate: rate, rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), injected: map[string]int{}}
}

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
	return fmt.Sprintf("%d faults in %d DynamoDB request attempts (%s)", total, f.Requests(), strings.Join(parts, ", "))
}

// Attach makes every client built from cfg afterwards go through the injector.
func (f *Injector) Attach(cfg *aws.Config) {
	cfg.APIOptions = append(cfg.APIOptions, func(stack *middleware.Stack) error {
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

// timeoutError is a network read that timed out.
type timeoutError struct{}

func (timeoutError) Error() string   { return "read tcp: i/o timeout (injected after the write applied)" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }
