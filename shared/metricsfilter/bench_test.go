package metricsfilter_test

import (
	"context"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/infra/testkit/ddbmeter"
	"github.com/subsight/subsight/infra/testkit/synthetic"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/metricsfilter"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/parallel"
	"github.com/subsight/subsight/shared/store/dynamo"
)

// BenchmarkFilteredCustomers measures a filter that selects customers by attribute
// (docs/benchmarks.md, "Filtered metrics"): an account of FILTER_BENCH_CUSTOMERS
// customers (default 2,000) with two years of synthetic history each (the Metrics API
// benchmark's customers), every other one tagged "vip", then
// /v1/metrics/all's aggregate for tags~ANY~'vip' over 2023–2024 by day. It reports,
// per 1,000 customers of the account and per 1,000 matching customers, the DynamoDB
// requests and read units of the listing and of the series records (units from the
// full items' sizes by DynamoDB's rules: the records are read with a projection, which
// DynamoDB still charges in full), and the Go process's CPU time (user + system) of
// the whole call and of the listing alone: decoding, matching, summing and the SDK's
// own work, which the emulator's latency does not distort.
func BenchmarkFilteredCustomers(b *testing.B) {
	n := 2000
	if raw := os.Getenv("FILTER_BENCH_CUSTOMERS"); raw != "" {
		var err error
		if n, err = strconv.Atoi(raw); err != nil || n < 2 {
			b.Fatalf("FILTER_BENCH_CUSTOMERS=%q: want a number of customers", raw)
		}
	}
	env := testenv.New(b)
	ctx := context.Background()
	acc := env.NewAccount(b, "Filter bench")
	dsUUID, plans, err := synthetic.Source(ctx, env.Deps.Store, acc.ID)
	if err != nil {
		b.Fatal(err)
	}
	seed := make([]accountseries.SeedCustomer, n)
	matching := make([]string, 0, n/2)
	errs := make([]error, n)
	parallel.For(n, 8, func(i int) {
		res, attrs := synthetic.Customer(i, plans)
		c := model.Customer{AccountID: acc.ID, ID: int64(i + 1), UUID: attrs.UUID, DataSourceUUID: dsUUID,
			DataSourceUUIDs: []string{dsUUID}, ExternalID: attrs.ExternalID, ExternalIDs: []string{attrs.ExternalID},
			Name: attrs.Name, Country: attrs.Country, Status: model.StatusActive, Tags: []string{},
			MRR: res.MRR, ARR: 12 * res.MRR, BillingSystemType: model.BillingSystemCustom, Currency: "USD",
			BillingCurrencies: []string{"USD"}, CreatedAt: time.Now(), UpdatedAt: time.Now()}
		if i%2 == 0 {
			c.Tags = []string{"vip"}
		}
		errs[i] = env.Deps.Store.CreateCustomer(ctx, c)
		seed[i] = accountseries.SeedCustomer{Result: res, Attrs: attrs}
	})
	for i, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
		if i%2 == 0 {
			matching = append(matching, seed[i].Attrs.UUID)
		}
	}
	series := accountseries.New(env.Deps.Store.Series())
	if err := series.Seed(ctx, acc.ID, seed); err != nil {
		b.Fatal(err)
	}
	cfg := env.AWS.Copy()
	var reads ddbmeter.ReadRecorder
	reads.Attach(&cfg)
	db := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.DisableValidateResponseChecksum = true })
	st := dynamo.New(db, env.TableName, env.Deps.Now)
	r := metricsfilter.New(st, accountseries.New(st.Series()))
	from, to := time.Date(2022, 12, 31, 0, 0, 0, 0, time.UTC), time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC)
	req := metricsfilter.Request{Filters: "tags~ANY~'vip'"}
	var cpu time.Duration
	var one ddbmeter.Reads
	for i := 0; b.Loop(); i++ {
		reads.Reset()
		before := cpuTime(b)
		if _, err := r.Aggregate(ctx, acc, req, from, to); err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime(b) - before
		if i == 0 {
			one = reads.Reads()
		}
	}
	// The listing alone, for its share of the requests, units and CPU.
	reads.Reset()
	before := cpuTime(b)
	if err := st.EachCustomer(ctx, acc.ID, func(model.Customer) error { return nil }); err != nil {
		b.Fatal(err)
	}
	listingCPU := float64((cpuTime(b) - before).Microseconds()) / 1000
	listing := reads.Reads()
	listing.Units = fullListingUnits(b, env, acc.ID)
	recordUnits := fullRecordUnits(b, env, acc.ID, matching)
	perScanned, perMatch := 1000/float64(n), 1000/float64(len(matching))
	cpuMS := float64(cpu.Microseconds()) / 1000 / float64(b.N)
	b.ReportMetric(listingCPU*perScanned, "listing-cpu-ms/1000-customers")
	b.ReportMetric((cpuMS-listingCPU)*perMatch, "records-cpu-ms/1000-matching")
	b.ReportMetric(recordUnits*perMatch, "record-RCU/1000-matching")
	b.ReportMetric(listing.Units*perScanned, "listing-RCU/1000-customers")
	b.ReportMetric(float64(one.Requests), "ddb-requests")
	b.Logf("%d customers, %d matching: %d requests (listing %d), %d items; listing %.1f RCU, records %.1f RCU "+
		"(whole items), %.0f ms CPU per request (listing %.0f)", n, len(matching), one.Requests, listing.Requests,
		one.Items, listing.Units, recordUnits, cpuMS, listingCPU)
}

// fullListingUnits is what DynamoDB charges for the listing's eventually consistent
// Queries: half a unit per started 4 KB of the whole items of each page (the projection
// the store asks for saves transfer, not units).
func fullListingUnits(b *testing.B, env *testenv.Env, accountID string) float64 {
	ctx := context.Background()
	var units float64
	for _, pk := range keys.CustomerListShards(accountID) {
		in := &dynamodb.QueryInput{TableName: aws.String(env.TableName), IndexName: aws.String(keys.GSI1),
			KeyConditionExpression:    aws.String(keys.GSI1PK + " = :pk"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}}}
		p := dynamodb.NewQueryPaginator(env.Deps.Clients.DynamoDB, in)
		for p.HasMorePages() {
			out, err := p.NextPage(ctx)
			if err != nil {
				b.Fatal(err)
			}
			u, _, _ := ddbmeter.ReadUnits(in, out)
			units += u
		}
	}
	return units
}

// fullRecordUnits is what DynamoDB charges for eventually consistent reads of the
// records: half a unit per started 4 KB of each whole item.
func fullRecordUnits(b *testing.B, env *testenv.Env, accountID string, uuids []string) float64 {
	ctx := context.Background()
	var units float64
	for start := 0; start < len(uuids); start += 100 {
		var ks []map[string]types.AttributeValue
		for _, u := range uuids[start:min(start+100, len(uuids))] {
			k := keys.SeriesApplied(accountID, u)
			ks = append(ks, map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: k.PK},
				"SK": &types.AttributeValueMemberS{Value: k.SK}})
		}
		in := &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			env.TableName: {Keys: ks, ConsistentRead: aws.Bool(false)}}}
		out, err := env.Deps.Clients.DynamoDB.BatchGetItem(ctx, in)
		if err != nil || len(out.UnprocessedKeys) > 0 {
			b.Fatalf("records: %v (unprocessed %d)", err, len(out.UnprocessedKeys))
		}
		u, _, _ := ddbmeter.ReadUnits(in, out)
		units += u
	}
	return units
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
