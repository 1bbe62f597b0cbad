package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/subsight/subsight/infra/devstack/samtemplate"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo"
)

// deadLetterQueue is one dead-letter queue of the stack and the queue whose messages
// it receives.
type deadLetterQueue struct {
	Name      string // LogicalId in template.yaml
	URL       string
	Source    string // LogicalId of the source queue; "" when none (the schedule's)
	SourceURL string
}

// deadLetterQueues lists the template's dead-letter queues (LogicalIds ending in
// DeadLetterQueue) with their source queues (whose RedrivePolicy names them); url
// gives a queue's URL by LogicalId.
func deadLetterQueues(tpl *samtemplate.Template, url func(logicalID string) (string, error)) ([]deadLetterQueue, error) {
	var out []deadLetterQueue
	for _, id := range tpl.QueueIDs() {
		if !strings.HasSuffix(id, "DeadLetterQueue") {
			continue
		}
		q := deadLetterQueue{Name: id}
		for _, src := range tpl.QueueIDs() {
			if r := tpl.Queues[src].Redrive; r != nil && r.DeadLetterQueue == id {
				q.Source = src
			}
		}
		var err error
		if q.URL, err = url(id); err != nil {
			return nil, fmt.Errorf("queue %s: %w", id, err)
		}
		if q.Source != "" {
			if q.SourceURL, err = url(q.Source); err != nil {
				return nil, fmt.Errorf("queue %s: %w", q.Source, err)
			}
		}
		out = append(out, q)
	}
	return out, nil
}

// deadLetters is what the dlq commands work with.
type deadLetters struct {
	sqs    *sqs.Client
	s3     *s3.Client
	bucket string // the import payloads' bucket
	store  *dynamo.Store
	queues []deadLetterQueue
	now    func() time.Time
	// wait is a receive's long poll in seconds: on AWS a short poll samples some of the
	// queue's servers and may answer empty while messages remain.
	wait int32
	// hold is how long messages read stay invisible; they are made visible again at
	// once when the command ends, and by themselves after hold if it dies.
	hold int32
}

// maxRead bounds the messages one command reads of a queue.
const maxRead = 10000

// dlqMessage is one message of a dead-letter queue.
type dlqMessage struct {
	ID        string
	Body      string
	Group     string
	SentAt    time.Time
	AccountID string
	Error     string // from the worker's dead-letter note; "" when none was written
	receipt   string
	attrs     map[string]sqstypes.MessageAttributeValue
}

// noError is the group of messages whose worker wrote no note: a worker that timed
// out or crashed on the last receive, a message behind a failed one of its group, or
// the schedule's (EventBridge's) messages.
const noError = "(no failure recorded: see the worker's log lines of the message id)"

// read receives every message of q it can and keeps them invisible (hold). A FIFO
// queue hands out at most the messages of a group up to the first one in flight, so
// a group deeper than a receive shows its first ones only; count tells how many the
// queue holds.
func (d *deadLetters) read(ctx context.Context, q deadLetterQueue) ([]dlqMessage, error) {
	var out []dlqMessage
	seen := map[string]bool{}
	for len(out) < maxRead {
		res, err := d.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(q.URL), MaxNumberOfMessages: 10,
			VisibilityTimeout: d.hold, WaitTimeSeconds: d.wait, MessageAttributeNames: []string{"All"},
			MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll}})
		if err != nil {
			return out, err
		}
		fresh := 0
		for _, m := range res.Messages {
			id := aws.ToString(m.MessageId)
			if seen[id] {
				continue
			}
			seen[id], fresh = true, fresh+1
			ms, _ := strconv.ParseInt(m.Attributes[string(sqstypes.MessageSystemAttributeNameSentTimestamp)], 10, 64)
			msg := dlqMessage{ID: id, Body: aws.ToString(m.Body), Group: m.Attributes[string(sqstypes.MessageSystemAttributeNameMessageGroupId)],
				SentAt: time.UnixMilli(ms).UTC(), receipt: aws.ToString(m.ReceiptHandle), attrs: m.MessageAttributes}
			var body struct {
				AccountID string `json:"account_id"`
			}
			if json.Unmarshal([]byte(msg.Body), &body) == nil {
				msg.AccountID = body.AccountID
			}
			out = append(out, msg)
		}
		if fresh == 0 {
			break
		}
	}
	return out, d.annotate(ctx, out)
}

// annotate sets each message's error from its account's dead-letter notes.
func (d *deadLetters) annotate(ctx context.Context, msgs []dlqMessage) error {
	byAccount := map[string][]string{}
	for _, m := range msgs {
		if m.AccountID != "" {
			byAccount[m.AccountID] = append(byAccount[m.AccountID], m.ID)
		}
	}
	notes := map[string]store.DeadLetterNote{}
	for account, ids := range byAccount {
		got, err := d.store.DeadLetterNotes(ctx, account, ids)
		if err != nil {
			return err
		}
		for id, n := range got {
			notes[id] = n
		}
	}
	for i := range msgs {
		msgs[i].Error = notes[msgs[i].ID].Error
	}
	return nil
}

// release makes messages read visible again at once, ten a request.
func (d *deadLetters) release(ctx context.Context, q deadLetterQueue, msgs []dlqMessage) error {
	for batch := range slices.Chunk(msgs, 10) {
		entries := make([]sqstypes.ChangeMessageVisibilityBatchRequestEntry, len(batch))
		for i, m := range batch {
			entries[i] = sqstypes.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(m.receipt)}
		}
		res, err := d.sqs.ChangeMessageVisibilityBatch(context.WithoutCancel(ctx), &sqs.ChangeMessageVisibilityBatchInput{
			QueueUrl: aws.String(q.URL), Entries: entries})
		if err != nil {
			return err
		}
		if len(res.Failed) > 0 {
			return fmt.Errorf("%d messages of %s stay invisible until their %d s pass: %s", len(res.Failed), q.Name, d.hold,
				aws.ToString(res.Failed[0].Message))
		}
	}
	return nil
}

// count is how many messages the queue holds, visible or not (approximate).
func (d *deadLetters) count(ctx context.Context, q deadLetterQueue) (int, error) {
	res, err := d.sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(q.URL),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages,
			sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible}})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, a := range []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages,
		sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible} {
		v, _ := strconv.Atoi(res.Attributes[string(a)])
		n += v
	}
	return n, nil
}

// queueListing is one dead-letter queue in `dlq list`.
type queueListing struct {
	Queue    string         `json:"queue"`
	Source   string         `json:"source_queue"`
	Replay   string         `json:"replay"`
	Messages int            `json:"messages"`
	NotRead  int            `json:"not_read"`
	Accounts []accountGroup `json:"accounts"`
}

type accountGroup struct {
	AccountID        string       `json:"account_id"`
	Messages         int          `json:"messages"`
	OldestAgeSeconds int64        `json:"oldest_age_seconds"`
	Errors           []errorGroup `json:"errors"`
}

type errorGroup struct {
	Error            string    `json:"error"`
	Messages         int       `json:"messages"`
	OldestSentAt     time.Time `json:"oldest_sent_at"`
	OldestAgeSeconds int64     `json:"oldest_age_seconds"`
}

// list reads every dead-letter queue (of one account, when account is set) without
// consuming a message: each is read invisible and made visible again.
func (d *deadLetters) list(ctx context.Context, account string) ([]queueListing, error) {
	var out []queueListing
	for _, q := range d.queues {
		before, err := d.count(ctx, q)
		if err != nil {
			return nil, err
		}
		msgs, err := d.read(ctx, q)
		if rerr := d.release(ctx, q, msgs); err == nil {
			err = rerr
		}
		if err != nil {
			return nil, err
		}
		l := queueListing{Queue: q.Name, Source: q.Source, Replay: replayPolicies[q.Name].summary, NotRead: max(0, before-len(msgs)),
			Accounts: []accountGroup{}}
		if l.Replay == "" {
			l.Replay = "not replayable"
		}
		if account != "" {
			msgs = slices.DeleteFunc(msgs, func(m dlqMessage) bool { return m.AccountID != account })
			l.NotRead = 0
		}
		l.Messages = len(msgs)
		l.Accounts = d.group(msgs)
		out = append(out, l)
	}
	return out, nil
}

// group counts messages by account, then by error, with their oldest ages; largest
// groups first.
func (d *deadLetters) group(msgs []dlqMessage) []accountGroup {
	now := d.now()
	accounts := map[string]map[string]*errorGroup{}
	for _, m := range msgs {
		errs := accounts[m.AccountID]
		if errs == nil {
			errs = map[string]*errorGroup{}
			accounts[m.AccountID] = errs
		}
		text := cmp.Or(m.Error, noError)
		g := errs[text]
		if g == nil {
			g = &errorGroup{Error: text, OldestSentAt: m.SentAt}
			errs[text] = g
		}
		g.Messages++
		if m.SentAt.Before(g.OldestSentAt) {
			g.OldestSentAt = m.SentAt
		}
	}
	var out []accountGroup
	for account, errs := range accounts {
		a := accountGroup{AccountID: account}
		for _, g := range errs {
			g.OldestAgeSeconds = int64(now.Sub(g.OldestSentAt) / time.Second)
			a.Messages += g.Messages
			a.OldestAgeSeconds = max(a.OldestAgeSeconds, g.OldestAgeSeconds)
			a.Errors = append(a.Errors, *g)
		}
		slices.SortFunc(a.Errors, func(x, y errorGroup) int {
			return cmp.Or(y.Messages-x.Messages, strings.Compare(x.Error, y.Error))
		})
		out = append(out, a)
	}
	slices.SortFunc(out, func(x, y accountGroup) int {
		return cmp.Or(y.Messages-x.Messages, strings.Compare(x.AccountID, y.AccountID))
	})
	return out
}

func printListing(w io.Writer, ls []queueListing) {
	for _, l := range ls {
		source := "no source queue"
		if l.Source != "" {
			source = "from " + l.Source
		}
		fmt.Fprintf(w, "%s (%s; replay: %s): %d messages", l.Queue, source, l.Replay, l.Messages)
		if l.NotRead > 0 {
			fmt.Fprintf(w, ", %d more not read (a FIFO queue shows a message group only up to its first message held)", l.NotRead)
		}
		fmt.Fprintln(w)
		for _, a := range l.Accounts {
			fmt.Fprintf(w, "  account %s: %d messages, oldest %s\n", cmp.Or(a.AccountID, "(none)"), a.Messages, age(a.OldestAgeSeconds))
			for _, g := range a.Errors {
				fmt.Fprintf(w, "    %5d  oldest %-8s  %s\n", g.Messages, age(g.OldestAgeSeconds), g.Error)
			}
		}
	}
}

func age(seconds int64) string {
	return (time.Duration(seconds) * time.Second).String()
}

// isNotFound tells S3's answer for an absent object.
func isNotFound(err error) bool {
	var nf *s3types.NotFound
	var nsk *s3types.NoSuchKey
	var re *smithyhttp.ResponseError
	return errors.As(err, &nf) || errors.As(err, &nsk) || (errors.As(err, &re) && re.HTTPStatusCode() == 404)
}

// dlqCommand is `dlq list` and `dlq redrive`.
func dlqCommand(ctx context.Context, e env, args []string) error {
	if len(args) == 0 || (args[0] != "list" && args[0] != "redrive") {
		return errors.New("want `dlq list [-account ID] [-json]` or `dlq redrive -queue NAME [-account ID] [-dry-run] [-json]`")
	}
	fs := newFlags("dlq " + args[0])
	account := fs.String("account", "", "only this account's messages")
	asJSON := fs.Bool("json", false, "print JSON")
	queue := fs.String("queue", "", "the dead-letter queue, by its LogicalId as `dlq list` prints it")
	dryRun := fs.Bool("dry-run", false, "say what would be done; change nothing")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if e.deadLetters == nil {
		return errors.New("the dead-letter queues are not known here")
	}
	d, err := e.deadLetters(ctx)
	if err != nil {
		return err
	}
	if args[0] == "list" {
		ls, err := d.list(ctx, *account)
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(e.stdout, map[string]any{"queues": ls})
		}
		printListing(e.stdout, ls)
		return nil
	}
	if *queue == "" {
		return errors.New("-queue is required")
	}
	out, err := d.redrive(ctx, *queue, *account, *dryRun)
	if *asJSON {
		if out == nil {
			out = []outcome{}
		}
		if perr := printJSON(e.stdout, map[string]any{"queue": *queue, "dry_run": *dryRun, "messages": out}); err == nil {
			err = perr
		}
	} else {
		printOutcomes(e.stdout, *queue, out)
	}
	return err
}

// openDeadLetters finds the stack's dead-letter queues: template.yaml (in the working
// directory or above) names them and their source queues; locally .local/stack.json
// gives their URLs, on AWS the queue names the template gives them in stack.
func openDeadLetters(ctx context.Context, st *dynamo.Store, local bool, stack, bucket, region string) (*deadLetters, error) {
	path, err := findUp("template.yaml")
	if err != nil {
		return nil, fmt.Errorf("%w: run the admin command from the repository", err)
	}
	tpl, err := samtemplate.ParseFile(path)
	if err != nil {
		return nil, err
	}
	d := &deadLetters{store: st, bucket: bucket, now: func() time.Time { return time.Now().UTC() }, hold: 300}
	var url func(id string) (string, error)
	if local {
		cfg, sf, err := localConfig(ctx)
		if err != nil {
			return nil, err
		}
		if len(sf.QueueURLs) == 0 {
			return nil, errors.New(".local/stack.json lists no queue_urls: restart the local stack (make run)")
		}
		d.sqs, d.bucket = sqs.NewFromConfig(cfg), sf.ImportBucket
		d.s3 = s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
		url = func(id string) (string, error) {
			if u, ok := sf.QueueURLs[id]; ok {
				return u, nil
			}
			return "", errors.New("not in .local/stack.json")
		}
	} else {
		if stack == "" {
			return nil, errors.New("no stack: pass -stack NAME (the deployed stack's name) or set STACK_NAME")
		}
		cfg, err := awsConfig(ctx, region)
		if err != nil {
			return nil, err
		}
		d.sqs, d.s3, d.wait = sqs.NewFromConfig(cfg), s3.NewFromConfig(cfg), 2
		url = stackQueueURL(ctx, tpl, d.sqs, stack)
	}
	d.queues, err = deadLetterQueues(tpl, url)
	return d, err
}

// stackQueueURL finds a queue of the stack by the QueueName the template gives it.
func stackQueueURL(ctx context.Context, tpl *samtemplate.Template, c *sqs.Client, stack string) func(id string) (string, error) {
	return func(id string) (string, error) {
		name, err := tpl.Resolve(tpl.Queues[id].QueueName, &samtemplate.Resolver{Pseudo: map[string]string{"AWS::StackName": stack}})
		if err != nil || name == "" {
			return "", fmt.Errorf("the template gives it no QueueName to find it by: %v", err)
		}
		out, err := c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(name)})
		if err != nil {
			return "", err
		}
		return aws.ToString(out.QueueUrl), nil
	}
}
