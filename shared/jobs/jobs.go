// Package jobs defines the asynchronous work items of the jobs FIFO queue and sends
// them through a queue.FIFO (no AWS import: the wiring hands it the SQS queue). Messages of one customer (or one data source) share a message group, so their
// jobs never run concurrently and run in order.
package jobs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/subsight/subsight/shared/queue"
)

// Job types. Messages are built only by the constructors below.
const (
	// PurgeDataSource deletes a data source and everything imported into it.
	PurgeDataSource = "purge_data_source"
	// EmptyDataSource deletes what was imported into a data source and keeps the
	// source (and, with KeepCustomers, its customers).
	EmptyDataSource = "empty_data_source"
	// RecomputeCustomer recomputes one customer's subscriptions and metrics from its
	// stored records.
	RecomputeCustomer = "recompute_customer"
	// MergeCustomers carries out the merges pending into one customer.
	MergeCustomers = "merge_customers"
	// UnmergeCustomer carries out the unmerges pending out of one customer.
	UnmergeCustomer = "unmerge_customer"
	// ExportActivities writes an account's activities to the CSV file of an export.
	ExportActivities = "export_activities"
	// FoldSeries moves what a bulk shard of the account series holds into the read copy.
	FoldSeries = "fold_series"
	// RecomputeDataSourceCustomers asks for the recomputation of every customer of a
	// data source (a change of the source's own settings that moves its metrics).
	RecomputeDataSourceCustomers = "recompute_data_source"
)

// Bulk is the lane of the recomputations that imports (and the passage of time) ask
// for, on a queue of their own: changes made through the API go to the jobs queue and
// never wait behind an import's million customers.
const Bulk = "bulk"

// Purge is the job that deletes a data source and everything imported into it.
func Purge(accountID, dsUUID string) Message {
	return Message{Type: PurgeDataSource, AccountID: accountID, DataSourceUUID: dsUUID}
}

// Empty is the job that deletes what was imported into a data source and keeps the
// source; keepCustomers keeps its customers too. request tells two requests apart (an
// import between them gives the second one something to delete).
func Empty(accountID, dsUUID string, keepCustomers bool, request string) Message {
	return Message{Type: EmptyDataSource, AccountID: accountID, DataSourceUUID: dsUUID, KeepCustomers: keepCustomers,
		Nonce: request}
}

// Recompute is the job that recomputes one customer. reason tells this request from
// the others (it is the nonce): two requests with the same reason within SQS's
// deduplication window run once, so it names what changed (an import id, an edit's
// version, a time).
func Recompute(accountID, customerUUID, reason string) Message {
	return Message{Type: RecomputeCustomer, AccountID: accountID, CustomerUUID: customerUUID, Nonce: reason}
}

// RecomputeDataSource is the job that asks for the recomputation of every customer of
// a data source, a page of them per piece of work, in steps (Continue) like a purge.
// change names the change that asks for it (its time): two changes both run, a
// repeated request for one runs once.
func RecomputeDataSource(accountID, dsUUID, change string) Message {
	return Message{Type: RecomputeDataSourceCustomers, AccountID: accountID, DataSourceUUID: dsUUID, Nonce: change}
}

// Merge is the job that carries out the merges pending into customer into; from, the
// customer merged away, keeps the merges of several customers apart.
func Merge(accountID, intoUUID, fromUUID string) Message {
	return Message{Type: MergeCustomers, AccountID: accountID, CustomerUUID: intoUUID, Nonce: fromUUID}
}

// Unmerge is the job that carries out the unmerges pending out of a customer; pair
// (the data source customer that leaves) keeps the unmerges of several pairs apart.
func Unmerge(accountID, customerUUID, pair string) Message {
	return Message{Type: UnmergeCustomer, AccountID: accountID, CustomerUUID: customerUUID, Nonce: pair}
}

// Export is the job that carries out an activities export request.
func Export(accountID, exportID string) Message {
	return Message{Type: ExportActivities, AccountID: accountID, ExportID: exportID}
}

// Fold is the job that folds the segments a bulk shard of the account series holds
// into the read copy; batch (the id of the batch that wrote them) keeps the folds of
// several batches apart. An account's folds share a message group: they run one at a
// time.
func Fold(accountID string, shard int, segments []string, batch string) Message {
	return Message{Type: FoldSeries, AccountID: accountID, Shard: shard, Segments: segments, Nonce: batch}
}

// Continue is the job that carries on m where its last step stopped: resume is the
// position that step saved (opaque here; "" when the job keeps its position itself).
// Each step is a message of its own, so a long job never runs out of receives.
func Continue(m Message, resume string) Message {
	m.Step++
	m.Resume = resume
	return m
}

// Message is one job.
type Message struct {
	Type           string `json:"type"`
	AccountID      string `json:"account_id"`
	DataSourceUUID string `json:"data_source_uuid,omitempty"`
	CustomerUUID   string `json:"customer_uuid,omitempty"`
	ExportID       string `json:"export_id,omitempty"`
	// KeepCustomers: an EmptyDataSource job keeps the source's customers.
	KeepCustomers bool `json:"keep_customers,omitempty"`
	// Shard and Segments are a fold's.
	Shard    int      `json:"shard,omitempty"`
	Segments []string `json:"segments,omitempty"`
	// Lane is Bulk for the recomputations of the bulk queue.
	Lane string `json:"lane,omitempty"`
	// Nonce distinguishes two requests for the same work that must both run; empty
	// lets SQS deduplicate repeats within its five-minute window.
	Nonce string `json:"nonce,omitempty"`
	// Step and Resume are a continuation's (Continue): how many steps ran before it,
	// and where the work resumes.
	Step   int    `json:"step,omitempty"`
	Resume string `json:"resume,omitempty"`
}

// Group is the FIFO message group: the account for a fold, the customer when there is
// one, else the export or the data source.
func (m Message) Group() string {
	if m.Type == FoldSeries {
		return m.AccountID
	}
	if m.CustomerUUID != "" {
		return m.AccountID + "#" + m.CustomerUUID
	}
	if m.ExportID != "" {
		return m.AccountID + "#" + m.ExportID
	}
	return m.AccountID + "#" + m.DataSourceUUID
}

// DedupID identifies the message for SQS deduplication. A continuation's position is
// left out: two continuations of one step (the step repeated) are one message, and
// either position is a right place to resume, as the work before both is done.
func (m Message) DedupID() string {
	m.Resume = ""
	b, _ := json.Marshal(m)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Sender sends jobs to the jobs queue (Queue).
type Sender interface {
	// Send enqueues a job.
	Send(ctx context.Context, m Message) error
	// SendBatch enqueues several jobs in order.
	SendBatch(ctx context.Context, ms []Message) error
}

// Queue sends jobs to a FIFO queue (on SQS: fifo.Queue), as JSON bodies with their
// group and deduplication id.
type Queue struct {
	fifo queue.FIFO
	lane string // stamped on every job sent
}

var _ Sender = (*Queue)(nil)

// NewQueue returns the sender of jobs on q.
func NewQueue(q queue.FIFO) *Queue { return &Queue{fifo: q} }

// NewBulkQueue returns the sender of the bulk lane's jobs on q.
func NewBulkQueue(q queue.FIFO) *Queue { return &Queue{fifo: q, lane: Bulk} }

// Send enqueues a job.
func (q *Queue) Send(ctx context.Context, m Message) error {
	m.Lane = q.lane
	out, err := envelope(m)
	if err != nil {
		return err
	}
	return q.fifo.Send(ctx, out)
}

// SendBatch enqueues several jobs, ten per request.
func (q *Queue) SendBatch(ctx context.Context, ms []Message) error {
	out := make([]queue.Message, len(ms))
	for i, m := range ms {
		m.Lane = q.lane
		var err error
		if out[i], err = envelope(m); err != nil {
			return err
		}
	}
	return q.fifo.SendBatch(ctx, out)
}

func envelope(m Message) (queue.Message, error) {
	body, err := json.Marshal(m)
	if err != nil {
		return queue.Message{}, err
	}
	return queue.Message{Body: string(body), Group: m.Group(), DedupID: m.DedupID()}, nil
}

// Decode reads a job from a message body.
func Decode(body string) (Message, error) {
	var m Message
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		return m, fmt.Errorf("jobs: bad message: %w", err)
	}
	if m.Type == "" || m.AccountID == "" {
		return m, fmt.Errorf("jobs: message without type or account")
	}
	return m, nil
}
