package dynamo

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

// maxAttempts is the store's one retry policy, for what DynamoDB asks to be tried
// again and the SDK does not retry by itself (it retries throttling and 5xx answers):
// unprocessed items of batch requests, and transactions cancelled because another
// transaction held one of their items.
const maxAttempts = 10

// pause waits before retry number attempt (1, 2, …): exponential from 10 ms, capped
// at 640 ms, with jitter so that writers who collided do not collide again.
func pause(ctx context.Context, attempt int) error {
	wait := time.Duration(10<<min(attempt-1, 6))*time.Millisecond + time.Duration(rand.IntN(10))*time.Millisecond
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(wait):
		return nil
	}
}

// transactWrite runs a write transaction, the store's only way to run one. A
// transaction cancelled because another one held one of its items (shared items such
// as the account series' buckets are written by many customers at once) is run again.
// The error is the SDK's: failedAt, conditionFailedAt and conflict read it.
func (s *Store) transactWrite(ctx context.Context, items []types.TransactWriteItem) error {
	for attempt := 1; ; attempt++ {
		_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
			TransactItems: items, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		})
		if !heldByAnother(err) || attempt == maxAttempts {
			return err
		}
		if err := pause(ctx, attempt); err != nil {
			return err
		}
	}
}

// cancellationReasons is the one reader of a cancelled transaction: the reason code
// of each item, in item order ("None" or "" for an item that was fine); nil when err
// is not a cancellation.
func cancellationReasons(err error) []string {
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

const conditionFailed = "ConditionalCheckFailed"

// failedAt is the index of the first item of a cancelled transaction whose condition
// failed, or -1.
func failedAt(err error) int {
	for i, code := range cancellationReasons(err) {
		if code == conditionFailed {
			return i
		}
	}
	return -1
}

// conditionFailedAt reports whether the condition of item i of a cancelled
// transaction failed.
func conditionFailedAt(err error, i int) bool {
	codes := cancellationReasons(err)
	return i < len(codes) && codes[i] == conditionFailed
}

// heldByAnother reports whether a transaction was cancelled because another one
// was writing one of its items.
func heldByAnother(err error) bool {
	var tip *types.TransactionInProgressException
	if errors.As(err, &tip) {
		return true
	}
	for _, code := range cancellationReasons(err) {
		if code == "TransactionConflict" {
			return true
		}
	}
	return false
}

// conflict turns a failed condition (of a single write or of any item of a
// transaction) into ErrConflict.
func conflict(err error) error {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) || failedAt(err) >= 0 {
		return store.ErrConflict
	}
	return err
}
