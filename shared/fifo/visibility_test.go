package fifo_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/fifo"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestVisibilityRedeliver: Visibility finds a message's queue by its event source ARN and
// sets the visibility of a group's failed messages on the emulator: with a delay they
// stay hidden; with none they come back at once, in order.
func TestVisibilityRedeliver(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	c := env.Deps.Clients.SQS
	url := env.JobsQueueURL
	arn := "arn:aws:sqs:us-east-1:123456789012:" + url[strings.LastIndex(url, "/")+1:]
	v := fifo.NewVisibility(c, env.ImportQueueURL, url)
	tests := []struct {
		name  string
		delay time.Duration
		want  []string // bodies received right after
	}{
		{"a delay hides them", 30 * time.Second, nil},
		{"no delay brings them back in order", 0, []string{"A1", "A2"}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			group := "visibility-" + tc.name
			for _, b := range []string{"A1", "A2"} {
				if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(b),
					MessageGroupId: aws.String(group), MessageDeduplicationId: aws.String(group + b)}); err != nil {
					t.Fatal(err)
				}
			}
			got := receive(t, c, url)
			if len(got) != 2 {
				t.Fatalf("received %d messages, want 2", len(got))
			}
			var msgs []events.SQSMessage
			for _, m := range got {
				msgs = append(msgs, events.SQSMessage{MessageId: aws.ToString(m.MessageId), ReceiptHandle: aws.ToString(m.ReceiptHandle), EventSourceARN: arn})
			}
			if err := v.Redeliver(ctx, msgs, tc.delay); err != nil {
				t.Fatal(err)
			}
			var bodies []string
			for _, m := range receive(t, c, url) {
				bodies = append(bodies, aws.ToString(m.Body))
				if _, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle}); err != nil {
					t.Fatal(err)
				}
			}
			if len(bodies) != len(tc.want) || (len(bodies) == 2 && (bodies[0] != "A1" || bodies[1] != "A2")) {
				t.Errorf("case %d: received %v, want %v", i, bodies, tc.want)
			}
		})
	}
}

func receive(t *testing.T, c *sqs.Client, url string) []types.Message {
	t.Helper()
	out, err := c.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10})
	if err != nil {
		t.Fatal(err)
	}
	return out.Messages
}
