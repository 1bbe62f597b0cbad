package emulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// sqsAnswers requires the same answers, ids and timestamps aside, to a random SQS workload:
// sends and batch sends to a FIFO queue (message groups, repeated deduplication ids, message
// attributes) and to a standard queue, receives of up to ten messages, deletes and batch
// deletes (some of messages deleted before, some with a handle no queue gave), visibility
// changes (a release, a longer hold, in batches), queue attributes (the message counts), a
// queue whose messages are delayed a second and a long poll that waits for them, and long
// polls that find nothing. Nothing stays in flight long enough for its visibility timeout
// to run out, so that no answer depends on when exactly a request came.
func sqsAnswers(t *testing.T, urls [2]string) {
	w := &sqsWorkload{t: t, urls: urls, queues: map[string][2]string{}, handles: [2]map[string]string{{}, {}}, seen: map[string]int{}}
	w.createQueue("eq.fifo", map[string]string{"FifoQueue": "true", "VisibilityTimeout": "60"})
	w.createQueue("eq-standard", map[string]string{"VisibilityTimeout": "60"})
	w.createQueue("eq-delayed.fifo", map[string]string{"FifoQueue": "true", "VisibilityTimeout": "60", "DelaySeconds": "1",
		"ContentBasedDeduplication": "true"})
	rng := rand.New(rand.NewPCG(7, 11))
	for step := range 250 {
		w.step = step
		w.act(rng)
	}
	// Everything left: each queue drained, message by message in its order.
	for _, q := range []string{"eq.fifo", "eq-standard"} {
		w.releaseAll(q)
		for range 40 {
			if len(w.receive(q, 10, 0)) == 0 {
				break
			}
			w.deleteHeld(q, len(w.held[q]))
		}
	}
	t.Logf("%d requests answered alike; %v", w.requests, w.seen)
}

type sqsWorkload struct {
	t        *testing.T
	urls     [2]string            // patched, plain
	queues   map[string][2]string // queue name -> its URL on each emulator
	handles  [2]map[string]string // message body -> its latest receipt handle, on each emulator
	held     map[string][]string  // queue name -> bodies received and not deleted or released
	sent     int
	step     int
	requests int
	seen     map[string]int
}

// volatile are the answer fields that differ between any two emulators: ids, receipt
// handles, timestamps, FIFO sequence numbers.
var volatile = map[string]bool{"MessageId": true, "ReceiptHandle": true, "SentTimestamp": true, "ApproximateFirstReceiveTimestamp": true,
	"SequenceNumber": true, "CreatedTimestamp": true, "LastModifiedTimestamp": true}

// normalized is an answer with its volatile fields blanked and each emulator's address
// taken out of queue URLs.
func normalized(v any, url string) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			if volatile[k] {
				out[k] = "-"
			} else {
				out[k] = normalized(x, url)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = normalized(x, url)
		}
		return out
	case string:
		return strings.ReplaceAll(v, url, "<emulator>")
	}
	return v
}

// call sends one SQS request, built for each emulator by body (queue URLs and receipt
// handles differ), to both, fails the test when the answers differ, and returns both
// answers decoded.
func (w *sqsWorkload) call(op string, body func(i int) map[string]any) [2]map[string]any {
	w.t.Helper()
	var raw [2][]byte
	var handles [2][]string
	for i := range 2 {
		b := body(i)
		raw[i] = mustJSON(w.t, b)
		for _, h := range w.handles[i] {
			if bytes.Contains(raw[i], []byte(h)) {
				handles[i] = append(handles[i], h)
			}
		}
	}
	status, got := sendBoth(w.t, w.urls, "sqs", "AmazonSQS."+op, raw)
	w.requests++
	w.seen[op]++
	var answers [2]map[string]any
	var shown [2][]byte
	for i := range 2 {
		text := string(got[i])
		// An error may quote the handle the request named.
		for _, h := range handles[i] {
			text = strings.ReplaceAll(text, h, "<handle>")
		}
		if len(bytes.TrimSpace(got[i])) > 0 {
			if err := json.Unmarshal(got[i], &answers[i]); err != nil {
				w.t.Fatalf("step %d, %s: answer %d is not JSON: %s", w.step, op, i, got[i])
			}
			var v any
			if err := json.Unmarshal([]byte(text), &v); err != nil {
				w.t.Fatal(err)
			}
			shown[i] = mustJSON(w.t, normalized(v, w.urls[i]))
		}
	}
	if status[0] != status[1] || !bytes.Equal(shown[0], shown[1]) {
		w.t.Fatalf("step %d, %s %s:\npatched: %d %s\nplain:   %d %s", w.step, op, raw[0], status[0], got[0], status[1], got[1])
	}
	if status[0] != http.StatusOK {
		w.seen[op+" failing"]++
	}
	return answers
}

func (w *sqsWorkload) createQueue(name string, attributes map[string]string) {
	answers := w.call("CreateQueue", func(int) map[string]any { return map[string]any{"QueueName": name, "Attributes": attributes} })
	var urls [2]string
	for i, a := range answers {
		url, ok := a["QueueUrl"].(string)
		if !ok {
			w.t.Fatalf("CreateQueue %s answered %v", name, a)
		}
		urls[i] = url
	}
	w.queues[name] = urls
}

// act draws one step of the workload.
func (w *sqsWorkload) act(rng *rand.Rand) {
	fifo := rng.IntN(4) > 0
	q := "eq-standard"
	if fifo {
		q = "eq.fifo"
	}
	switch rng.IntN(12) {
	case 0, 1:
		w.sendOne(rng, q)
	case 2:
		w.sendBatch(rng, q, 1+rng.IntN(10))
	case 3, 4, 5:
		w.receive(q, 1+rng.IntN(10), 0)
	case 6:
		w.deleteHeld(q, 1+rng.IntN(3))
	case 7:
		w.release(rng, q)
	case 8:
		w.hold(rng, q)
	case 9:
		w.call("GetQueueAttributes", func(i int) map[string]any {
			return map[string]any{"QueueUrl": w.queues[q][i], "AttributeNames": []any{"All"}}
		})
	case 10:
		w.strayDeletes(rng, q)
	default:
		switch rng.IntN(8) {
		case 0:
			// A send to the delayed queue and a long poll that answers when its delay ends.
			w.sendOne(rng, "eq-delayed.fifo")
			if got := w.receive("eq-delayed.fifo", 10, 0); len(got) != 0 {
				w.t.Fatalf("step %d: a message delayed a second was received at once", w.step)
			}
			if len(w.receive("eq-delayed.fifo", 10, 5)) == 0 {
				w.t.Fatalf("step %d: a 5 s long poll did not answer the message delayed a second", w.step)
			}
			w.seen["long polls answering a delayed message"]++
			w.deleteHeld("eq-delayed.fifo", 10)
		case 1:
			// A long poll that finds nothing: the delayed queue is empty.
			w.receive("eq-delayed.fifo", 10, 1)
			w.seen["long polls finding nothing"]++
		default:
			w.receive(q, 10, 0)
		}
	}
}

func (w *sqsWorkload) nextBody() string {
	w.sent++
	return "message-" + strconv.Itoa(w.sent)
}

// entry draws a message: for a FIFO queue a group among four and a deduplication id, now
// and then one sent before (a duplicate then); now and then message attributes.
func (w *sqsWorkload) entry(rng *rand.Rand, q, body string) map[string]any {
	e := map[string]any{"MessageBody": body}
	if strings.HasSuffix(q, ".fifo") {
		e["MessageGroupId"] = "group-" + strconv.Itoa(rng.IntN(4))
		if q == "eq.fifo" {
			dedup := body
			if rng.IntN(8) == 0 && w.sent > 3 {
				dedup = "message-" + strconv.Itoa(w.sent-1-rng.IntN(3))
				w.seen["duplicate sends"]++
			}
			e["MessageDeduplicationId"] = dedup
		}
	}
	if rng.IntN(4) == 0 {
		e["MessageAttributes"] = map[string]any{
			"kind":  map[string]any{"DataType": "String", "StringValue": "fold"},
			"count": map[string]any{"DataType": "Number", "StringValue": strconv.Itoa(rng.IntN(100))},
			"blob":  map[string]any{"DataType": "Binary", "BinaryValue": "AAECAw=="},
		}
	}
	return e
}

func (w *sqsWorkload) sendOne(rng *rand.Rand, q string) {
	e := w.entry(rng, q, w.nextBody())
	w.call("SendMessage", func(i int) map[string]any {
		req := map[string]any{"QueueUrl": w.queues[q][i]}
		for k, v := range e {
			req[k] = v
		}
		return req
	})
}

func (w *sqsWorkload) sendBatch(rng *rand.Rand, q string, n int) {
	var entries []any
	for j := range n {
		e := w.entry(rng, q, w.nextBody())
		e["Id"] = strconv.Itoa(j)
		entries = append(entries, e)
	}
	w.call("SendMessageBatch", func(i int) map[string]any { return map[string]any{"QueueUrl": w.queues[q][i], "Entries": entries} })
}

// receive receives up to max messages, waiting up to wait seconds, and returns their
// bodies, which are then held.
func (w *sqsWorkload) receive(q string, max, wait int) []string {
	answers := w.call("ReceiveMessage", func(i int) map[string]any {
		return map[string]any{"QueueUrl": w.queues[q][i], "MaxNumberOfMessages": max, "WaitTimeSeconds": wait,
			"MessageSystemAttributeNames": []any{"All"}, "MessageAttributeNames": []any{"All"}}
	})
	var bodies []string
	for i, a := range answers {
		messages, _ := a["Messages"].([]any)
		for _, m := range messages {
			m := m.(map[string]any)
			body := m["Body"].(string)
			w.handles[i][body] = m["ReceiptHandle"].(string)
			if i == 0 {
				bodies = append(bodies, body)
			}
		}
	}
	if w.held == nil {
		w.held = map[string][]string{}
	}
	w.held[q] = append(w.held[q], bodies...)
	if len(bodies) > 0 {
		w.seen["messages received"] += len(bodies)
	}
	return bodies
}

// deleteHeld deletes the first n messages held, one alone or several in a batch.
func (w *sqsWorkload) deleteHeld(q string, n int) {
	n = min(n, len(w.held[q]))
	if n == 0 {
		return
	}
	bodies := w.held[q][:n]
	w.held[q] = w.held[q][n:]
	if n == 1 {
		w.call("DeleteMessage", func(i int) map[string]any {
			return map[string]any{"QueueUrl": w.queues[q][i], "ReceiptHandle": w.handles[i][bodies[0]]}
		})
		return
	}
	w.call("DeleteMessageBatch", func(i int) map[string]any {
		var entries []any
		for j, b := range bodies {
			entries = append(entries, map[string]any{"Id": strconv.Itoa(j), "ReceiptHandle": w.handles[i][b]})
		}
		return map[string]any{"QueueUrl": w.queues[q][i], "Entries": entries}
	})
}

// release makes a held message visible again (visibility timeout 0), alone or with the
// others of a batch: a FIFO group's first message then comes back before its successors.
func (w *sqsWorkload) release(rng *rand.Rand, q string) {
	if len(w.held[q]) == 0 {
		return
	}
	k := rng.IntN(len(w.held[q]))
	body := w.held[q][k]
	w.held[q] = append(w.held[q][:k:k], w.held[q][k+1:]...)
	w.call("ChangeMessageVisibility", func(i int) map[string]any {
		return map[string]any{"QueueUrl": w.queues[q][i], "ReceiptHandle": w.handles[i][body], "VisibilityTimeout": 0}
	})
}

// releaseAll releases every held message in one batch per ten.
func (w *sqsWorkload) releaseAll(q string) {
	for len(w.held[q]) > 0 {
		bodies := w.held[q][:min(10, len(w.held[q]))]
		w.held[q] = w.held[q][len(bodies):]
		w.call("ChangeMessageVisibilityBatch", func(i int) map[string]any {
			var entries []any
			for j, b := range bodies {
				entries = append(entries, map[string]any{"Id": strconv.Itoa(j), "ReceiptHandle": w.handles[i][b], "VisibilityTimeout": 0})
			}
			return map[string]any{"QueueUrl": w.queues[q][i], "Entries": entries}
		})
	}
}

// hold keeps a held message longer (its visibility timeout set again).
func (w *sqsWorkload) hold(rng *rand.Rand, q string) {
	if len(w.held[q]) == 0 {
		return
	}
	body := w.held[q][rng.IntN(len(w.held[q]))]
	w.call("ChangeMessageVisibility", func(i int) map[string]any {
		return map[string]any{"QueueUrl": w.queues[q][i], "ReceiptHandle": w.handles[i][body], "VisibilityTimeout": 90}
	})
}

// strayDeletes sends what a confused worker would: a delete with a handle of a message
// deleted before, a delete and a visibility change with a handle no queue gave.
func (w *sqsWorkload) strayDeletes(rng *rand.Rand, q string) {
	held := map[string]bool{}
	for _, b := range w.held[q] {
		held[b] = true
	}
	for body := range w.handles[0] {
		if !held[body] && rng.IntN(2) == 0 && strings.HasPrefix(body, "message-") {
			w.call("DeleteMessage", func(i int) map[string]any {
				return map[string]any{"QueueUrl": w.queues[q][i], "ReceiptHandle": w.handles[i][body]}
			})
			break
		}
	}
	stray := fmt.Sprintf("stray-handle-%d", w.step)
	w.call("DeleteMessage", func(i int) map[string]any { return map[string]any{"QueueUrl": w.queues[q][i], "ReceiptHandle": stray} })
	w.call("ChangeMessageVisibility", func(i int) map[string]any {
		return map[string]any{"QueueUrl": w.queues[q][i], "ReceiptHandle": stray, "VisibilityTimeout": 0}
	})
}
