package table

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/store"
)

// MaxAttempts is the store's one retry policy, for what DynamoDB asks to be tried
// again and the SDK does not retry by itself (it retries throttling and 5xx answers):
// unprocessed items of batch requests, and transactions cancelled because another
// transaction held one of their items.
const MaxAttempts = 10

// Pause waits before retry number attempt (1, 2, …): exponential from 10 ms, capped
// at 640 ms, with jitter so that writers who collided do not collide again.
func Pause(ctx context.Context, attempt int) error {
	wait := time.Duration(10<<min(attempt-1, 6))*time.Millisecond + time.Duration(rand.IntN(10))*time.Millisecond
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(wait):
		return nil
	}
}

// TransactWrite runs a write transaction, the store's only way to run one. A
// transaction cancelled because another one held one of its items (shared items such
// as the account series' buckets are written by many customers at once) is run again.
// The error is the SDK's: FailedAt, ConditionFailedAt and Conflict read it.
func (t *Table) TransactWrite(ctx context.Context, items []types.TransactWriteItem) error {
	for attempt := 1; ; attempt++ {
		_, err := t.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
			TransactItems: items, ReturnConsumedCapacity: consumed,
		})
		if !heldByAnother(err) || attempt == MaxAttempts {
			return err
		}
		if err := Pause(ctx, attempt); err != nil {
			return err
		}
	}
}

// CancellationReasons is the one reader of a cancelled transaction: the reason code
// of each item, in item order ("None" or "" for an item that was fine); nil when err
// is not a cancellation.
func CancellationReasons(err error) []string {
	var tc *types.TransactionCanceledException
	if !errors.As(err, &tc) {
		return nil
	}
	codes := make([]string, len(tc.CancellationReasons))
	for i, r := range tc.CancellationReasons {
		codes[i] = aws.ToString(r.Code)
	}
	return codes
}

const ConditionFailed = "ConditionalCheckFailed"

// FailedAt is the index of the first item of a cancelled transaction whose condition
// failed, or -1.
func FailedAt(err error) int {
	for i, code := range CancellationReasons(err) {
		if code == ConditionFailed {
			return i
		}
	}
	return -1
}

// ConditionFailedAt reports whether the condition of item i of a cancelled
// transaction failed.
func ConditionFailedAt(err error, i int) bool {
	codes := CancellationReasons(err)
	return i < len(codes) && codes[i] == ConditionFailed
}

// heldByAnother reports whether a transaction was cancelled because another one
// was writing one of its items.
func heldByAnother(err error) bool {
	var tip *types.TransactionInProgressException
	if errors.As(err, &tip) {
		return true
	}
	for _, code := range CancellationReasons(err) {
		if code == "TransactionConflict" {
			return true
		}
	}
	return false
}

// Conflict turns a failed condition (of a single write or of any item of a
// transaction) into ErrConflict.
func Conflict(err error) error {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) || FailedAt(err) >= 0 {
		return store.ErrConflict
	}
	return err
}
