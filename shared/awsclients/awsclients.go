// Package awsclients builds the AWS SDK clients once per process. Endpoints come from
// the standard AWS_ENDPOINT_URL* variables, so the same code talks to AWS or to the
// local emulator.
package awsclients

import (
	"context"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Clients are the SDK clients every function uses. S3 is left out on purpose: only
// the import functions need it, and package blobs builds it from Config with S3 when
// first used, so the other binaries do not link the S3 client.
type Clients struct {
	Config   aws.Config
	DynamoDB *dynamodb.Client
	SQS      *sqs.Client
}

// Load reads the default AWS configuration (LoadConfig).
func Load(ctx context.Context) (Clients, error) {
	cfg, err := LoadConfig(ctx)
	if err != nil {
		return Clients{}, err
	}
	return New(cfg), nil
}

// LoadWorker is Load for the queue workers: their DynamoDB client waits longer for
// capacity (WorkerRetries).
func LoadWorker(ctx context.Context) (Clients, error) {
	c, err := Load(ctx)
	if err == nil {
		c.DynamoDB = dynamodb.NewFromConfig(c.Config, RetryConflicts, WorkerRetries(c.Config))
	}
	return c, err
}

// New builds the clients from a loaded configuration. The DynamoDB client keeps the
// SDK's standard retries (a few attempts, about a second of back-off): an API function answers within API Gateway's
// 29 seconds, and its callers retry a 429 or 5xx themselves.
func New(cfg aws.Config) Clients {
	return Clients{Config: cfg, DynamoDB: dynamodb.NewFromConfig(cfg, RetryConflicts), SQS: sqs.NewFromConfig(cfg)}
}

// Worker retry settings (WorkerRetries).
const (
	WorkerMaxAttempts = 8
	WorkerMaxBackoff  = 5 * time.Second
)

// WorkerRetries gives a worker's DynamoDB client the SDK's adaptive retry mode: up to
// WorkerMaxAttempts attempts with back-off up to WorkerMaxBackoff, and a client-side
// rate limit that slows every request of the process while DynamoDB throttles, so
// that a throttled worker eases the pressure instead of adding to it. The retry quota
// (a token bucket that stops retries once many failed) is off: throttling is the case
// where retries must go on, within the invocation's deadline. What the SDK gives up on
// is retried by the worker (sqsworker.Backoff). A retryer set on the configuration
// (tests cap the back-off) is kept. Set on the client, not through the HTTP client,
// so it holds whether or not AWS_CA_BUNDLE made LoadDefaultConfig build one.
func WorkerRetries(cfg aws.Config) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		if cfg.Retryer != nil {
			return
		}
		adaptive := retry.NewAdaptiveMode(func(a *retry.AdaptiveModeOptions) {
			a.StandardOptions = append(a.StandardOptions, func(s *retry.StandardOptions) {
				s.MaxAttempts = WorkerMaxAttempts
				s.MaxBackoff = WorkerMaxBackoff
				s.RateLimiter = ratelimit.None
			})
		})
		o.Retryer = retry.AddWithErrorCodes(adaptive, "TransactionConflictException")
	}
}

// RetryConflicts makes a DynamoDB client retry, like throttling, a single write
// refused because a transaction holds its item (TransactionConflictException, which
// DynamoDB asks callers to retry and the SDK does not by default). Every DynamoDB
// client of the service is built with it.
func RetryConflicts(o *dynamodb.Options) {
	o.Retryer = retry.AddWithErrorCodes(o.Retryer, "TransactionConflictException")
}

// S3 builds an S3 client from the configuration.
func S3(cfg aws.Config) *s3.Client {
	local := cfg.BaseEndpoint != nil || os.Getenv("AWS_ENDPOINT_URL") != "" || os.Getenv("AWS_ENDPOINT_URL_S3") != ""
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		// An emulator on localhost cannot serve virtual-host bucket names.
		o.UsePathStyle = local
	})
}
