package awsclients

import (
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

func TestThrottled(t *testing.T) {
	pte := &types.ProvisionedThroughputExceededException{Message: aws.String("exceeded")}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"ProvisionedThroughputExceededException", pte, true},
		{"wrapped", fmt.Errorf("store: put: %w", pte), true},
		{"after the SDK's attempts", &retry.MaxAttemptsError{Attempt: 8, Err: pte}, true},
		{"with the retry quota exhausted", errors.Join(pte, ratelimit.QuotaExceededError{Available: 0, Requested: 5}), true},
		{"ThrottlingException", &smithy.GenericAPIError{Code: "ThrottlingException"}, true},
		{"RequestLimitExceeded", &types.RequestLimitExceeded{Message: aws.String("limit")}, true},
		{"transaction cancelled by a throttle", &types.TransactionCanceledException{
			CancellationReasons: []types.CancellationReason{{Code: aws.String("None")}, {Code: aws.String("ThrottlingError")}}}, true},
		{"transaction conflict", &types.TransactionConflictException{Message: aws.String("ongoing")}, false},
		{"transaction cancelled by a conflict", &types.TransactionCanceledException{
			CancellationReasons: []types.CancellationReason{{Code: aws.String("TransactionConflict")}}}, false},
		{"condition failed", &types.ConditionalCheckFailedException{}, false},
		{"other", errors.New("boom"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Throttled(tc.err); got != tc.want {
				t.Errorf("Throttled = %v, want %v", got, tc.want)
			}
		})
	}
}
