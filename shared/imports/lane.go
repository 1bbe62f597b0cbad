package imports

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/parallel"
	"github.com/subsight/subsight/shared/queue"
	"github.com/subsight/subsight/shared/store"
)

// Lanes feed each account's customer messages to the import queue at most Window at
// a time (docs/architecture.md, "Lanes"): the intake stores an import's messages in
// chunks and asks the feeder queue, one message group per account, to feed the account.
type Lanes struct {
	// Feeds is the feeder FIFO queue; Window the most customer messages of one account
	// sent to the import queue and not yet applied.
	Feeds  queue.FIFO
	Window int
}

// messagesPerChunk is how many customer messages share one S3 object of an import's
// lane: one GetObject feeds fifty customers.
const messagesPerChunk = 50

// FeedMessage is the feeder queue's message: feed this account's lane.
type FeedMessage struct {
	AccountID string `json:"feed_account_id"`
}

// feedMessage builds the account's feed message. Its dedup id is the account and the
// second: two feed chains of one account (a new import's intake while the feeder polls)
// that send in the same second merge into one, and a chain never repeats an id, since
// each poll waits for the feeder queue's one-second delay.
func (p *Pipeline) feedMessage(accountID string) (queue.Message, error) {
	body, err := json.Marshal(FeedMessage{AccountID: accountID})
	if err != nil {
		return queue.Message{}, err
	}
	return queue.Message{Body: string(body), Group: accountID,
		DedupID: queue.ID("feed", accountID, strconv.FormatInt(p.Now().Unix(), 10))}, nil
}

// DecodeFeedMessage reads a feeder queue's message body.
func DecodeFeedMessage(body string) (FeedMessage, error) {
	var m FeedMessage
	if err := json.Unmarshal([]byte(body), &m); err != nil || m.AccountID == "" {
		return m, fmt.Errorf("imports: bad feed message %q", body)
	}
	return m, nil
}

// queueLane stores an import's messages in chunks under its prefix, puts the import in
// its account's lane and asks the feeder to feed the account.
func (p *Pipeline) queueLane(ctx context.Context, rec model.Import, imp store.LaneImport, msgs []queue.Message) error {
	chunks := (len(msgs) + messagesPerChunk - 1) / messagesPerChunk
	errs := make([]error, chunks)
	parallel.For(chunks, uploadConcurrency, func(c int) {
		body, err := json.Marshal(msgs[c*messagesPerChunk : min((c+1)*messagesPerChunk, len(msgs))])
		if err == nil {
			err = p.Parts.Put(ctx, chunkKey(imp.ChunkPrefix, c), body)
		}
		errs[c] = err
	})
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := p.Store.AddLaneImport(ctx, rec, imp); err != nil {
		return err
	}
	return p.sendFeed(ctx, rec.AccountID)
}

func chunkKey(prefix string, c int) string { return prefix + strconv.Itoa(c) + ".json" }

// Feed sends the account's next customer messages to the import queue, the oldest
// import's first, while fewer than Window are sent and not yet applied; an import's
// messages are all sent before the next import's first, which keeps every customer's
// imports in order. While messages remain it sends the account's next feed message
// (the feeder queue delays it a second); then it stops. A redelivered feed resends
// with the same dedup ids, and the lane's position moves only after a send succeeded.
func (p *Pipeline) Feed(ctx context.Context, accountID string) error {
	lane, err := p.Store.ReadLane(ctx, accountID)
	if err != nil || len(lane.Imports) == 0 {
		return err
	}
	budget := int64(p.Lanes.Window) - (lane.Sent - lane.Applied)
	remaining := false
	for _, imp := range lane.Imports {
		for budget > 0 && imp.Next < imp.Total {
			c := imp.Next / messagesPerChunk
			body, err := p.Parts.Get(ctx, chunkKey(imp.ChunkPrefix, c))
			if err != nil {
				return err
			}
			var chunk []queue.Message
			if err := json.Unmarshal(body, &chunk); err != nil {
				return fmt.Errorf("imports: lane chunk %s: %w", chunkKey(imp.ChunkPrefix, c), err)
			}
			next := min(c*messagesPerChunk+len(chunk), imp.Next+int(budget))
			if err := p.Queue.SendBatch(ctx, chunk[imp.Next-c*messagesPerChunk:next-c*messagesPerChunk]); err != nil {
				return err
			}
			if err := p.Store.AdvanceLane(ctx, accountID, imp, next); err != nil {
				if !errors.Is(err, store.ErrConflict) {
					return err
				}
				// The lane moved on: another delivery of this feed, or this very write
				// on an attempt whose answer was lost. Stopping here would leave nobody
				// feeding in the second case; the next feed reads where the lane stands.
				return p.sendFeed(ctx, accountID)
			}
			budget -= int64(next - imp.Next)
			imp.Next = next
		}
		if imp.Next < imp.Total {
			remaining = true
			break
		}
	}
	if !remaining {
		return nil
	}
	return p.sendFeed(ctx, accountID)
}

// sendFeed sends the account's next feed message.
func (p *Pipeline) sendFeed(ctx context.Context, accountID string) error {
	feed, err := p.feedMessage(accountID)
	if err != nil {
		return err
	}
	return p.Lanes.Feeds.Send(ctx, feed)
}

// Applied adds to each account's lane the customer messages that left the import
// queue (applied, or failed for good): their window slots are free again.
func (p *Pipeline) Applied(ctx context.Context, perAccount map[string]int64) error {
	if p.Lanes == nil {
		return nil
	}
	var errs []error
	for accountID, n := range perAccount {
		errs = append(errs, p.Store.AddLaneApplied(ctx, accountID, n))
	}
	return errors.Join(errs...)
}
