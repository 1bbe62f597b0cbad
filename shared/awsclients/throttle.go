package awsclients

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Throttled reports whether err is an AWS service refusing a request for want of
// capacity (ProvisionedThroughputExceededException, ThrottlingException,
// RequestLimitExceeded, an unmodelled 429, … as the SDK classifies them), or a
// DynamoDB transaction cancelled because one of its items was throttled. Such a
// request succeeds once capacity returns; waiting is the remedy. A transaction
// conflict is not a throttle: the SDK client retries it, and when it persists it is
// an ordinary failure.
func Throttled(err error) bool {
	if err == nil {
		return false
	}
	if retry.IsErrorThrottles(retry.DefaultThrottles).IsErrorThrottle(err) == aws.TrueTernary {
		return true
	}
	var canceled *types.TransactionCanceledException
	if errors.As(err, &canceled) {
		for _, r := range canceled.CancellationReasons {
			if aws.ToString(r.Code) == "ThrottlingError" {
				return true
			}
		}
	}
	return false
}
