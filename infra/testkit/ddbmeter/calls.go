package ddbmeter

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go/middleware"
)

// Calls records every AWS request (DynamoDB, SQS, S3) that a function invocation makes,
// by function (the Lambda context's function ARN after "function:", with its qualifier)
// and invocation (its request id), with when it started and ended: how many requests an
// invocation makes, and how many of them run one after the other. Its zero value is
// ready.
type Calls struct {
	mu    sync.Mutex
	calls map[invocation][]span
	sent  map[string]int // messages sent, by queue URL
}

type invocation struct{ function, requestID string }

type span struct {
	op         string
	start, end time.Time
}

// Attach makes every client built from cfg afterwards report to c.
func (c *Calls) Attach(cfg *aws.Config) {
	attach(cfg, "ddbmeter-calls", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
		middleware.InitializeOutput, middleware.Metadata, error) {
		start := time.Now()
		out, md, err := next.HandleInitialize(ctx, in)
		if err == nil {
			c.countSent(in.Parameters)
		}
		lc, ok := lambdacontext.FromContext(ctx)
		if !ok {
			return out, md, err // not inside a function: the benchmark's own requests
		}
		_, fn, _ := strings.Cut(lc.InvokedFunctionArn, ":function:")
		inv := invocation{function: fn, requestID: lc.AwsRequestID}
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.calls == nil {
			c.calls = map[invocation][]span{}
		}
		c.calls[inv] = append(c.calls[inv], span{op: awsmiddleware.GetOperationName(ctx), start: start, end: time.Now()})
		return out, md, err
	})
}

// countSent counts the messages of an SQS send.
func (c *Calls) countSent(params any) {
	url, n := "", 0
	switch in := params.(type) {
	case *sqs.SendMessageInput:
		url, n = aws.ToString(in.QueueUrl), 1
	case *sqs.SendMessageBatchInput:
		url, n = aws.ToString(in.QueueUrl), len(in.Entries)
	default:
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sent == nil {
		c.sent = map[string]int{}
	}
	c.sent[url] += n
}

// Sent is how many messages were sent to the queue at url.
func (c *Calls) Sent(url string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sent[url]
}

// Reset forgets the calls recorded so far.
func (c *Calls) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls, c.sent = nil, nil
}

// FunctionCalls is what one function's invocations requested.
type FunctionCalls struct {
	Invocations int
	Requests    int // all of them
	// Sequential is the requests in sequence, summed over the invocations: per
	// invocation the most requests that ran one after the other (each starting after
	// the previous one ended); requests sent at once count once.
	Sequential int
	// ByOperation counts the requests per operation name; SequentialByOperation the
	// requests in sequence per operation name (what the chain is made of: a transaction
	// or a batch write takes longer than a single-item request).
	ByOperation, SequentialByOperation map[string]int
}

// PerInvocation is the mean requests and requests in sequence of one invocation.
func (f FunctionCalls) PerInvocation() (requests, sequential float64) {
	n := float64(max(f.Invocations, 1))
	return float64(f.Requests) / n, float64(f.Sequential) / n
}

// Functions sums the recorded calls per function.
func (c *Calls) Functions() map[string]FunctionCalls {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]FunctionCalls{}
	for inv, spans := range c.calls {
		f := out[inv.function]
		if f.ByOperation == nil {
			f.ByOperation, f.SequentialByOperation = map[string]int{}, map[string]int{}
		}
		f.Invocations++
		f.Requests += len(spans)
		chain := sequence(spans)
		f.Sequential += len(chain)
		for _, s := range spans {
			f.ByOperation[s.op]++
		}
		for _, s := range chain {
			f.SequentialByOperation[s.op]++
		}
		out[inv.function] = f
	}
	return out
}

// inSequence is the largest number of the spans that do not overlap.
func inSequence(spans []span) int { return len(sequence(spans)) }

// sequence is a largest chain of spans that do not overlap: taking, again and again,
// the span that ends first among those starting after the last one taken.
func sequence(spans []span) []span {
	sorted := slices.Clone(spans)
	slices.SortFunc(sorted, func(a, b span) int { return a.end.Compare(b.end) })
	var chain []span
	for _, s := range sorted {
		if len(chain) == 0 || !s.start.Before(chain[len(chain)-1].end) {
			chain = append(chain, s)
		}
	}
	return chain
}
