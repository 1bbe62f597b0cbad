package imports_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/awsclients"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/workers"
)

// TestImportWaitsForCapacity: a customer whose writes are throttled is applied again
// within the invocation and, once DynamoDB takes the writes, is applied — even on its
// last receive, without being marked failed; throttled until near the deadline, it is
// reported failed and, before its last receive, not marked failed.
func TestImportWaitsForCapacity(t *testing.T) {
	tests := []struct {
		name       string
		receive    int
		throttled  int64 // writes refused before capacity returns
		deadline   time.Duration
		wantFailed bool
	}{
		{"throttled, then applied on the last receive", 5, 3, 40 * time.Second, false},
		{"throttled until near the deadline", 3, 1 << 30, 17 * time.Second, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := setup(t)
			imp := f.accept(t, payload("thr", 1, 1, 1000))
			var refused atomic.Int64
			f.p.AfterWrite = func(string) error {
				if refused.Add(1) <= tc.throttled {
					return &types.ProvisionedThroughputExceededException{Message: aws.String("hot (test)")}
				}
				return nil
			}
			m := messageOf(f, imp, "cus-0")
			ctx, cancel := context.WithTimeout(context.Background(), tc.deadline)
			defer cancel()
			resp, err := workers.ImportWith(f.p, 5, awsclients.Throttled)(ctx, events.SQSEvent{Records: []events.SQSMessage{{MessageId: "m1", Body: mustJSON(t, m),
				Attributes: map[string]string{"ApproximateReceiveCount": itoa(tc.receive), "MessageGroupId": m.Group()}}}})
			if err != nil {
				t.Fatal(err)
			}
			if failed := len(resp.BatchItemFailures) == 1; failed != tc.wantFailed {
				t.Fatalf("failures %+v, want failed %v", resp.BatchItemFailures, tc.wantFailed)
			}
			pr := progress(t, f, imp)
			for _, c := range pr.Customers {
				if c.Status == model.RecordsFailed {
					t.Fatalf("customer marked failed: %+v", pr)
				}
			}
			if !tc.wantFailed && (pr.Status != model.ImportCompleted || len(pr.Customers) != 1) {
				t.Fatalf("not applied: %+v", pr)
			}
		})
	}
}
