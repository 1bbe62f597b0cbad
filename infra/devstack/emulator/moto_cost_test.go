package emulator

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/subsight/subsight/shared/awsclients"
)

// The tests below show motoserver.py's cost patches at work, each alone: the same requests
// cost the emulator about the same CPU time whether the table or the queue around them is
// empty or holds thousands of items, on an emulator with every patch; on one with every
// patch but the one under test, the cost grows with the data (it copies or walks it all),
// tens of times over at these sizes. The bound (4x the cost on empty data, plus 50 ms for
// the clock's 10 ms ticks) leaves room for a busy host on both sides.
// CPU time, not wall time: the emulator runs one request at a time, so its CPU time is
// the requests' cost, whatever else the host does; which is also why the tests can run
// beside each other, each on an emulator of its own.

// flatCostRatio and flatCostSlack bound the CPU time of the requests on large data
// against the same requests on empty data.
const (
	flatCostRatio = 4
	flatCostSlack = 50 * time.Millisecond
)

// ownServerWith starts a moto with the patches selected (Options.Patches) for one test.
func ownServerWith(t *testing.T, patches string) (*Server, awsclients.Clients) {
	t.Helper()
	bin := installedBinary(t)
	s, err := Start(context.Background(), Options{Binary: bin, Patches: patches})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	cfg, err := s.AWSConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s, Clients(cfg)
}

func usage(t *testing.T, s *Server) Usage {
	t.Helper()
	u, err := s.Usage()
	if err != nil {
		t.Skipf("the emulator's CPU time and memory are read from /proc: %v", err)
	}
	return u
}

// patchRun is one of the two emulators a cost test runs on: every patch, or every patch but
// the one under test (without).
type patchRun struct {
	s       *Server
	c       awsclients.Clients
	without string // the patch left out; empty: every patch
}

// patched reports whether the run has the patch.
func (r patchRun) patched(patch string) bool { return r.without != patch }

// eachPatchRun runs body on an emulator with every patch and, for each patch named, on one
// with every patch but that one, the runs at once (each emulator's CPU time is its own).
func eachPatchRun(t *testing.T, patches []string, body func(t *testing.T, r patchRun)) {
	t.Parallel()
	var wg sync.WaitGroup
	for _, without := range append([]string{""}, patches...) {
		name, selection := "every patch", AllPatches
		if without != "" {
			name, selection = "without "+without, AllPatchesBut(without)
		}
		wg.Go(func() {
			t.Run(name, func(t *testing.T) {
				s, c := ownServerWith(t, selection)
				body(t, patchRun{s: s, c: c, without: without})
			})
		})
	}
	wg.Wait()
}

// cpuOf is the emulator's CPU time for work.
func cpuOf(t *testing.T, s *Server, work func()) time.Duration {
	t.Helper()
	before := usage(t, s).CPU
	work()
	return usage(t, s).CPU - before
}

// requireCost fails when cost, set against base, is not what the run must show: within the
// bound where it has patch, beyond it where it has not.
func requireCost(t *testing.T, r patchRun, patch, what string, base, cost time.Duration) {
	t.Helper()
	bound := flatCostRatio*base + flatCostSlack
	switch {
	case r.patched(patch) && cost > bound:
		t.Errorf("%s cost the emulator %v, against %v: the cost grows with the data", what, cost, base)
	case !r.patched(patch) && cost <= bound:
		t.Errorf("%s cost the emulator %v without %s, against %v: the patch is not what keeps it flat", what, cost, patch, base)
	}
}

// costWork is a measured piece of work and the patch that keeps its cost flat.
type costWork struct {
	patch string
	run   func()
}

// requireFlatCost measures the emulator's CPU time for each work, then fills the data
// with fill and measures each again: a work must cost about the same where the run has its
// patch, and more than the bound where it has not.
func requireFlatCost(t *testing.T, r patchRun, fill func(), works map[string]costWork) {
	t.Helper()
	empty := map[string]time.Duration{}
	for name, work := range works {
		empty[name] = cpuOf(t, r.s, work.run)
	}
	fill()
	for name, work := range works {
		full := cpuOf(t, r.s, work.run)
		t.Logf("%s: emulator CPU %v on empty data, %v on full", name, empty[name], full)
		requireCost(t, r, work.patch, name+" among the data", empty[name], full)
	}
}

// costTable creates a table keyed as the service's (PK, SK) with the index GSI1 (GSI1PK,
// GSI1SK).
func costTable(t *testing.T, db *dynamodb.Client) string {
	t.Helper()
	table := fmt.Sprintf("cost-%d", time.Now().UnixNano())
	key := func(name string, kt types.KeyType) types.KeySchemaElement {
		return types.KeySchemaElement{AttributeName: aws.String(name), KeyType: kt}
	}
	var defs []types.AttributeDefinition
	for _, a := range []string{"PK", "SK", "GSI1PK", "GSI1SK"} {
		defs = append(defs, types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: types.ScalarAttributeTypeS})
	}
	if _, err := db.CreateTable(context.Background(), &dynamodb.CreateTableInput{TableName: &table, BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: defs, KeySchema: []types.KeySchemaElement{key("PK", types.KeyTypeHash), key("SK", types.KeyTypeRange)},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("GSI1"),
			KeySchema:  []types.KeySchemaElement{key("GSI1PK", types.KeyTypeHash), key("GSI1SK", types.KeyTypeRange)},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}); err != nil {
		t.Fatal(err)
	}
	return table
}

func str(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func putItem(t *testing.T, db *dynamodb.Client, table string, item map[string]types.AttributeValue) {
	t.Helper()
	if _, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: &table, Item: item}); err != nil {
		t.Fatal(err)
	}
}

// fillTable writes n items of about 300 bytes into partitions of 100 items other than
// the measured requests', each also in an index partition of 100 items.
func fillTable(t *testing.T, db *dynamodb.Client, table string, n int) {
	t.Helper()
	for i := 0; i < n; i += 25 {
		var reqs []types.WriteRequest
		for j := i; j < min(i+25, n); j++ {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
				"PK": str("fill#" + strconv.Itoa(j/100)), "SK": str(fmt.Sprintf("item#%06d", j)),
				"GSI1PK": str("fill#" + strconv.Itoa(j%(n/100+1))), "GSI1SK": str(fmt.Sprintf("item#%06d", j)),
				"data": str(fmt.Sprintf("%0250d", j)),
			}}})
		}
		if _, err := db.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{
			RequestItems: map[string][]types.WriteRequest{table: reqs}}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTransactionCostIsIndependentOfTheTable: plain moto deep-copies the table for every
// item of a TransactWriteItems (to put it back if the transaction fails); with
// dynamodb-transaction-items it saves the items it touches. The table holds 1,000 items:
// each transaction without the patch copies it five times.
func TestTransactionCostIsIndependentOfTheTable(t *testing.T) {
	const patch = "dynamodb-transaction-items"
	eachPatchRun(t, []string{patch}, func(t *testing.T, r patchRun) {
		c := r.c
		table := costTable(t, c.DynamoDB)
		requireFlatCost(t, r, func() { fillTable(t, c.DynamoDB, table, 1000) }, map[string]costWork{"10 transactions": {patch, func() {
			transactions(t, c, table)
		}}})
	})
}

func transactions(t *testing.T, c awsclients.Clients, table string) {
	t.Helper()
	for i := range 10 {
		var items []types.TransactWriteItem
		for j := range 5 {
			items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: &table, Item: map[string]types.AttributeValue{
				"PK": str("tx#" + strconv.Itoa(i)), "SK": str(strconv.Itoa(j)), "GSI1PK": str("tx"), "GSI1SK": str(strconv.Itoa(i*5 + j))}}})
		}
		if _, err := c.DynamoDB.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: items}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestQueryCostIsIndependentOfTheTable: plain moto sorts every item of the table for a
// Query on the table's key, and walks every item of the table for a Query on a global
// secondary index, before it keeps the partition's; with dynamodb-query-partition and
// dynamodb-index-partitions a query reads its partition.
func TestQueryCostIsIndependentOfTheTable(t *testing.T) {
	eachPatchRun(t, []string{"dynamodb-query-partition", "dynamodb-index-partitions"}, func(t *testing.T, r patchRun) {
		c := r.c
		ctx := context.Background()
		table := costTable(t, c.DynamoDB)
		for j := range 3 {
			putItem(t, c.DynamoDB, table, map[string]types.AttributeValue{
				"PK": str("queried"), "SK": str(strconv.Itoa(j)), "GSI1PK": str("queried"), "GSI1SK": str(strconv.Itoa(j))})
		}
		queries := func(index *string, key string) func() {
			return func() {
				for range 30 {
					out, err := c.DynamoDB.Query(ctx, &dynamodb.QueryInput{TableName: &table, IndexName: index,
						KeyConditionExpression: aws.String(key + " = :pk"), ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str("queried")}})
					if err != nil {
						t.Fatal(err)
					}
					if len(out.Items) != 3 {
						t.Fatalf("query answered %d items, want 3", len(out.Items))
					}
				}
			}
		}
		requireFlatCost(t, r, func() { fillTable(t, c.DynamoDB, table, 4000) }, map[string]costWork{
			"30 queries on the table's key": {"dynamodb-query-partition", queries(nil, "PK")},
			"30 queries on GSI1":            {"dynamodb-index-partitions", queries(aws.String("GSI1"), "GSI1PK")},
		})
	})
}

// TestScanPageCostIsIndependentOfTheTable: plain moto sorts every item of the table for
// each page of a Scan; with dynamodb-scan-pages the table's order is kept from page to
// page, and reading 300 items in pages of 10 costs the same beside 4,000 other items.
func TestScanPageCostIsIndependentOfTheTable(t *testing.T) {
	const patch = "dynamodb-scan-pages"
	eachPatchRun(t, []string{patch}, func(t *testing.T, r patchRun) {
		c := r.c
		ctx := context.Background()
		table := costTable(t, c.DynamoDB)
		for i := range 310 {
			// "a-…" sorts before the fill's "fill#…": the pages read these items only.
			putItem(t, c.DynamoDB, table, map[string]types.AttributeValue{"PK": str(fmt.Sprintf("a-scanned#%03d", i/10)), "SK": str(strconv.Itoa(i))})
		}
		// Without the patch, 8,000: each page's sort then costs far beyond the bound.
		size := 4000
		if !r.patched(patch) {
			size = 8000
		}
		requireFlatCost(t, r, func() { fillTable(t, c.DynamoDB, table, size) }, map[string]costWork{"30 scan pages of 10 items": {patch, func() {
			var start map[string]types.AttributeValue
			for page := range 30 {
				out, err := c.DynamoDB.Scan(ctx, &dynamodb.ScanInput{TableName: &table, Limit: aws.Int32(10), ExclusiveStartKey: start})
				if err != nil {
					t.Fatal(err)
				}
				if len(out.Items) != 10 || out.LastEvaluatedKey == nil || !strings.HasPrefix(out.Items[0]["PK"].(*types.AttributeValueMemberS).Value, "a-") {
					t.Fatalf("page %d answered %d items (last key %v), want 10 of the scanned items", page, len(out.Items), out.LastEvaluatedKey)
				}
				start = out.LastEvaluatedKey
			}
		}}})
	})
}

// TestLimitedQueryCostIsIndependentOfThePartition: a page of a large partition (a
// listing of thousands of customers, Limit per_page+1, after a cursor) costs the emulator
// its page, whatever the partition holds: with dynamodb-sorted-partitions a partition
// keeps its order from its first query on; without, each query sorts the partition anew.
func TestLimitedQueryCostIsIndependentOfThePartition(t *testing.T) {
	const patch = "dynamodb-sorted-partitions"
	eachPatchRun(t, []string{patch}, func(t *testing.T, r patchRun) {
		c := r.c
		ctx := context.Background()
		table := costTable(t, c.DynamoDB)
		put := func(sk string) {
			putItem(t, c.DynamoDB, table, map[string]types.AttributeValue{
				"PK": str("listed"), "SK": str(sk), "GSI1PK": str("listed"), "GSI1SK": str(sk), "data": str(fmt.Sprintf("%0250d", 0))})
		}
		for j := range 40 {
			put(fmt.Sprintf("a#%03d", j))
		}
		pages := func(index *string, pk, sk string) func() {
			return func() {
				for i := range 30 {
					in := &dynamodb.QueryInput{TableName: &table, IndexName: index, Limit: aws.Int32(11),
						KeyConditionExpression: aws.String(pk + " = :pk"), ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str("listed")}}
					if i%2 == 1 { // the second page, after a cursor
						in.ExclusiveStartKey = map[string]types.AttributeValue{"PK": str("listed"), "SK": str("a#009")}
						if index != nil {
							in.ExclusiveStartKey[pk], in.ExclusiveStartKey[sk] = str("listed"), str("a#009")
						}
					}
					out, err := c.DynamoDB.Query(ctx, in)
					if err != nil {
						t.Fatal(err)
					}
					first := "a#000"
					if i%2 == 1 {
						first = "a#010"
					}
					if len(out.Items) != 11 || out.Items[0]["SK"].(*types.AttributeValueMemberS).Value != first {
						t.Fatalf("page %d answered %d items from %v, want 11 from %s", i, len(out.Items), out.Items[0]["SK"], first)
					}
				}
			}
		}
		// The partition's later items, 4,000 of them, after the pages' and written after the
		// first queries (as a listing grows), so each is put in its place in the kept order.
		fill := func() {
			for j := 0; j < 4000; j += 25 {
				var reqs []types.WriteRequest
				for k := j; k < j+25; k++ {
					sk := fmt.Sprintf("b#%05d", k)
					reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
						"PK": str("listed"), "SK": str(sk), "GSI1PK": str("listed"), "GSI1SK": str(sk), "data": str(fmt.Sprintf("%0250d", k))}}})
				}
				if _, err := c.DynamoDB.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}}); err != nil {
					t.Fatal(err)
				}
			}
		}
		requireFlatCost(t, r, fill, map[string]costWork{
			"30 pages of the table's partition": {patch, pages(nil, "PK", "SK")},
			"30 pages of the GSI1 partition":    {patch, pages(aws.String("GSI1"), "GSI1PK", "GSI1SK")},
		})
	})
}

// fifoQueue creates a FIFO queue whose received messages stay in flight for the whole test;
// more adds to or overrides its attributes.
func fifoQueue(t *testing.T, c awsclients.Clients, name string, more map[string]string) *string {
	t.Helper()
	attributes := map[string]string{"FifoQueue": "true", "VisibilityTimeout": "300"}
	maps.Copy(attributes, more)
	q, err := c.SQS.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String(fmt.Sprintf("%s-%d.fifo", name, time.Now().UnixNano())),
		Attributes: attributes})
	if err != nil {
		t.Fatal(err)
	}
	return q.QueueUrl
}

// sendBatches sends messages from..to-1 in batches of ten, each in the group that group names for its id.
func sendBatches(t *testing.T, c awsclients.Clients, url *string, from, to int, group func(id string) string) {
	t.Helper()
	for i := from; i < to; i += 10 {
		var entries []sqstypes.SendMessageBatchRequestEntry
		for j := i; j < min(i+10, to); j++ {
			id := strconv.Itoa(j)
			entries = append(entries, sqstypes.SendMessageBatchRequestEntry{Id: aws.String(id), MessageBody: aws.String("message " + id),
				MessageGroupId: aws.String(group(id)), MessageDeduplicationId: aws.String(id)})
		}
		if _, err := c.SQS.SendMessageBatch(context.Background(), &sqs.SendMessageBatchInput{QueueUrl: url, Entries: entries}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestQueueCostIsIndependentOfItsDepth: plain moto walks the queue's messages, reading the
// clock for each, several times for every message sent or received, and for every delete;
// with sqs-queue-depth a send, a receive and a delete cost the same with thousands of
// messages waiting (as the import and jobs queues hold during a large import). Without the
// patch, 3 rounds behind 150 messages (10 rounds behind 1,000 cost plain moto 26 s).
func TestQueueCostIsIndependentOfItsDepth(t *testing.T) {
	const patch = "sqs-queue-depth"
	eachPatchRun(t, []string{patch}, func(t *testing.T, r patchRun) {
		c := r.c
		ctx := context.Background()
		rounds, depth := 10, 1000
		if !r.patched(patch) {
			rounds, depth = 3, 150
		}
		url := fifoQueue(t, c, "cost", nil)
		sent := 0
		send := func(n int) {
			sendBatches(t, c, url, sent, sent+n, func(id string) string { return "group-" + id })
			sent += n
		}
		// Each round sends, receives and deletes ten messages: the queue keeps its depth.
		requireFlatCost(t, r, func() { send(depth) }, map[string]costWork{fmt.Sprintf("%d rounds of 10 messages", rounds): {patch, func() {
			for range rounds {
				send(10)
				out, err := c.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: 10})
				if err != nil {
					t.Fatal(err)
				}
				var entries []sqstypes.DeleteMessageBatchRequestEntry
				for i, m := range out.Messages {
					entries = append(entries, sqstypes.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
				}
				if len(entries) != 10 {
					t.Fatalf("received %d messages, want 10", len(entries))
				}
				if _, err := c.SQS.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: url, Entries: entries}); err != nil {
					t.Fatal(err)
				}
			}
		}}})
	})
}

// TestWaitingReceivesCostNothingBehindABusyGroup: pollers long-polling a FIFO queue whose
// one message group is in flight (a series fold holding its account's group while that
// account's later folds wait behind it) find nothing deliverable. Each receive walks the
// waiting messages once to find that out; while it then waits, plain moto walks them again
// and again, and so did the patched server, 50 times a second per receive, so that a few
// pollers behind a thousand messages kept the emulator busy. With sqs-receive-waits a
// receive waits for the queue to change: waiting 2 s costs what a receive that does not
// wait costs.
func TestWaitingReceivesCostNothingBehindABusyGroup(t *testing.T) {
	const patch = "sqs-receive-waits"
	eachPatchRun(t, []string{patch}, func(t *testing.T, r patchRun) {
		s, c := r.s, r.c
		ctx := context.Background()
		url := fifoQueue(t, c, "busy", nil)
		sendBatches(t, c, url, 0, 1001, func(string) string { return "account" })
		// The group's first batch goes in flight; the other 991 messages wait behind it.
		if out, err := c.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: 10}); err != nil || len(out.Messages) != 10 {
			t.Fatalf("received %v (%v), want the group's first ten messages", out, err)
		}
		receives := func(wait int32) time.Duration {
			before := usage(t, s).CPU
			var wg sync.WaitGroup
			for range 3 {
				wg.Go(func() {
					out, err := c.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: wait})
					if err != nil {
						t.Error(err)
					} else if len(out.Messages) != 0 {
						t.Errorf("received %d messages of a group in flight", len(out.Messages))
					}
				})
			}
			wg.Wait()
			return usage(t, s).CPU - before
		}
		atOnce, waiting := receives(0), receives(2)
		t.Logf("3 receives behind 991 messages of a group in flight: emulator CPU %v not waiting, %v waiting 2 s", atOnce, waiting)
		requireCost(t, r, patch, "waiting 2 s (against not waiting)", atOnce, waiting)
	})
}

// TestLongPollWakesWhenADelayEnds: a long poll answers when a delayed message becomes
// deliverable, as SQS's does (the series fold queue delays every fold a second). No send,
// delete or visibility change marks that moment, so a receive that waits for one
// (sqs-receive-waits) would wait out its whole poll unless it also knows when the delay ends.
func TestLongPollWakesWhenADelayEnds(t *testing.T) {
	c := sharedClients(t)
	url := fifoQueue(t, c, "delayed", map[string]string{"DelaySeconds": "1"})
	sendBatches(t, c, url, 0, 1, func(string) string { return "account" })
	start := time.Now()
	out, err := c.SQS.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 20})
	took := time.Since(start)
	if err != nil || len(out.Messages) != 1 {
		t.Fatalf("received %v (%v), want the delayed message", out, err)
	}
	t.Logf("a 20 s long poll answered the message delayed 1 s after %v", took.Round(time.Millisecond))
	// Far from both: the delay is 1 s, the poll 20 s.
	if took > 10*time.Second {
		t.Errorf("the long poll answered after %v, though its message was deliverable after 1 s", took)
	}
}

// TestAnswersCostLittlePerAttribute: plain moto writes every attribute value of an answer
// through its generic serializer, which tries each of AttributeValue's ten members on it
// (about a tenth of a millisecond per attribute): writing a page of 100 items of 32
// attributes costs it many times the query itself. With dynamodb-answers the same query
// answering its items costs little more than answering their count (Select COUNT, which
// does everything else the same). Without the patch, 4 queries, not 10.
func TestAnswersCostLittlePerAttribute(t *testing.T) {
	const patch = "dynamodb-answers"
	eachPatchRun(t, []string{patch}, func(t *testing.T, r patchRun) {
		s, c := r.s, r.c
		ctx := context.Background()
		times := 10
		if !r.patched(patch) {
			times = 4
		}
		table := costTable(t, c.DynamoDB)
		for i := 0; i < 100; i += 25 {
			var reqs []types.WriteRequest
			for j := i; j < i+25; j++ {
				it := map[string]types.AttributeValue{"PK": str("wide"), "SK": str(strconv.Itoa(j))}
				for a := range 30 {
					it[fmt.Sprintf("attribute%02d", a)] = str("value")
				}
				reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
			}
			if _, err := c.DynamoDB.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}}); err != nil {
				t.Fatal(err)
			}
		}
		query := func(sel types.Select) time.Duration {
			before := usage(t, s).CPU
			for range times {
				out, err := c.DynamoDB.Query(ctx, &dynamodb.QueryInput{TableName: &table, KeyConditionExpression: aws.String("PK = :pk"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str("wide")}, Select: sel})
				if err != nil {
					t.Fatal(err)
				}
				if out.Count != 100 {
					t.Fatalf("query counted %d items, want 100", out.Count)
				}
			}
			return usage(t, s).CPU - before
		}
		counted, answered := query(types.SelectCount), query(types.SelectAllAttributes)
		t.Logf("emulator CPU for %d queries of 100 items of 32 attributes: %v answering their count, %v answering the items", times, counted, answered)
		requireCost(t, r, patch, "answering the items (against their count)", counted, answered)
	})
}
