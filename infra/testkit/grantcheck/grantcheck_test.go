package grantcheck

import (
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/subsight/subsight/infra/devstack/samtemplate"
	"github.com/subsight/subsight/shared/routes"
)

var testNames = Names{
	Tables:  map[string]string{"t-1-table": "Table"},
	Buckets: map[string]string{"t-1-importbucket": "ImportBucket"},
	Queues:  map[string]string{"t-1-jobsqueue.fifo": "JobsQueue"},
	Keys:    map[string]string{"0b6f2a4e-key": "SecretsKey"},
}

func TestParse(t *testing.T) {
	const queue = "http://127.0.0.1:5000/123456789012/t-1-jobsqueue.fifo"
	for _, tc := range []struct {
		name, method, path, target, body string
		header                           map[string]string
		want                             []Call
	}{
		{name: "get item", method: "POST", target: "DynamoDB_20120810.GetItem", body: `{"TableName":"t-1-table","Key":{}}`,
			want: []Call{{"dynamodb:GetItem", "Table"}}},
		{name: "query of an index", method: "POST", target: "DynamoDB_20120810.Query", body: `{"TableName":"t-1-table","IndexName":"GSI1"}`,
			want: []Call{{"dynamodb:Query", "Table/index/GSI1"}}},
		{name: "another table", method: "POST", target: "DynamoDB_20120810.Scan", body: `{"TableName":"other"}`,
			want: []Call{{"dynamodb:Scan", "?other"}}},
		{name: "batch write", method: "POST", target: "DynamoDB_20120810.BatchWriteItem", body: `{"RequestItems":{"t-1-table":[]}}`,
			want: []Call{{"dynamodb:BatchWriteItem", "Table"}}},
		{name: "transaction: each element's action", method: "POST", target: "DynamoDB_20120810.TransactWriteItems",
			body: `{"TransactItems":[{"Put":{"TableName":"t-1-table"}},{"ConditionCheck":{"TableName":"t-1-table"}},{"Update":{"TableName":"t-1-table"}},{"Delete":{"TableName":"t-1-table"}}]}`,
			want: []Call{{"dynamodb:PutItem", "Table"}, {"dynamodb:ConditionCheckItem", "Table"}, {"dynamodb:UpdateItem", "Table"}, {"dynamodb:DeleteItem", "Table"}}},
		{name: "transactional read", method: "POST", target: "DynamoDB_20120810.TransactGetItems", body: `{"TransactItems":[{"Get":{"TableName":"t-1-table"}}]}`,
			want: []Call{{"dynamodb:GetItem", "Table"}}},
		{name: "send batch is SendMessage", method: "POST", target: "AmazonSQS.SendMessageBatch", body: `{"QueueUrl":"` + queue + `"}`,
			want: []Call{{"sqs:SendMessage", "JobsQueue"}}},
		{name: "visibility batch", method: "POST", target: "AmazonSQS.ChangeMessageVisibilityBatch", body: `{"QueueUrl":"` + queue + `"}`,
			want: []Call{{"sqs:ChangeMessageVisibility", "JobsQueue"}}},
		{name: "encrypt under a key", method: "POST", target: "TrentService.Encrypt", body: `{"KeyId":"0b6f2a4e-key","Plaintext":"eA=="}`,
			want: []Call{{"kms:Encrypt", "SecretsKey"}}},
		{name: "decrypt pinned to another key", method: "POST", target: "TrentService.Decrypt", body: `{"KeyId":"other"}`,
			want: []Call{{"kms:Decrypt", "?other"}}},
		{name: "object read", method: "GET", path: "/t-1-importbucket/imports/acc_1/ds/imp/part.json",
			want: []Call{{"s3:GetObject", "ImportBucket/imports/acc_1/ds/imp/part.json"}}},
		{name: "head is GetObject", method: "HEAD", path: "/t-1-importbucket/exports/acc_1/x.csv",
			want: []Call{{"s3:GetObject", "ImportBucket/exports/acc_1/x.csv"}}},
		{name: "object write", method: "PUT", path: "/t-1-importbucket/exports/acc_1/x.csv",
			want: []Call{{"s3:PutObject", "ImportBucket/exports/acc_1/x.csv"}}},
		{name: "copy reads its source", method: "PUT", path: "/t-1-importbucket/b", header: map[string]string{"X-Amz-Copy-Source": "/t-1-importbucket/a"},
			want: []Call{{"s3:PutObject", "ImportBucket/b"}, {"s3:GetObject", "ImportBucket/a"}}},
		{name: "listing", method: "GET", path: "/t-1-importbucket?list-type=2&prefix=imports%2F",
			want: []Call{{"s3:ListBucket", "ImportBucket"}}},
		{name: "multi-object delete", method: "POST", path: "/t-1-importbucket?delete", body: `<Delete><Object><Key>imports/a</Key></Object><Object><Key>imports/b</Key></Object></Delete>`,
			want: []Call{{"s3:DeleteObject", "ImportBucket/imports/a"}, {"s3:DeleteObject", "ImportBucket/imports/b"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.path
			if p == "" {
				p = "/"
			}
			r := httptest.NewRequest(tc.method, p, strings.NewReader(tc.body))
			if tc.target != "" {
				r.Header.Set("X-Amz-Target", tc.target)
			}
			for k, v := range tc.header {
				r.Header.Set(k, v)
			}
			got, err := Parse(r, []byte(tc.body), testNames)
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("Parse = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestParseRefusesWhatItCannotRead(t *testing.T) {
	for _, tc := range []struct{ name, method, path, target, body string }{
		{"another service", "POST", "/", "Kinesis_20131202.PutRecord", `{}`},
		{"dynamodb without a table", "POST", "/", "DynamoDB_20120810.GetItem", `{}`},
		{"sqs without a queue", "POST", "/", "AmazonSQS.SendMessage", `{}`},
		{"kms without a key", "POST", "/", "TrentService.Decrypt", `{"CiphertextBlob":"eA=="}`},
		{"s3 without a bucket", "GET", "/", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
			if tc.target != "" {
				r.Header.Set("X-Amz-Target", tc.target)
			}
			if got, err := Parse(r, []byte(tc.body), testNames); err == nil {
				t.Errorf("Parse = %v, want an error", got)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		want       bool
	}{
		{"Table", "Table", true},
		{"Table", "Table/index/GSI1", false},
		{"Table/index/*", "Table/index/GSI1", true},
		{"ImportBucket/*", "ImportBucket/exports/acc_1/x.csv", true},
		{"ImportBucket/imports/*", "ImportBucket/exports/acc_1/x.csv", false},
		{"ImportBucket/*", "ImportBucket", false},
		{"sqs:SendMessage*", "sqs:SendMessage", true},
		{"dynamodb:GetItem", "dynamodb:BatchGetItem", false},
	} {
		if got := Match(tc.pattern, tc.s); got != tc.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tc.pattern, tc.s, got, tc.want)
		}
	}
}

// tpl is a template with the table, two indexes, a queue and the bucket.
var tpl = &samtemplate.Template{
	Tables: map[string]*samtemplate.Table{"Table": {LogicalID: "Table",
		GlobalIndexes: []samtemplate.GlobalIndex{{IndexName: "GSI1"}, {IndexName: "GSI2"}}}},
	Queues:  map[string]*samtemplate.Queue{"JobsQueue": {}},
	Buckets: map[string]*samtemplate.Bucket{"ImportBucket": {}},
}

func fn(name string, grants ...routes.Grant) routes.Function {
	return routes.Function{Name: name, Access: grants}
}

func grant(name string, actions, resources []string) routes.Grant {
	return routes.Grant{Name: name, Actions: actions, Resources: resources}
}

// TestCheck: the check fails on a call its role does not grant and on a grant that no
// function of its role called, and passes when they agree or a Reason keeps the grant.
func TestCheck(t *testing.T) {
	reader := grant("Read", []string{"dynamodb:GetItem", "dynamodb:Query"}, []string{"Table"})
	imports := grant("ImportsGet", []string{"s3:GetObject"}, []string{"ImportBucket/imports/*"})
	gsi1 := grant("Gsi1", []string{"dynamodb:Query"}, []string{"Table/index/GSI1"})
	withReason := func(g routes.Grant) routes.Grant { g.Reason = "a path the suite does not reach"; return g }
	// A and B share a role, whose grants their calls prove together.
	calls := map[string][]Call{
		"AFunction": {{"dynamodb:GetItem", "Table"}},
		"BFunction": {{"dynamodb:Query", "Table"}, {"s3:GetObject", "ImportBucket/imports/acc_1/part.json"}},
		"CFunction": {{"dynamodb:Query", "Table/index/GSI1"}},
	}
	for _, tc := range []struct {
		name       string
		ab         []routes.Grant
		c          []routes.Grant
		incomplete bool
		want       []string // substrings of the problems, in order
	}{
		{name: "grants as called", ab: []routes.Grant{reader, imports}, c: []routes.Grant{gsi1}},
		{name: "a needed grant removed", ab: []routes.Grant{reader}, c: []routes.Grant{gsi1},
			want: []string{"BFunction calls s3:GetObject on ImportBucket/imports/acc_1/part.json, which its role ReadRole does not grant"}},
		{name: "a needed grant removed, some cases not run", ab: []routes.Grant{reader}, c: []routes.Grant{gsi1, imports}, incomplete: true,
			want: []string{"BFunction calls s3:GetObject on ImportBucket/imports/acc_1/part.json, which its role ReadRole does not grant"}},
		{name: "an unused action added", ab: []routes.Grant{reader, imports},
			c:    []routes.Grant{grant("Gsi1", []string{"dynamodb:Query", "dynamodb:Scan"}, []string{"Table/index/GSI1"})},
			want: []string{"Gsi1Role grants dynamodb:Scan on Table/index/GSI1, which none of C called"}},
		{name: "an unused resource added", ab: []routes.Grant{reader, imports},
			c:    []routes.Grant{grant("Gsi1", []string{"dynamodb:Query"}, []string{"Table/index/GSI1", "Table"})},
			want: []string{"Gsi1Role grants dynamodb:Query on Table, which none of C called"}},
		{name: "every index where one is queried", ab: []routes.Grant{reader, imports},
			c:    []routes.Grant{grant("Gsi", []string{"dynamodb:Query"}, []string{"Table/index/*"})},
			want: []string{"GsiRole grants dynamodb:Query on Table/index/GSI2, which none of C called"}},
		{name: "the whole bucket where one prefix is read", ab: []routes.Grant{reader, grant("BucketGet", []string{"s3:GetObject"}, []string{"ImportBucket/*"})},
			c:    []routes.Grant{gsi1},
			want: []string{"BucketGetReadRole grants s3:GetObject on ImportBucket/exports/, which none of A, B called"}},
		{name: "a reason keeps an unused grant", ab: []routes.Grant{reader, imports},
			c: []routes.Grant{gsi1, withReason(grant("Scan", []string{"dynamodb:Scan"}, []string{"Table"}))}},
		{name: "a reason on a grant the calls prove", ab: []routes.Grant{withReason(reader), imports}, c: []routes.Grant{gsi1},
			want: []string{"ImportsGetReadRole: the grant Read has a Reason, but the calls of A, B use all of it"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fns := []routes.Function{fn("A", tc.ab...), fn("B", tc.ab...), fn("C", tc.c...)}
			// Another function names the exports/ prefix of the bucket.
			exports := fn("Writer", grant("ExportsPut", []string{"s3:PutObject"}, []string{"ImportBucket/exports/*"}))
			got := Check(fns, calls, UniverseOf(tpl, append(slices.Clone(fns), exports), calls), !tc.incomplete)
			if len(got) != len(tc.want) {
				t.Fatalf("problems:\n%s\nwant %d", strings.Join(got, "\n"), len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d: %s\nwant it to contain %q", i, got[i], w)
				}
			}
		})
	}
}
