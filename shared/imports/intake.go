package imports

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/awsclients"
	"github.com/subsight/subsight/shared/blobs"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// Pipeline holds what the intake and the worker use.
type Pipeline struct {
	Store    *store.Store
	Blobs    *blobs.Store
	SQS      *sqs.Client
	QueueURL string
	Jobs     *jobs.Queue
	Now      func() time.Time
	// AfterWrite, when set, runs after each write step of Apply; tests return an error
	// from it to simulate a worker that dies between two writes.
	AfterWrite func(step string) error
}

// New builds the pipeline from the shared dependencies (the S3 client only here).
func New(d *app.Deps) *Pipeline {
	return &Pipeline{Store: d.Store, Blobs: blobs.New(awsclients.S3(d.Clients.Config), d.Config.ImportBucket),
		SQS: d.Clients.SQS, QueueURL: d.Config.ImportQueueURL, Jobs: d.Jobs, Now: d.Now}
}

// ErrImportExists: the import external id was used before in the data source.
var ErrImportExists = store.ErrImportExists

// uploadConcurrency bounds the parallel S3 puts of one intake.
const uploadConcurrency = 16

// Accept runs the intake of a json_imports body: the whole payload is validated
// (model.ParseImport, then the references to invoices of earlier imports) before
// anything is written. Then the import is recorded (refusing a used external id),
// plans are applied synchronously, so that every customer message finds them, each
// customer's part goes to S3 and one message per customer to the FIFO queue, and the
// import is marked queued. Every step can be repeated: a client retrying after a
// failure half-way resumes the same import.
func (p *Pipeline) Accept(ctx context.Context, acc model.Account, ds model.DataSource, body []byte) (model.Import, error) {
	payload, err := model.ParseImport(body)
	if err != nil {
		return model.Import{}, err
	}
	parts, err := p.split(ctx, acc.ID, ds.UUID, payload)
	if err != nil {
		return model.Import{}, err
	}
	sum := sha256.Sum256(body)
	now := p.Now()
	imp, err := p.Store.CreateImport(ctx, model.Import{AccountID: acc.ID, ID: model.ImportID(acc.ID, ds.UUID, payload.ExternalID),
		DataSourceUUID: ds.UUID, ExternalID: payload.ExternalID, Customers: len(parts),
		PayloadHash: hex.EncodeToString(sum[:]), Plans: model.KindStatus{Status: model.ImportQueued},
		CreatedAt: now, UpdatedAt: now})
	if err != nil {
		return model.Import{}, err
	}
	plans, err := p.applyPlans(ctx, acc.ID, imp.ID, ds, payload.Plans)
	if err != nil {
		return model.Import{}, err
	}
	if err := p.queue(ctx, acc, ds, imp, parts); err != nil {
		return model.Import{}, err
	}
	if err := p.Store.FinishImportIntake(ctx, imp, plans, p.Now()); err != nil {
		return model.Import{}, err
	}
	imp.Queued, imp.Plans = true, plans
	return imp, nil
}

// queue stores each part in S3 and sends its message, in payload order.
func (p *Pipeline) queue(ctx context.Context, acc model.Account, ds model.DataSource, imp model.Import, parts []Part) error {
	if len(parts) == 0 {
		return nil
	}
	if p.QueueURL == "" {
		return errors.New("imports: IMPORT_QUEUE_URL is not configured")
	}
	last, err := p.Store.ReserveCustomerIDs(ctx, acc.ID, len(parts))
	if err != nil {
		return err
	}
	msgs := make([]Message, len(parts))
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	sem := make(chan struct{}, uploadConcurrency)
	for i, part := range parts {
		msgs[i] = Message{Version: messageVersion, AccountID: acc.ID, DataSourceUUID: ds.UUID, ImportID: imp.ID,
			CustomerExternalID: part.CustomerExternalID, Key: blobs.ImportKey(acc.ID, ds.UUID, imp.ID, strconv.Itoa(i)),
			CustomerID: last - int64(len(parts)-1-i), System: ds.System, Currency: acc.Currency}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			body, err := json.Marshal(part)
			if err == nil {
				err = p.Blobs.Put(ctx, msgs[i].Key, body)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for start := 0; start < len(msgs); start += 10 {
		if err := p.send(ctx, msgs[start:min(start+10, len(msgs))]); err != nil {
			return err
		}
	}
	return nil
}

func (p *Pipeline) send(ctx context.Context, msgs []Message) error {
	entries := make([]sqstypes.SendMessageBatchRequestEntry, len(msgs))
	for i, m := range msgs {
		body, err := json.Marshal(m)
		if err != nil {
			return err
		}
		entries[i] = sqstypes.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(string(body)),
			MessageGroupId: aws.String(m.Group()), MessageDeduplicationId: aws.String(m.DedupID())}
	}
	for attempt := 0; len(entries) > 0; attempt++ {
		if attempt == 5 {
			return fmt.Errorf("imports: %d messages not accepted by the queue", len(entries))
		}
		out, err := p.SQS.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: &p.QueueURL, Entries: entries})
		if err != nil {
			return err
		}
		if len(out.Failed) == 0 {
			return nil
		}
		// Resend only the failed entries; the order within a group is kept because a
		// customer has one message per import.
		failed := map[string]bool{}
		for _, f := range out.Failed {
			if f.SenderFault {
				return fmt.Errorf("imports: queue refused a message: %s", aws.ToString(f.Message))
			}
			failed[aws.ToString(f.Id)] = true
		}
		var retry []sqstypes.SendMessageBatchRequestEntry
		for _, e := range entries {
			if failed[aws.ToString(e.Id)] {
				retry = append(retry, e)
			}
		}
		entries = retry
		time.Sleep(time.Duration(attempt+1) * 100 * time.Millisecond)
	}
	return nil
}
