package provision

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/subsight/subsight/infra/devstack/emulator"
	"github.com/subsight/subsight/infra/devstack/samtemplate"
)

var awsCfg aws.Config

func TestMain(m *testing.M) {
	srv, err := emulator.Start(context.Background(), emulator.Options{})
	if errors.Is(err, emulator.ErrNotFound) {
		fmt.Println(emulator.SkipNotInstalled)
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%v\nrun `make test` (it installs moto into .venv) or set MOTO_SERVER\n", err)
		os.Exit(1)
	}
	awsCfg, err = srv.AWSConfig(context.Background())
	if err != nil {
		srv.Stop()
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	srv.Stop()
	os.Exit(code)
}

func TestProvision(t *testing.T) {
	tests := []struct {
		name, path, prefix string
	}{
		{"fixture", "../samtemplate/testdata/template.yaml", "fix"},
		{"project template", "../../../template.yaml", "proj"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tpl, err := samtemplate.ParseFile(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			res, err := Provision(ctx, tpl, awsCfg, Options{Prefix: tc.prefix})
			if err != nil {
				t.Fatal(err)
			}
			checkTables(t, tpl, res)
			checkQueues(t, tpl, res)
			for id, name := range res.Buckets {
				if name != PhysicalName(tc.prefix, id) {
					t.Errorf("bucket %s name %s", id, name)
				}
				if _, err := emulator.S3(awsCfg).HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(name)}); err != nil {
					t.Errorf("bucket %s: %v", name, err)
				}
			}
			// Idempotent: a second run against the same emulator succeeds and
			// returns the same names.
			again, err := Provision(ctx, tpl, awsCfg, Options{Prefix: tc.prefix})
			if err != nil {
				t.Fatalf("second run: %v", err)
			}
			if !reflect.DeepEqual(again, res) {
				t.Errorf("second run differs:\n%+v\n%+v", again, res)
			}
		})
	}
}

func checkTables(t *testing.T, tpl *samtemplate.Template, res *Resources) {
	t.Helper()
	db := emulator.Clients(awsCfg).DynamoDB
	for id, tb := range tpl.Tables {
		out, err := db.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(res.Tables[id])})
		if err != nil {
			t.Fatal(err)
		}
		d := out.Table
		if d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode != "PAY_PER_REQUEST" {
			t.Errorf("billing = %+v", d.BillingModeSummary)
		}
		var attrs []samtemplate.AttributeDefinition
		for _, a := range d.AttributeDefinitions {
			attrs = append(attrs, samtemplate.AttributeDefinition{AttributeName: *a.AttributeName, AttributeType: string(a.AttributeType)})
		}
		want := append([]samtemplate.AttributeDefinition(nil), tb.AttributeDefinitions...)
		sortAttrs(attrs)
		sortAttrs(want)
		if !reflect.DeepEqual(attrs, want) {
			t.Errorf("attributes = %v, want %v", attrs, want)
		}
		if got := keyElems(d.KeySchema); !reflect.DeepEqual(got, tb.KeySchema) {
			t.Errorf("key schema = %v", got)
		}
		var gsis []samtemplate.GlobalIndex
		for _, g := range d.GlobalSecondaryIndexes {
			gsis = append(gsis, samtemplate.GlobalIndex{IndexName: *g.IndexName, KeySchema: keyElems(g.KeySchema),
				ProjectionType: string(g.Projection.ProjectionType), NonKeyAttributes: g.Projection.NonKeyAttributes})
		}
		sort.Slice(gsis, func(i, j int) bool { return gsis[i].IndexName < gsis[j].IndexName })
		if !reflect.DeepEqual(gsis, tb.GlobalIndexes) {
			t.Errorf("GSIs =\n%+v\nwant\n%+v", gsis, tb.GlobalIndexes)
		}
		if tb.TTLAttribute != "" {
			ttl, err := db.DescribeTimeToLive(context.Background(), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(res.Tables[id])})
			if err != nil || aws.ToString(ttl.TimeToLiveDescription.AttributeName) != tb.TTLAttribute {
				t.Errorf("TTL = %+v, %v", ttl, err)
			}
		}
	}
}

func sortAttrs(a []samtemplate.AttributeDefinition) {
	sort.Slice(a, func(i, j int) bool { return a[i].AttributeName < a[j].AttributeName })
}

func keyElems(ks []ddbKey) []samtemplate.KeyElement {
	out := make([]samtemplate.KeyElement, len(ks))
	for i, k := range ks {
		out[i] = samtemplate.KeyElement{AttributeName: *k.AttributeName, KeyType: string(k.KeyType)}
	}
	return out
}

func checkQueues(t *testing.T, tpl *samtemplate.Template, res *Resources) {
	t.Helper()
	c := emulator.Clients(awsCfg).SQS
	for id, q := range tpl.Queues {
		pq := res.Queues[id]
		out, err := c.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(pq.URL),
			AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll}})
		if err != nil {
			t.Fatal(err)
		}
		a := out.Attributes
		name := PhysicalName(res.Prefix, id)
		if q.FifoQueue {
			name += ".fifo"
		}
		if pq.ARN != a["QueueArn"] || pq.Name != name {
			t.Errorf("%s: %+v vs %v", id, pq, a["QueueArn"])
		}
		want := QueueAttributes(q, "")
		for k, v := range want {
			if k == "RedrivePolicy" {
				continue
			}
			if a[k] != v {
				t.Errorf("%s: %s = %q, want %q", id, k, a[k], v)
			}
		}
		if q.Redrive == nil {
			if a["RedrivePolicy"] != "" {
				t.Errorf("%s: unexpected redrive %s", id, a["RedrivePolicy"])
			}
			continue
		}
		var rp struct {
			DeadLetterTargetArn string `json:"deadLetterTargetArn"`
			MaxReceiveCount     any    `json:"maxReceiveCount"`
		}
		if err := json.Unmarshal([]byte(a["RedrivePolicy"]), &rp); err != nil {
			t.Fatalf("%s: redrive %q: %v", id, a["RedrivePolicy"], err)
		}
		if rp.DeadLetterTargetArn != res.Queues[q.Redrive.DeadLetterQueue].ARN || fmt.Sprint(rp.MaxReceiveCount) != fmt.Sprint(q.Redrive.MaxReceiveCount) {
			t.Errorf("%s: redrive = %+v", id, rp)
		}
	}
}

func TestResolver(t *testing.T) {
	tpl, err := samtemplate.ParseFile("../../../template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res := &Resources{Prefix: "p", Region: "us-east-1",
		Tables:  map[string]string{"Table": "p-table"},
		Buckets: map[string]string{"ImportBucket": "p-importbucket"},
		Queues: map[string]Queue{
			"ImportQueue": {URL: "http://x/import"}, "JobsQueue": {URL: "http://x/jobs"},
			"RecomputeQueue": {URL: "http://x/recompute"}, "SeriesFoldQueue": {URL: "http://x/fold"},
			"ImportFeedQueue":       {URL: "http://x/feed"},
			"ImportDeadLetterQueue": {}, "JobsDeadLetterQueue": {}, "RecomputeDeadLetterQueue": {}, "SeriesFoldDeadLetterQueue": {},
			"ImportFeedDeadLetterQueue": {},
			"StripeEventQueue":          {URL: "http://x/stripe"}, "StripeEventDeadLetterQueue": {},
			"StripeBackfillQueue": {URL: "http://x/backfill"}, "StripeBackfillDeadLetterQueue": {},
		}}
	env, err := tpl.FunctionEnv("PingFunction", res.Resolver(tpl, "s3cr3t-s3cr3t-s3cr3t"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"TABLE_NAME": "p-table", "IMPORT_BUCKET": "p-importbucket", "IMPORT_QUEUE_URL": "http://x/import",
		"JOBS_QUEUE_URL": "http://x/jobs", "RECOMPUTE_QUEUE_URL": "http://x/recompute", "SERIES_FOLD_QUEUE_URL": "http://x/fold",
		"IMPORT_FEED_QUEUE_URL": "http://x/feed", "STRIPE_EVENT_QUEUE_URL": "http://x/stripe",
		"STRIPE_BACKFILL_QUEUE_URL": "http://x/backfill", "IMPORT_LANE_WINDOW": "2000", "CURSOR_SECRET": "s3cr3t-s3cr3t-s3cr3t"}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
	if env["APP_URL"] == "" {
		t.Error("APP_URL not resolved from the parameter default")
	}
}

type ddbKey = ddbtypes.KeySchemaElement
