// Package awsclients builds the AWS SDK clients once per process. Endpoints come from
// the standard AWS_ENDPOINT_URL* variables, so the same code talks to AWS or to the
// local emulator.
package awsclients

import (
	"context"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
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

// New builds the clients from a loaded configuration.
func New(cfg aws.Config) Clients {
	return Clients{Config: cfg, DynamoDB: dynamodb.NewFromConfig(cfg, RetryConflicts), SQS: sqs.NewFromConfig(cfg)}
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
