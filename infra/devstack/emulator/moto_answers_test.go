package emulator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// TestPatchedMotoAnswersAsPlainMoto sends the same random workloads to the emulator with
// every patch and to plain moto and requires the same answers. The patches change what the
// emulator walks, copies and keeps, never what it answers.
func TestPatchedMotoAnswersAsPlainMoto(t *testing.T) {
	t.Parallel()
	bin := installedBinary(t)
	// moto_server linked from a directory without python beside it runs plain moto.
	plainBin := filepath.Join(t.TempDir(), "moto_server")
	if err := os.Symlink(bin, plainBin); err != nil {
		t.Fatal(err)
	}
	var servers [2]*Server
	var err error
	for i, b := range []string{bin, plainBin} {
		if servers[i], err = Start(context.Background(), Options{Binary: b, Patches: AllPatches}); err != nil {
			t.Fatal(err)
		}
		defer servers[i].Stop()
	}
	urls := [2]string{servers[0].URL, servers[1].URL}
	// The two services' workloads at once: neither sees the other's data.
	var wg sync.WaitGroup
	wg.Go(func() { t.Run("DynamoDB", func(t *testing.T) { dynamoDBAnswers(t, urls) }) })
	wg.Go(func() { t.Run("SQS", func(t *testing.T) { sqsAnswers(t, urls) }) })
	wg.Wait()
}

// dynamoDBAnswers requires byte-identical answers to a random DynamoDB workload: puts,
// updates that move items between index partitions or drop their index keys, deletes, batch
// writes, transactions that succeed, fail a condition or are refused, each followed by a
// read (table and index queries forwards and backwards, with Limit, key conditions,
// filters, projections, COUNT, and every page through ExclusiveStartKey; GetItem), and a
// Scan of every table at the end.
func dynamoDBAnswers(t *testing.T, urls [2]string) {
	w := &answers{t: t, urls: urls}
	w.createTables()
	rng := rand.New(rand.NewPCG(23, 5))
	for step := range 400 {
		w.step = step
		w.write(rng)
		w.read(rng)
	}
	for _, table := range []string{"eq-a", "eq-b"} {
		w.pages("Scan", map[string]any{"TableName": table, "Limit": 7})
	}
	t.Logf("%d requests answered alike; %v", w.requests, w.seen)
}

type answers struct {
	t        *testing.T
	urls     [2]string // patched, plain
	step     int
	requests int
	seen     map[string]int
}

// call sends one DynamoDB request to both emulators and returns the answer, failing the
// test when the two differ.
func (w *answers) call(op string, body map[string]any) (int, []byte) {
	w.t.Helper()
	status, got := w.send(op, body)
	w.requests++
	if status[0] != status[1] || !bytes.Equal(got[0], got[1]) {
		w.t.Fatalf("step %d, %s %s:\npatched: %d %s\nplain:   %d %s", w.step, op, mustJSON(w.t, body), status[0], got[0], status[1], got[1])
	}
	return status[0], got[0]
}

func mustJSON(t *testing.T, v any) []byte {
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// send sends one DynamoDB request to both emulators and returns both answers.
func (w *answers) send(op string, body map[string]any) ([2]int, [2][]byte) {
	w.t.Helper()
	raw := mustJSON(w.t, body)
	status, got := sendBoth(w.t, w.urls, "dynamodb", "DynamoDB_20120810."+op, [2][]byte{raw, raw})
	w.tally(op, status[0], got[0], body)
	return status, got
}

// sendBoth sends a JSON-protocol request of the service to each emulator at once (the
// body bodies[i] to urls[i]) and returns both answers.
func sendBoth(t *testing.T, urls [2]string, service, target string, bodies [2][]byte) ([2]int, [2][]byte) {
	t.Helper()
	var status [2]int
	var got [2][]byte
	var errs [2]error
	var wg sync.WaitGroup
	for i, url := range urls {
		wg.Go(func() {
			req, err := http.NewRequest(http.MethodPost, url+"/", bytes.NewReader(bodies[i]))
			if err != nil {
				errs[i] = err
				return
			}
			req.Header.Set("Content-Type", "application/x-amz-json-1.0")
			req.Header.Set("X-Amz-Target", target)
			req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/"+service+"/aws4_request, SignedHeaders=host, Signature=0")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				errs[i] = err
				return
			}
			defer resp.Body.Close()
			status[i] = resp.StatusCode
			got[i], errs[i] = io.ReadAll(resp.Body)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return status, got
}

// tally counts what the workload exercised, for the log: a run that never cancels a
// transaction or never pages would prove less than it claims.
func (w *answers) tally(op string, status int, answer []byte, body map[string]any) {
	if w.seen == nil {
		w.seen = map[string]int{}
	}
	switch {
	case op == "TransactWriteItems" && status == http.StatusOK:
		w.seen["transactions applied"]++
	case op == "TransactWriteItems" && bytes.Contains(answer, []byte("TransactionCanceledException")):
		w.seen["transactions cancelled"]++
	case op == "TransactWriteItems":
		w.seen["transactions refused"]++
	case op == "UpdateItem" || op == "PutItem" || op == "DeleteItem":
		if status != http.StatusOK {
			w.seen["writes failing their condition"]++
		}
	case op == "Query" && body["ExclusiveStartKey"] != nil:
		w.seen["query pages after ExclusiveStartKey"]++
	case op == "Query" && body["IndexName"] != nil:
		w.seen["index queries"]++
	case op == "Query":
		w.seen["table queries"]++
	}
}

func (w *answers) createTables() {
	def := func(name, typ string) map[string]any {
		return map[string]any{"AttributeName": name, "AttributeType": typ}
	}
	key := func(name, kt string) map[string]any { return map[string]any{"AttributeName": name, "KeyType": kt} }
	all := map[string]any{"ProjectionType": "ALL"}
	create := func(body map[string]any) {
		// The answers carry the creation time: only their status is compared.
		if status, got := w.send("CreateTable", body); status != [2]int{200, 200} {
			w.t.Fatalf("CreateTable: %d %s, %d %s", status[0], got[0], status[1], got[1])
		}
	}
	create(map[string]any{"TableName": "eq-a", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": []any{def("PK", "S"), def("SK", "S"), def("GSI1PK", "S"), def("GSI1SK", "S"), def("GSI2PK", "S"), def("LSK", "N")},
		"KeySchema":            []any{key("PK", "HASH"), key("SK", "RANGE")},
		"GlobalSecondaryIndexes": []any{
			map[string]any{"IndexName": "GSI1", "KeySchema": []any{key("GSI1PK", "HASH"), key("GSI1SK", "RANGE")}, "Projection": all},
			map[string]any{"IndexName": "GSI2", "KeySchema": []any{key("GSI2PK", "HASH")},
				"Projection": map[string]any{"ProjectionType": "INCLUDE", "NonKeyAttributes": []any{"v"}}},
		},
		"LocalSecondaryIndexes": []any{
			map[string]any{"IndexName": "LSI1", "KeySchema": []any{key("PK", "HASH"), key("LSK", "RANGE")}, "Projection": all},
		}})
	create(map[string]any{"TableName": "eq-b", "BillingMode": "PAY_PER_REQUEST",
		"AttributeDefinitions": []any{def("PK", "S"), def("GPK", "S"), def("GSK", "N")},
		"KeySchema":            []any{key("PK", "HASH")},
		"GlobalSecondaryIndexes": []any{
			map[string]any{"IndexName": "G", "KeySchema": []any{key("GPK", "HASH"), key("GSK", "RANGE")}, "Projection": all},
		}})
}

func s(v string) map[string]any { return map[string]any{"S": v} }
func n(v int) map[string]any    { return map[string]any{"N": strconv.Itoa(v)} }

func pick[T any](rng *rand.Rand, xs ...T) T { return xs[rng.IntN(len(xs))] }

// key draws a key of table a or b from a small space, so that writes meet existing items.
func key(rng *rand.Rand, table string) map[string]any {
	if table == "eq-b" {
		return map[string]any{"PK": s("b" + strconv.Itoa(rng.IntN(30)))}
	}
	return map[string]any{"PK": s("p" + strconv.Itoa(rng.IntN(5))), "SK": s(strconv.Itoa(rng.IntN(12)))}
}

// item draws an item under a key: index keys present or not, a number, now and then a
// nested value.
func item(rng *rand.Rand, table string, k map[string]any) map[string]any {
	it := map[string]any{"v": n(rng.IntN(100))}
	for a, v := range k {
		it[a] = v
	}
	if table == "eq-b" {
		if rng.IntN(4) > 0 {
			it["GPK"] = s(pick(rng, "x", "y"))
			it["GSK"] = n(rng.IntN(50) - 10)
		}
		return it
	}
	if rng.IntN(4) > 0 {
		it["GSI1PK"] = s(pick(rng, "g1", "g2", "g3"))
		it["GSI1SK"] = s(fmt.Sprintf("%02d", rng.IntN(40)))
	}
	if rng.IntN(3) == 0 {
		it["GSI2PK"] = s(pick(rng, "h1", "h2"))
	}
	if rng.IntN(2) == 0 {
		it["LSK"] = n(rng.IntN(20))
	}
	if rng.IntN(5) == 0 {
		it["doc"] = map[string]any{"M": map[string]any{"list": map[string]any{"L": []any{n(1), s("two"), map[string]any{"NULL": true}}},
			"flag": map[string]any{"BOOL": rng.IntN(2) == 0}, "bin": map[string]any{"B": "AAEC"}, "empty": s("")}}
	}
	if rng.IntN(5) == 0 {
		it["sets"] = map[string]any{"M": map[string]any{"ss": map[string]any{"SS": []any{"a", "b"}}, "ns": map[string]any{"NS": []any{"1", "2.5"}},
			"bs": map[string]any{"BS": []any{"AAE=", "AgM="}}}}
		it["bin"] = map[string]any{"B": "3q2+7w=="}
		it["tags"] = map[string]any{"SS": []any{"x", "y"}}
	}
	return it
}

// update draws an update expression: one that moves the item to another index
// partition, drops an index key, or adds to its number; sometimes on a condition.
func update(rng *rand.Rand, table string) map[string]any {
	k := key(rng, table)
	u := map[string]any{"TableName": table, "Key": k}
	switch rng.IntN(3) {
	case 0:
		if table == "eq-b" {
			u["UpdateExpression"] = "SET GPK = :g, GSK = :n"
			u["ExpressionAttributeValues"] = map[string]any{":g": s(pick(rng, "x", "y", "z")), ":n": n(rng.IntN(50))}
		} else {
			u["UpdateExpression"] = "SET GSI1PK = :g, GSI1SK = :k"
			u["ExpressionAttributeValues"] = map[string]any{":g": s(pick(rng, "g1", "g2", "g3")), ":k": s(fmt.Sprintf("%02d", rng.IntN(40)))}
		}
	case 1:
		u["UpdateExpression"] = pick(rng, "REMOVE GSI1SK", "REMOVE GSI2PK", "REMOVE GSK", "REMOVE LSK")
		if table == "eq-b" {
			u["UpdateExpression"] = "REMOVE GSK"
		}
	default:
		u["UpdateExpression"] = "ADD v :one"
		u["ExpressionAttributeValues"] = map[string]any{":one": n(1)}
	}
	if rng.IntN(3) == 0 {
		u["ConditionExpression"] = "attribute_exists(PK)"
	}
	return u
}

func (w *answers) write(rng *rand.Rand) {
	table := pick(rng, "eq-a", "eq-a", "eq-b")
	switch rng.IntN(6) {
	case 0, 1:
		k := key(rng, table)
		put := map[string]any{"TableName": table, "Item": item(rng, table, k)}
		if rng.IntN(4) == 0 {
			put["ConditionExpression"] = "attribute_not_exists(PK)"
		}
		w.call("PutItem", put)
	case 2:
		w.call("UpdateItem", update(rng, table))
	case 3:
		del := map[string]any{"TableName": table, "Key": key(rng, table)}
		if rng.IntN(3) == 0 {
			del["ConditionExpression"] = "v > :n"
			del["ExpressionAttributeValues"] = map[string]any{":n": n(50)}
		}
		w.call("DeleteItem", del)
	case 4:
		seen := map[string]bool{}
		var reqs []any
		for range 6 {
			k := key(rng, table)
			id, _ := json.Marshal(k)
			if seen[string(id)] {
				continue
			}
			seen[string(id)] = true
			if rng.IntN(3) == 0 {
				reqs = append(reqs, map[string]any{"DeleteRequest": map[string]any{"Key": k}})
			} else {
				reqs = append(reqs, map[string]any{"PutRequest": map[string]any{"Item": item(rng, table, k)}})
			}
		}
		w.call("BatchWriteItem", map[string]any{"RequestItems": map[string]any{table: reqs}})
	default:
		w.call("TransactWriteItems", map[string]any{"TransactItems": transaction(rng)})
	}
}

// transaction draws two to five operations on both tables; some fail a condition (the
// transaction is cancelled and rolled back), some name one item twice (refused).
func transaction(rng *rand.Rand) []any {
	var ops []any
	for range 2 + rng.IntN(4) {
		table := pick(rng, "eq-a", "eq-b")
		switch rng.IntN(5) {
		case 0, 1:
			put := map[string]any{"TableName": table, "Item": item(rng, table, key(rng, table))}
			if rng.IntN(3) == 0 {
				put["ConditionExpression"] = "attribute_not_exists(PK)"
			}
			ops = append(ops, map[string]any{"Put": put})
		case 2:
			ops = append(ops, map[string]any{"Update": update(rng, table)})
		case 3:
			ops = append(ops, map[string]any{"Delete": map[string]any{"TableName": table, "Key": key(rng, table)}})
		default:
			ops = append(ops, map[string]any{"ConditionCheck": map[string]any{"TableName": table, "Key": key(rng, table),
				"ConditionExpression": pick(rng, "attribute_exists(PK)", "attribute_not_exists(PK)")}})
		}
	}
	return ops
}

func (w *answers) read(rng *rand.Rand) {
	forward := rng.IntN(3) > 0
	q := map[string]any{"ScanIndexForward": forward}
	if rng.IntN(2) == 0 {
		q["Limit"] = 1 + rng.IntN(4)
	}
	switch rng.IntN(7) {
	case 0:
		q["TableName"] = "eq-a"
		q["KeyConditionExpression"] = "PK = :p"
		q["ExpressionAttributeValues"] = map[string]any{":p": s("p" + strconv.Itoa(rng.IntN(6)))}
		switch rng.IntN(4) {
		case 1:
			q["KeyConditionExpression"] = "PK = :p AND begins_with(SK, :b)"
			q["ExpressionAttributeValues"].(map[string]any)[":b"] = s("1")
		case 2:
			q["KeyConditionExpression"] = "PK = :p AND SK BETWEEN :lo AND :hi"
			q["ExpressionAttributeValues"].(map[string]any)[":lo"] = s("2")
			q["ExpressionAttributeValues"].(map[string]any)[":hi"] = s("7")
		case 3:
			q["FilterExpression"] = "v > :min"
			q["ExpressionAttributeValues"].(map[string]any)[":min"] = n(40)
		}
		if rng.IntN(4) == 0 {
			q["ProjectionExpression"] = "SK, v"
		}
		if rng.IntN(6) == 0 {
			q["Select"] = "COUNT"
		}
	case 1, 2:
		q["TableName"] = "eq-a"
		q["IndexName"] = "GSI1"
		q["KeyConditionExpression"] = "GSI1PK = :g"
		q["ExpressionAttributeValues"] = map[string]any{":g": s(pick(rng, "g1", "g2", "g3", "g4"))}
		if rng.IntN(3) == 0 {
			q["KeyConditionExpression"] = "GSI1PK = :g AND GSI1SK > :k"
			q["ExpressionAttributeValues"].(map[string]any)[":k"] = s(fmt.Sprintf("%02d", rng.IntN(40)))
		}
	case 3:
		q["TableName"] = "eq-a"
		q["IndexName"] = "GSI2"
		q["KeyConditionExpression"] = "GSI2PK = :h"
		q["ExpressionAttributeValues"] = map[string]any{":h": s(pick(rng, "h1", "h2"))}
	case 4:
		q["TableName"] = "eq-a"
		q["IndexName"] = "LSI1"
		q["KeyConditionExpression"] = "PK = :p AND LSK >= :l"
		q["ExpressionAttributeValues"] = map[string]any{":p": s("p" + strconv.Itoa(rng.IntN(5))), ":l": n(rng.IntN(10))}
	case 5:
		q["TableName"] = "eq-b"
		q["IndexName"] = "G"
		q["KeyConditionExpression"] = "GPK = :g"
		q["ExpressionAttributeValues"] = map[string]any{":g": s(pick(rng, "x", "y", "z"))}
	default:
		table := pick(rng, "eq-a", "eq-b")
		w.call("GetItem", map[string]any{"TableName": table, "Key": key(rng, table)})
		return
	}
	w.pages("Query", q)
}

// pages sends a Query or Scan and then every page after it, through LastEvaluatedKey.
func (w *answers) pages(op string, req map[string]any) {
	w.t.Helper()
	for page := 0; page < 100; page++ {
		status, raw := w.call(op, req)
		if status != http.StatusOK {
			return
		}
		var out struct {
			LastEvaluatedKey map[string]any
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			w.t.Fatal(err)
		}
		if out.LastEvaluatedKey == nil {
			return
		}
		req["ExclusiveStartKey"] = out.LastEvaluatedKey
	}
	w.t.Fatalf("step %d: %s %v did not end after 100 pages", w.step, op, req)
}
