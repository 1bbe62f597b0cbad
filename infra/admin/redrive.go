package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/subsight/subsight/shared/imports"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/sqsworker"
	"github.com/subsight/subsight/shared/store"
)

// Redrive actions of one message.
const (
	actionReplay = "replay" // sent to its source queue, deleted from the dead-letter queue
	actionDelete = "delete" // definitively obsolete: deleted without replay
	actionKeep   = "keep"   // left in the dead-letter queue
)

// verdict is what redrive does with one message, and why.
type verdict struct {
	action, reason string
}

// replayPolicy says whether a dead-letter queue's messages may go back to their
// source queue (docs/operations.md, "Dead-letter queues").
type replayPolicy struct {
	summary string
	// check decides one message; nil replays every message of a live account.
	check func(ctx context.Context, r *redriver, m dlqMessage) (verdict, error)
}

// replayPolicies are the queues whose replay is safe. The schedule's dead-letter
// queue has no source queue and no policy: the next sweep does its work.
var replayPolicies = map[string]replayPolicy{
	"ImportDeadLetterQueue":         {summary: "per message (payload still stored, no newer import applied)", check: checkImportMessage},
	"JobsDeadLetterQueue":           {summary: "safe (jobs work from the stored state)"},
	"RecomputeDeadLetterQueue":      {summary: "safe (a recomputation reads the customer's records as they are)"},
	"SeriesFoldDeadLetterQueue":     {summary: "safe (folds run in any order and again)"},
	"ImportFeedDeadLetterQueue":     {summary: "safe (a feed sends only what the lane has not sent)"},
	"StripeEventDeadLetterQueue":    {summary: "safe (the sync applies an event once, in any order, its body in the message or still stored)"},
	"StripeBackfillDeadLetterQueue": {summary: "safe (its backfill was marked failed: the step does nothing; start a new backfill)"},
}

// outcome is one message's fate in `dlq redrive`.
type outcome struct {
	MessageID string `json:"message_id"`
	AccountID string `json:"account_id"`
	Action    string `json:"action"`
	Reason    string `json:"reason,omitempty"`
	DryRun    bool   `json:"dry_run,omitempty"`
}

// redriver holds what one redrive has read, so that each account, import and data
// source is read once.
type redriver struct {
	*deadLetters
	accounts map[string]bool           // account id -> exists
	imports  map[string]model.Import   // import id -> its record
	listed   map[string][]model.Import // account#data source -> its imports
	finished map[string]bool           // import id -> every customer has an outcome
	payloads map[string]bool           // S3 key -> exists
}

// redrive replays the messages of one dead-letter queue (of one account, when account
// is set) to its source queue, in the order of their message groups; a group's
// messages after one kept are kept too, so that they never overtake it.
func (d *deadLetters) redrive(ctx context.Context, queue, account string, dryRun bool) ([]outcome, error) {
	i := slices.IndexFunc(d.queues, func(q deadLetterQueue) bool { return q.Name == queue })
	if i < 0 {
		names := make([]string, len(d.queues))
		for j, q := range d.queues {
			names[j] = q.Name
		}
		return nil, fmt.Errorf("no dead-letter queue %q (one of %v)", queue, names)
	}
	q := d.queues[i]
	policy, ok := replayPolicies[q.Name]
	if !ok || q.Source == "" {
		return nil, fmt.Errorf("%s is not replayed: it has no source queue whose work is safe to run again (docs/operations.md, \"Dead-letter queues\")", q.Name)
	}
	msgs, err := d.read(ctx, q)
	var keep []dlqMessage
	defer func() {
		if rerr := d.release(ctx, q, keep); rerr != nil && err == nil {
			err = rerr
		}
	}()
	if err != nil {
		keep = msgs
		return nil, err
	}
	r := &redriver{deadLetters: d, accounts: map[string]bool{}, imports: map[string]model.Import{},
		listed: map[string][]model.Import{}, finished: map[string]bool{}, payloads: map[string]bool{}}
	var out []outcome
	blocked := map[string]string{} // message group -> the message that holds it
	for idx, m := range msgs {
		if account != "" && m.AccountID != account {
			keep = append(keep, m)
			continue
		}
		v, err := r.decide(ctx, policy, m)
		if err != nil {
			keep = append(keep, msgs[idx:]...)
			return out, err
		}
		if held, ok := blocked[m.Group]; ok && m.Group != "" {
			v = verdict{actionKeep, "behind message " + held + " of its group, which is kept"}
		}
		o := outcome{MessageID: m.ID, AccountID: m.AccountID, Action: v.action, Reason: v.reason, DryRun: dryRun}
		switch {
		case v.action == actionKeep:
			blocked[m.Group] = m.ID
			keep = append(keep, m)
		case dryRun:
			keep = append(keep, m)
		default:
			if err := r.apply(ctx, q, m, v.action); err != nil {
				keep = append(keep, msgs[idx:]...)
				return out, err
			}
		}
		out = append(out, o)
	}
	return out, nil
}

// decide is the policy's verdict, after the check every queue shares: a message of an
// account that no longer exists is obsolete.
func (r *redriver) decide(ctx context.Context, p replayPolicy, m dlqMessage) (verdict, error) {
	if m.AccountID != "" {
		exists, ok := r.accounts[m.AccountID]
		if !ok {
			_, err := r.store.GetAccount(ctx, m.AccountID)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return verdict{}, err
			}
			exists = err == nil
			r.accounts[m.AccountID] = exists
		}
		if !exists {
			return verdict{actionDelete, "its account no longer exists"}, nil
		}
	}
	if p.check == nil {
		return verdict{actionReplay, ""}, nil
	}
	return p.check(ctx, r, m)
}

// apply replays (send, then delete) or deletes one message. The send keeps the message
// group, so the group's order holds, and takes a deduplication id of its own derived
// from the dead-lettered message: a redrive interrupted between the send and the
// delete and run again within SQS's five minutes sends nothing twice.
func (r *redriver) apply(ctx context.Context, q deadLetterQueue, m dlqMessage, action string) error {
	if action == actionReplay {
		attrs := maps.Clone(m.attrs)
		if attrs == nil {
			attrs = map[string]sqstypes.MessageAttributeValue{}
		}
		attrs[sqsworker.RedrivenAttribute] = sqstypes.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(m.ID)}
		in := &sqs.SendMessageInput{QueueUrl: aws.String(q.SourceURL), MessageBody: aws.String(m.Body), MessageAttributes: attrs}
		if m.Group != "" {
			in.MessageGroupId = aws.String(m.Group)
			in.MessageDeduplicationId = aws.String("redrive-" + m.ID)
		}
		if _, err := r.sqs.SendMessage(ctx, in); err != nil {
			return fmt.Errorf("replay %s to %s: %w", m.ID, q.Source, err)
		}
	}
	_, err := r.sqs.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(q.URL), ReceiptHandle: aws.String(m.receipt)})
	return err
}

// checkImportMessage replays an import message only if its customer's part is still in
// the bucket and no import of the data source newer than the message's has applied
// that customer since (its status in that import: not failed). A newer import that has
// no outcome for the customer yet and is still under way may hold the customer's next
// message in the import queue, which the replay would follow: kept until it is done.
// A newer import that failed the customer too is in the dead-letter queue behind this
// message, in the same group, and is replayed after it.
func checkImportMessage(ctx context.Context, r *redriver, dm dlqMessage) (verdict, error) {
	m, err := imports.DecodeMessage(dm.Body)
	if err != nil {
		return verdict{actionKeep, "not an import message: " + err.Error()}, nil
	}
	if r.bucket == "" {
		return verdict{}, errors.New("no import bucket: pass -bucket NAME (the stack's ImportBucketName output) or set IMPORT_BUCKET")
	}
	stored, ok := r.payloads[m.Key]
	if !ok {
		_, err := r.s3.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(r.bucket), Key: aws.String(m.Key)})
		if err != nil && !isNotFound(err) {
			return verdict{}, err
		}
		stored = err == nil
		r.payloads[m.Key] = stored
	}
	if !stored {
		return verdict{actionDelete, "its payload is gone from the bucket (" + m.Key + "): it can never be applied; the import shows the customer failed"}, nil
	}
	imp, err := r.importByID(ctx, m.AccountID, m.DataSourceUUID, m.ImportID)
	if errors.Is(err, store.ErrNotFound) {
		return verdict{actionDelete, "its import no longer exists (its data source was purged)"}, nil
	}
	if err != nil {
		return verdict{}, err
	}
	newer, err := r.importsAfter(ctx, imp)
	if err != nil {
		return verdict{}, err
	}
	for _, n := range newer {
		status, err := r.store.ImportCustomerOutcome(ctx, m.AccountID, n.ID, m.CustomerExternalID)
		switch {
		case err == nil && status != model.RecordsFailed:
			return verdict{actionDelete, fmt.Sprintf("superseded: import %s (%s), newer, applied this customer since", n.ExternalID, n.CreatedAt.Format("2006-01-02T15:04:05Z"))}, nil
		case err == nil:
			continue // failed too: it follows this one in the group
		case !errors.Is(err, store.ErrNotFound):
			return verdict{}, err
		}
		done, err := r.importFinished(ctx, n)
		if err != nil {
			return verdict{}, err
		}
		if !done {
			return verdict{actionKeep, fmt.Sprintf("import %s, newer, is still under way and may hold this customer: replay once it is completed", n.ExternalID)}, nil
		}
	}
	return verdict{actionReplay, ""}, nil
}

func (r *redriver) importByID(ctx context.Context, accountID, dsUUID, id string) (model.Import, error) {
	if imp, ok := r.imports[id]; ok {
		return imp, nil
	}
	imp, err := r.store.GetImportByID(ctx, accountID, dsUUID, id)
	if err == nil {
		r.imports[id] = imp
	}
	return imp, err
}

// importsAfter lists the data source's imports created after imp, oldest first (the
// data source's imports are read once per redrive).
func (r *redriver) importsAfter(ctx context.Context, imp model.Import) ([]model.Import, error) {
	k := imp.AccountID + "#" + imp.DataSourceUUID
	all, ok := r.listed[k]
	if !ok {
		var start store.PageToken
		for {
			page, err := r.store.ListImports(ctx, imp.AccountID, imp.DataSourceUUID, 1000, start)
			if err != nil {
				return nil, err
			}
			all = append(all, page.Items...)
			if !page.HasMore || len(page.Items) == 0 {
				break
			}
			start = page.Next
		}
		slices.SortFunc(all, func(a, b model.Import) int { return a.CreatedAt.Compare(b.CreatedAt) })
		r.listed[k] = all
	}
	var out []model.Import
	for _, n := range all {
		if n.ID != imp.ID && n.CreatedAt.After(imp.CreatedAt) {
			out = append(out, n)
		}
	}
	return out, nil
}

// importFinished reports whether every customer of imp has an outcome.
func (r *redriver) importFinished(ctx context.Context, imp model.Import) (bool, error) {
	if done, ok := r.finished[imp.ID]; ok {
		return done, nil
	}
	done := false
	if imp.Queued {
		sts, err := r.store.ImportCustomerStatuses(ctx, imp.AccountID, imp.ID)
		if err != nil {
			return false, err
		}
		done = len(sts) >= imp.Customers
	}
	r.finished[imp.ID] = done
	return done, nil
}

func printOutcomes(w io.Writer, queue string, out []outcome) {
	counts := map[string]int{}
	for _, o := range out {
		counts[o.Action]++
		verb := map[string]string{actionReplay: "replayed", actionDelete: "deleted", actionKeep: "kept"}[o.Action]
		if o.DryRun && o.Action != actionKeep {
			verb = "would be " + verb
		}
		fmt.Fprintf(w, "%s  account %s  %s", o.MessageID, o.AccountID, verb)
		if o.Reason != "" {
			fmt.Fprintf(w, ": %s", o.Reason)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%s: %d replayed, %d deleted as obsolete, %d kept\n", queue, counts[actionReplay], counts[actionDelete], counts[actionKeep])
}
