package imports_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// BenchmarkImportPipeline imports IMPORT_BENCH_CUSTOMERS customers (default 1000)
// with 12 monthly invoices each (a subscription line item and a payment on every
// invoice) through the intake and the import worker on moto, and the same run
// measures moto's raw BatchWriteItem throughput with items of the invoice items'
// size. It reports records/s, the ratio to raw items/s, and write units per record.
func BenchmarkImportPipeline(b *testing.B) {
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("IMPORT_BENCH_CUSTOMERS")); err == nil && v > 0 {
		n = v
	}
	for range b.N {
		b.StopTimer()
		f := setup(b)
		ctx := context.Background()
		raw := rawBatchWrite(b, f, n*12)
		body, _ := json.Marshal(payload("bench", n, 12, 1000))
		b.StartTimer()
		start := time.Now()
		if _, err := f.p.Accept(ctx, f.acc, f.ds, body); err != nil {
			b.Fatal(err)
		}
		intake := time.Since(start)
		applied := f.drain(b)
		elapsed := time.Since(start)
		b.StopTimer()
		records := float64(n * (1 + 12*3 + 1))
		b.ReportMetric(records/elapsed.Seconds(), "records/s")
		b.ReportMetric(raw, "raw_items/s")
		b.ReportMetric(records/elapsed.Seconds()/raw, "ratio")
		b.Logf("customers %d applied %d intake %v total %v", n, applied, intake, elapsed)
		wcu, minimum := writeUnits(b, f)
		b.ReportMetric(wcu/records, "WCU/record")
		b.ReportMetric(wcu/minimum, "WCU/minimum")
	}
}

// rawBatchWrite writes items of about an invoice item's size with BatchWriteItem on
// writeWorkers goroutines and returns items per second.
func rawBatchWrite(b *testing.B, f *fixture, items int) float64 {
	ctx := context.Background()
	pad := make([]byte, 500)
	for i := range pad {
		pad[i] = 'x'
	}
	const workers = 10
	start := time.Now()
	var wg sync.WaitGroup
	per := items / workers
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i += 25 {
				var reqs []types.WriteRequest
				for j := i; j < min(i+25, per); j++ {
					reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
						"PK": &types.AttributeValueMemberS{Value: fmt.Sprintf("raw#%d#%d", w, j)},
						"SK": &types.AttributeValueMemberS{Value: "RAW"},
						"d":  &types.AttributeValueMemberS{Value: string(pad)},
					}}})
				}
				if _, err := f.env.Deps.Clients.DynamoDB.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
					RequestItems: map[string][]types.WriteRequest{f.env.TableName: reqs}}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return float64(per*workers) / time.Since(start).Seconds()
}

// writeUnits estimates the write units of the import from the stored items' sizes
// (moto's ConsumedCapacity is a placeholder): 1 WCU per started KB per write, doubled
// for the items written in transactions (billing index, plan reference), plus one
// per GSI holding the item. minimum is what the records themselves need: one write
// per invoice item (records embedded) and per customer item, no index, no GSI.
func writeUnits(b *testing.B, f *fixture) (float64, float64) {
	var wcu, minimum float64
	p := dynamodb.NewScanPaginator(f.env.Deps.Clients.DynamoDB, &dynamodb.ScanInput{TableName: aws.String(f.env.TableName)})
	perType := map[string][2]float64{}
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		for _, it := range page.Items {
			etv, ok := it["et"].(*types.AttributeValueMemberS)
			if !ok {
				continue // the raw BatchWriteItem items
			}
			et := etv.Value
			units := float64((itemSize(it) + 1023) / 1024)
			w := units
			for _, g := range []string{"GSI1PK", "GSI2PK"} {
				if _, ok := it[g]; ok {
					w += units
				}
			}
			switch et {
			case "invoice", "customer":
				minimum += units
			case "json_import", "json_import_locator", "counter", "plan", "plan_external_id", "plan_locator", "data_source",
				"account", "member", "api_key", "":
				continue // per import, not per record
			}
			wcu += w
			c := perType[et]
			perType[et] = [2]float64{c[0] + 1, c[1] + float64(itemSize(it))}
		}
	}
	for et, c := range perType {
		b.Logf("%-24s %6.0f items, avg %5.0f bytes", et, c[0], c[1]/c[0])
	}
	customers := perType["customer"][0]
	wcu += customers // the plan's reference marker (one UpdateItem per customer and plan)
	return wcu, minimum
}

// itemSize is DynamoDB's item size: attribute names plus values (numbers ~ digits/2+1,
// 3 bytes per list/map plus 1 per element).
func itemSize(item map[string]types.AttributeValue) int {
	n := 0
	for k, v := range item {
		n += len(k) + valueSize(v)
	}
	return n
}

func valueSize(v types.AttributeValue) int {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return len(x.Value)
	case *types.AttributeValueMemberN:
		return (len(x.Value)+1)/2 + 1
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range x.Value {
			n += 1 + valueSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range x.Value {
			n += 1 + len(k) + valueSize(e)
		}
		return n
	}
	return 0
}
