package stripewebhook_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/infra/devstack/lambdaevents"
	"github.com/subsight/subsight/infra/testkit/stripegen"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/fifo"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/queue"
	"github.com/subsight/subsight/shared/secrets"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/stripewebhook"
)

// route is the webhook's route, as the registry declares it.
const route = "/stripe/webhooks/{data_source_uuid}"

// now is the tests' clock: signatures are made and checked at it.
var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fixture is a webhook intake on the emulator: the connections in the table, their
// secrets sealed with the stack's KMS key, the bucket and the Stripe events queue.
type fixture struct {
	env   *testenv.Env
	deps  *stripewebhook.Deps
	conns *countingConnections
	sent  *recordingQueue
	queue string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	env := testenv.New(t)
	q := env.Resources.Queues["StripeEventQueue"]
	if q.URL == "" {
		t.Fatal("template.yaml provisions no StripeEventQueue")
	}
	f := &fixture{env: env, conns: &countingConnections{next: env.Deps.Store}, queue: q.URL}
	f.sent = &recordingQueue{next: fifo.New(env.Deps.Clients.SQS, q.URL, "STRIPE_EVENT_QUEUE_URL")}
	f.deps = env.Deps.StripeWebhooks()
	f.deps.Connections, f.deps.Queue, f.deps.Now = f.conns, f.sent, func() time.Time { return now }
	return f
}

// connect connects a data source of the account with secret, as the connection
// endpoint stores it.
func (f *fixture) connect(t testing.TB, accountID, dsUUID, secret string) {
	t.Helper()
	ctx := context.Background()
	sealed, err := f.deps.Sealer.Seal(ctx, []byte(secret), secrets.Binding{AccountID: accountID, DataSourceUUID: dsUUID})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.env.Deps.Store.PutStripeConnection(ctx, model.StripeConnection{AccountID: accountID, DataSourceUUID: dsUUID,
		SealedWebhookSecret: sealed, Settings: model.DefaultStripeSettings(), ConnectedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
}

// disconnect removes a data source's connection.
func (f *fixture) disconnect(t testing.TB, accountID, dsUUID string) {
	t.Helper()
	if err := f.env.Deps.Store.DeleteStripeConnection(context.Background(), accountID, dsUUID); err != nil {
		t.Fatal(err)
	}
}

// post delivers body to the data source's webhook URL with the signature header (none
// when ""), base64-encoded when asked, through apigw.WrapPublic as Lambda would.
func (f *fixture) post(t *testing.T, dsUUID string, body []byte, signature string, base64Body bool) (int, string) {
	t.Helper()
	ev := events.APIGatewayV2HTTPRequest{Version: "2.0", RouteKey: "POST " + route, RawPath: "/stripe/webhooks/" + dsUUID,
		Headers:        map[string]string{"content-type": "application/json; charset=utf-8"},
		PathParameters: map[string]string{"data_source_uuid": dsUUID},
		RequestContext: events.APIGatewayV2HTTPRequestContext{RequestID: "test-request",
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "POST", Path: "/stripe/webhooks/" + dsUUID}},
		Body: string(body)}
	if signature != "" {
		ev.Headers["stripe-signature"] = signature
	}
	if base64Body {
		ev.Body, ev.IsBase64Encoded = encodeBase64(body), true
	}
	resp, err := apigw.WrapPublic(stripewebhook.Receiver(f.deps))(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Body
}

// stored are the keys under stripe/ in the bucket.
func (f *fixture) stored(t *testing.T) []string {
	t.Helper()
	out, err := f.env.S3().ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String(f.env.ImportBucket),
		Prefix: aws.String("stripe/")})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range out.Contents {
		keys = append(keys, *o.Key)
	}
	return keys
}

// object is a stored event's body.
func (f *fixture) object(t *testing.T, key string) []byte {
	t.Helper()
	b, err := f.env.Deps.Files.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return b
}

// receive takes every message of the Stripe events queue, as Lambda's event source
// would hand them to the worker (one SQS event).
func (f *fixture) receive(t *testing.T) events.SQSEvent {
	t.Helper()
	var all []types.Message
	for {
		out, err := f.env.Deps.Clients.SQS.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{
			QueueUrl: aws.String(f.queue), MaxNumberOfMessages: 10, VisibilityTimeout: 300,
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll}})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Messages) == 0 {
			break
		}
		all = append(all, out.Messages...)
	}
	q := f.env.Resources.Queues["StripeEventQueue"]
	return lambdaevents.SQS(all, q.ARN, f.env.Resources.Region)
}

// signedEvent is an event of obj, signed with secret at the tests' clock.
func signedEvent(t *testing.T, id string, typ stripe.EventType, obj any, secret string) ([]byte, string) {
	t.Helper()
	body, err := stripegen.Event(id, typ, now.Add(-time.Minute), obj, nil)
	if err != nil {
		t.Fatal(err)
	}
	return body, stripegen.Sign(body, secret, now)
}

// countingConnections counts the reads of the connections.
type countingConnections struct {
	next  stripewebhook.Connections
	reads atomic.Int64
}

func (c *countingConnections) GetStripeConnection(ctx context.Context, dsUUID string) (model.StripeConnection, error) {
	c.reads.Add(1)
	return c.next.GetStripeConnection(ctx, dsUUID)
}

// memConnections are connections in memory, for the benchmark.
type memConnections map[string]model.StripeConnection

func (c memConnections) GetStripeConnection(_ context.Context, dsUUID string) (model.StripeConnection, error) {
	conn, ok := c[dsUUID]
	if !ok {
		return model.StripeConnection{}, store.ErrNotFound
	}
	return conn, nil
}

// bindingSealer seals a secret with its binding in clear: enough to prove that the
// intake opens a secret under the connection's own account and data source.
type bindingSealer struct{}

func binding(b secrets.Binding) []byte { return []byte(b.AccountID + "/" + b.DataSourceUUID + ":") }

func (bindingSealer) Seal(_ context.Context, plaintext []byte, b secrets.Binding) ([]byte, error) {
	return append(binding(b), plaintext...), nil
}

func (bindingSealer) Open(_ context.Context, sealed []byte, b secrets.Binding) ([]byte, error) {
	rest, ok := bytes.CutPrefix(sealed, binding(b))
	if !ok {
		return nil, errors.New("sealed under another binding")
	}
	return rest, nil
}

// recordingQueue records what is sent, then sends it.
type recordingQueue struct {
	mu   sync.Mutex
	sent []queue.Message
	next queue.FIFO
}

func (q *recordingQueue) Send(ctx context.Context, m queue.Message) error {
	q.mu.Lock()
	q.sent = append(q.sent, m)
	q.mu.Unlock()
	return q.next.Send(ctx, m)
}

func (q *recordingQueue) SendBatch(ctx context.Context, msgs []queue.Message) error {
	for _, m := range msgs {
		if err := q.Send(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

func (q *recordingQueue) messages() []queue.Message {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]queue.Message(nil), q.sent...)
}

// recordingApplier records the events applied, failing those of failIDs.
type recordingApplier struct {
	mu      sync.Mutex
	applied []applied
	failIDs map[string]bool
}

type applied struct {
	conn model.StripeConnection
	ev   stripe.Event
}

func (a *recordingApplier) ApplyEvent(_ context.Context, conn model.StripeConnection, ev stripe.Event) error {
	if a.failIDs[ev.ID] {
		return fmt.Errorf("apply %s: refused by the test", ev.ID)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.applied = append(a.applied, applied{conn, ev})
	return nil
}
