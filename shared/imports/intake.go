package imports

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/parallel"
	"github.com/subsight/subsight/shared/queue"
	"github.com/subsight/subsight/shared/store"
)

// Storage is the part of the store the pipeline reads and writes: the imports'
// records, and the customers, plans, invoices and billing indexes they touch.
type Storage interface {
	store.Accounts
	store.FXRates
	store.Imports
	store.ImportLanes
	store.Customers
	store.Plans
	store.Invoices
	store.Subscriptions
	store.BillingIndexes
	store.LimitCounters
	store.DeadLetters
}

// Parts keeps the customers' parts of an import (on S3: blobs.Store).
type Parts interface {
	Put(ctx context.Context, key string, body []byte) error
	Get(ctx context.Context, key string) ([]byte, error)
}

// Pipeline holds what the intake and the worker use.
type Pipeline struct {
	Store Storage
	Parts Parts
	// Queue is the import FIFO queue: one message per customer.
	Queue queue.FIFO
	// Lanes, when set, feed each account's messages to Queue a window at a time;
	// without them the intake sends every message at once.
	Lanes *Lanes
	Jobs  jobs.Sender
	Now   func() time.Time
	// AfterWrite, when set, runs after each write step of Apply; tests return an error
	// from it to simulate a worker that dies between two writes.
	AfterWrite func(step string) error
}

// New builds the pipeline: records in st, customers' parts in parts, one message per
// customer on q, recomputations on jobs.
func New(st Storage, parts Parts, q queue.FIFO, jobs jobs.Sender, now func() time.Time) *Pipeline {
	return &Pipeline{Store: st, Parts: parts, Queue: q, Jobs: jobs, Now: now}
}

// ErrImportExists: the import external id was used before in the data source.
var ErrImportExists = store.ErrImportExists

// uploadConcurrency bounds the parallel S3 puts of one intake.
const uploadConcurrency = 16

// Accept runs the intake of a json_imports body: the whole payload is validated
// (model.ParseImport, then the references to invoices of earlier imports) before
// anything is written. Then the account's quotas admit it (quota.go; a refusal writes
// nothing). Then the import is recorded (refusing a used external id),
// plans are applied synchronously, so that every customer message finds them, each
// customer's part goes to S3, one message per customer to the account's import lane
// (which the feeder sends on to the FIFO queue), and the import is marked queued. Every step can be repeated: a client retrying after a
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
	id := model.ImportID(acc.ID, ds.UUID, payload.ExternalID)
	// The account's quotas, before anything of the import is written (quota.go).
	admitted, err := p.admit(ctx, acc, ds, id, payload.ExternalID, payloadRecords(payload))
	if err != nil {
		return model.Import{}, err
	}
	now := p.Now()
	imp, err := p.Store.CreateImport(ctx, model.Import{AccountID: acc.ID, ID: id,
		DataSourceUUID: ds.UUID, ExternalID: payload.ExternalID, Customers: len(parts),
		PayloadHash: hex.EncodeToString(sum[:]), Plans: model.KindStatus{Status: model.ImportQueued},
		CreatedAt: now, UpdatedAt: now})
	if err != nil {
		p.release(ctx, admitted)
		return model.Import{}, err
	}
	plans, err := p.ApplyPlans(ctx, acc.ID, imp.ID, ds, payload.Plans)
	if err != nil {
		return model.Import{}, err
	}
	if err := p.enqueue(ctx, acc, ds, imp, parts); err != nil {
		return model.Import{}, err
	}
	if err := p.Store.FinishImportIntake(ctx, imp, plans, p.Now()); err != nil {
		return model.Import{}, err
	}
	imp.Queued, imp.Plans = true, plans
	return imp, nil
}

// partsPerObject is how many customers' parts share one S3 object: the worker reads
// a batch of ten messages (the event source's batch size) with one GetObject when the
// batch holds consecutive customers, as a FIFO queue mostly delivers them.
const partsPerObject = 10

// enqueue stores the parts, ten per object, and queues one message per customer, in
// payload order: into the account's lane, or straight to the queue without lanes.
func (p *Pipeline) enqueue(ctx context.Context, acc model.Account, ds model.DataSource, imp model.Import, parts []Part) error {
	if len(parts) == 0 {
		return nil
	}
	last, err := p.Store.ReserveCustomerIDs(ctx, acc.ID, len(parts))
	if err != nil {
		return err
	}
	objectKey := func(o int) string { return partsKey(acc.ID, ds.UUID, imp.ID, strconv.Itoa(o)) }
	msgs := make([]queue.Message, len(parts))
	for i, part := range parts {
		m := Message{Version: messageVersion, AccountID: acc.ID, DataSourceUUID: ds.UUID, ImportID: imp.ID,
			CustomerExternalID: part.CustomerExternalID, Key: objectKey(i / partsPerObject), Index: i % partsPerObject,
			CustomerID: last - int64(len(parts)-1-i), System: ds.System, Currency: acc.Currency}
		body, err := json.Marshal(m)
		if err != nil {
			return err
		}
		msgs[i] = queue.Message{Body: string(body), Group: m.Group(), DedupID: m.DedupID()}
	}
	objects := (len(parts) + partsPerObject - 1) / partsPerObject
	errs := make([]error, objects)
	parallel.For(objects, uploadConcurrency, func(o int) {
		body, err := json.Marshal(parts[o*partsPerObject : min((o+1)*partsPerObject, len(parts))])
		if err == nil {
			err = p.Parts.Put(ctx, objectKey(o), body)
		}
		errs[o] = err
	})
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if p.Lanes != nil {
		return p.queueLane(ctx, imp, store.LaneImport{Seq: last, ImportID: imp.ID, Total: len(msgs),
			ChunkPrefix: importPrefix(acc.ID, ds.UUID, imp.ID) + "lane/"}, msgs)
	}
	// A customer has one message per import, so resending failed entries keeps each
	// group's order.
	return p.Queue.SendBatch(ctx, msgs)
}

// partsKey is where one object of an import's parts lives: every key starts with the
// account id, so a key never reaches another account's objects.
func partsKey(accountID, dsUUID, importID, object string) string {
	return importPrefix(accountID, dsUUID, importID) + object + ".json"
}

// importPrefix is where an import's objects live.
func importPrefix(accountID, dsUUID, importID string) string {
	return fmt.Sprintf("imports/%s/%s/%s/", accountID, dsUUID, importID)
}
