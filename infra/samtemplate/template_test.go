package samtemplate

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

func fixture(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseFixture(t *testing.T) {
	tp, err := Parse(fixture(t))
	if err != nil {
		t.Fatal(err)
	}

	wantRoutes := []Route{
		{Method: "ANY", Path: "/admin/{proxy+}", Function: "AdminFunction"},
		{Method: "GET", Path: "/v1/ping", Function: "PingFunction", Authorizer: "AuthorizerFunction"},
		{Method: "DELETE", Path: "/v1/things/{uuid}", Function: "GetThingFunction", Authorizer: "AuthorizerFunction"},
		{Method: "GET", Path: "/v1/things/{uuid}", Function: "GetThingFunction", Authorizer: "AuthorizerFunction"},
	}
	if got := tp.Routes(); !reflect.DeepEqual(got, wantRoutes) {
		t.Errorf("Routes() =\n%+v\nwant\n%+v", got, wantRoutes)
	}
	if got := tp.AuthorizerFunction(); got != "AuthorizerFunction" {
		t.Errorf("AuthorizerFunction() = %q", got)
	}
	wantAuth := Authorizer{Name: "KeyAuth", Function: "AuthorizerFunction", PayloadFormatVersion: "2.0",
		EnableSimpleResponses: true, IdentityHeaders: []string{"Authorization"}, ReauthorizeEvery: 60}
	if got := tp.HttpApis["HttpApi"].Authorizers["KeyAuth"]; !reflect.DeepEqual(got, wantAuth) {
		t.Errorf("authorizer = %+v", got)
	}

	wantMappings := []SQSMapping{
		{Queue: "ImportQueue", Function: "ImportWorkerFunction", BatchSize: 5, ReportBatchItemFailures: true, Enabled: true, MaximumConcurrency: 2},
		{Queue: "JobsQueue", Function: "JobsWorkerFunction", BatchSize: 10, Enabled: true},
	}
	wantSchedules := []ScheduleMapping{
		{Function: "AdminFunction", ScheduleEvent: ScheduleEvent{Name: "Nightly", Expression: "rate(1 day)", Every: 24 * time.Hour, Enabled: true}},
		{Function: "SweeperFunction", ScheduleEvent: ScheduleEvent{Name: "Every5", Expression: "rate(5 minutes)", Every: 5 * time.Minute, Enabled: true}},
		{Function: "SweeperFunction", ScheduleEvent: ScheduleEvent{Name: "Nightly", Expression: "cron(0 3 * * ? *)"}},
	}
	if got := tp.Schedules(); !reflect.DeepEqual(got, wantSchedules) {
		t.Errorf("Schedules() = %+v", got)
	}
	if got := tp.SQSMappings(); !reflect.DeepEqual(got, wantMappings) {
		t.Errorf("SQSMappings() = %+v", got)
	}

	if got, want := tp.QueueIDs(), []string{"ImportDeadLetterQueue", "JobsDeadLetterQueue", "ImportQueue", "JobsQueue"}; !reflect.DeepEqual(got, want) {
		t.Errorf("QueueIDs() = %v", got)
	}
	iq := tp.Queues["ImportQueue"]
	if !iq.FifoQueue || iq.ContentBasedDeduplication || *iq.VisibilityTimeout != 60 || *iq.MessageRetentionPeriod != 345600 ||
		*iq.Redrive != (Redrive{DeadLetterQueue: "ImportDeadLetterQueue", MaxReceiveCount: 3}) || iq.QueueName.Sub != "${AWS::StackName}-import.fifo" {
		t.Errorf("ImportQueue = %+v", iq)
	}
	if jq := tp.Queues["JobsQueue"]; !jq.ContentBasedDeduplication || jq.VisibilityTimeout != nil || jq.Redrive.DeadLetterQueue != "JobsDeadLetterQueue" {
		t.Errorf("JobsQueue = %+v", jq)
	}

	tb, err := tp.Table()
	if err != nil {
		t.Fatal(err)
	}
	wantGSI := []GlobalIndex{
		{IndexName: "GSI1", KeySchema: []KeyElement{{"GSI1PK", "HASH"}, {"GSI1SK", "RANGE"}}, ProjectionType: "ALL"},
		{IndexName: "GSI2", KeySchema: []KeyElement{{"GSI2PK", "HASH"}}, ProjectionType: "INCLUDE", NonKeyAttributes: []string{"name"}},
	}
	if tb.LogicalID != "Table" || tb.BillingMode != "PAY_PER_REQUEST" || len(tb.AttributeDefinitions) != 5 ||
		!reflect.DeepEqual(tb.KeySchema, []KeyElement{{"PK", "HASH"}, {"SK", "RANGE"}}) ||
		!reflect.DeepEqual(tb.GlobalIndexes, wantGSI) || tb.TTLAttribute != "expires_at" {
		t.Errorf("table = %+v", tb)
	}
	if _, ok := tp.Buckets["ImportBucket"]; !ok {
		t.Error("no ImportBucket")
	}
	if tp.Other["CursorSecret"].Type != "AWS::SecretsManager::Secret" || tp.Other["ApiLogs"].Type != "AWS::Logs::LogGroup" {
		t.Errorf("Other = %+v", tp.Other)
	}

	ping := tp.Functions["PingFunction"]
	if ping.Timeout != 10 || ping.MemorySize != 256 || ping.Runtime != "provided.al2023" || ping.BuildMethod != "makefile" ||
		!reflect.DeepEqual(ping.Architectures, []string{"arm64"}) {
		t.Errorf("PingFunction = %+v", ping)
	}
	if g := tp.Functions["GetThingFunction"]; g.Timeout != 5 || g.MemorySize != 256 {
		t.Errorf("GetThingFunction = %+v", g)
	}
}

func TestFunctionEnv(t *testing.T) {
	tp, err := Parse(fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	r := &Resolver{
		Refs: map[string]string{
			"Table": "local-table", "ImportBucket": "local-bucket",
			"ImportQueue": "http://q/import.fifo", "JobsQueue": "http://q/jobs.fifo", "CursorSecret": "arn:secret",
		},
		Pseudo: map[string]string{"AWS::Region": "us-east-1"},
		Dynamic: func(service, ref string) (string, error) {
			return service + "=" + ref, nil
		},
	}
	tests := []struct {
		function string
		want     map[string]string
	}{
		{"PingFunction", map[string]string{
			"TABLE_NAME": "local-table", "IMPORT_BUCKET": "local-bucket", "IMPORT_QUEUE_URL": "http://q/import.fifo",
			"JOBS_QUEUE_URL": "http://q/jobs.fifo", "CURSOR_SECRET": "secretsmanager=arn:secret:SecretString",
			"APP_URL": "https://app.example.test", "STAGE_LABEL": "subsight-dev-us-east-1", "LITERAL": "plain",
		}},
		{"GetThingFunction", map[string]string{
			"TABLE_NAME": "local-table", "IMPORT_BUCKET": "local-bucket", "IMPORT_QUEUE_URL": "http://q/import.fifo",
			"JOBS_QUEUE_URL": "http://q/jobs.fifo", "CURSOR_SECRET": "secretsmanager=arn:secret:SecretString",
			"APP_URL": "https://override.example.test", "STAGE_LABEL": "subsight-dev-us-east-1", "LITERAL": "plain", "EXTRA": "1",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.function, func(t *testing.T) {
			got, err := tp.FunctionEnv(tc.function, r)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("env =\n%v\nwant\n%v", got, tc.want)
			}
		})
	}

	r.Params = map[string]string{"Stage": "prod"}
	env, err := tp.FunctionEnv("PingFunction", r)
	if err != nil || env["STAGE_LABEL"] != "subsight-prod-us-east-1" {
		t.Errorf("parameter override: %v %v", env["STAGE_LABEL"], err)
	}
	delete(r.Refs, "Table")
	if _, err := tp.FunctionEnv("PingFunction", r); err == nil || !strings.Contains(err.Error(), "Ref Table") {
		t.Errorf("missing local value: err = %v", err)
	}
}

func TestResolveSub(t *testing.T) {
	tp := &Template{Parameters: map[string]Parameter{}}
	r := &Resolver{Refs: map[string]string{"A": "a"}, Attrs: map[string]string{"A.Arn": "arn:a"}}
	tests := []struct {
		in   Value
		want string
	}{
		{Value{Fn: FnSub, Sub: "x-${A}-${A.Arn}-${!Literal}"}, "x-a-arn:a-${Literal}"},
		{Value{Fn: FnGetAtt, Target: "A", Attr: "Arn"}, "arn:a"},
		{Lit("{{resolve:ssm:/p}}"), "{{resolve:ssm:/p}}"}, // no Dynamic resolver: kept
	}
	for _, tc := range tests {
		got, err := tp.Resolve(tc.in, r)
		if err != nil || got != tc.want {
			t.Errorf("Resolve(%v) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestParseErrors mutates the fixture into each mistake the parser must catch.
func TestParseErrors(t *testing.T) {
	base := string(fixture(t))
	tests := []struct {
		name, old, new, wantErr string
	}{
		{"typo in event property", "Method: get, Path: /v1/ping", "Methd: get, Path: /v1/ping", `unknown property "Methd"`},
		{"typo in function property", "      Timeout: 5\n", "      Timeot: 5\n", `unknown property "Timeot"`},
		{"typo in globals", "    MemorySize: 256", "    MemorySzie: 256", `Globals.Function: line 19: unknown property "MemorySzie"`},
		{"typo at resource level", "    DeletionPolicy: Retain", "    DeletionPolcy: Retain", "DeletionPolcy"},
		{"typo at top level", "Outputs:", "Output:", "Output"},
		{"Ref to unknown", "TABLE_NAME: !Ref Table", "TABLE_NAME: !Ref Tabel", "unknown resource or parameter Tabel"},
		{"GetAtt to unknown", "!GetAtt ImportQueue.Arn", "!GetAtt ImportQueu.Arn", "no resource ImportQueu"},
		{"Sub to unknown", "${AWS::StackName}-import.fifo", "${StackName}-import.fifo", "unknown resource or parameter StackName"},
		{"unknown tag", "!Ref AppUrl", "!Reff AppUrl", "unknown tag !Reff"},
		{"bad billing mode", "BillingMode: PAY_PER_REQUEST", "BillingMode: PAY_ME", `unknown BillingMode "PAY_ME"`},
		{"undefined key attribute", "{AttributeName: GSI2PK, KeyType: HASH}", "{AttributeName: GSI3PK, KeyType: HASH}", "GSI3PK is not in AttributeDefinitions"},
		{"unused attribute", "        - {AttributeName: GSI2PK, AttributeType: S}\n", "        - {AttributeName: GSI2PK, AttributeType: S}\n        - {AttributeName: X, AttributeType: S}\n", "X is defined but used by no key schema"},
		{"bad key type", "{AttributeName: SK, KeyType: RANGE}", "{AttributeName: SK, KeyType: SORT}", "must be RANGE"},
		{"bad projection", "ProjectionType: ALL", "ProjectionType: SOME", "unknown ProjectionType"},
		{"fifo name without suffix", "-import.fifo\"", "-import\"", "must end in .fifo"},
		{"redrive to non-queue", "!GetAtt ImportDeadLetterQueue.Arn", "!GetAtt ImportBucket.Arn", "not an AWS::SQS::Queue"},
		{"redrive max out of range", "maxReceiveCount: 3", "maxReceiveCount: 0", "maxReceiveCount 0"},
		{"SQS queue as Ref", "Queue: !GetAtt ImportQueue.Arn", "Queue: !Ref ImportQueue", "must be !GetAtt <Queue>.Arn"},
		{"SQS queue not a queue", "Queue: !GetAtt ImportQueue.Arn", "Queue: !GetAtt Table.Arn", "Table is not an AWS::SQS::Queue"},
		{"FIFO batch too large", "BatchSize: 5", "BatchSize: 11", "exceeds 10"},
		{"unknown response type", "[ReportBatchItemFailures]", "[ReportFailures]", "unknown FunctionResponseTypes"},
		{"duplicate route", "Method: DELETE, Path: \"/v1/things/{uuid}\"", "Method: GET, Path: \"/v1/ping\"", "route GET /v1/ping is declared by both"},
		{"bad method", "Method: ANY", "Method: FETCH", `unknown method "FETCH"`},
		{"greedy not last", "/admin/{proxy+}", "/admin/{proxy+}/x", "greedy parameter must be last"},
		{"missing default authorizer", "DefaultAuthorizer: KeyAuth", "DefaultAuthorizer: Other", `DefaultAuthorizer "Other"`},
		{"authorizer not a function", "!GetAtt AuthorizerFunction.Arn", "!GetAtt Table.Arn", "Table is not an AWS::Serverless::Function"},
		{"ApiId to non-api", "{ApiId: !Ref HttpApi, Method: get", "{ApiId: !Ref Table, Method: get", "ApiId Table is not an HttpApi"},
		{"wrong type", "      Timeout: 5\n", "      Timeout: five\n", "cannot unmarshal"},
		{"no type", "    Type: AWS::Logs::LogGroup\n", "", "no Type"},
		{"typo in schedule property", "Schedule: rate(5 minutes)", "Schedul: rate(5 minutes)", `unknown property "Schedul"`},
		{"schedule without expression", "Schedule: rate(5 minutes)", "Enabled: true", "no schedule expression"},
		{"schedule singular unit for many", "rate(5 minutes)", "rate(5 minute)", "must be plural"},
		{"schedule plural unit for one", "rate(5 minutes)", "rate(1 minutes)", `unknown unit "minutes"`},
		{"schedule unknown unit", "rate(5 minutes)", "rate(5 seconds)", `unknown unit "seconds"`},
		{"schedule zero rate", "rate(5 minutes)", "rate(0 minutes)", "not a positive whole number"},
		{"schedule not an expression", "rate(5 minutes)", "every 5 minutes", "is not rate(...), cron(...) or at(...)"},
		{"schedule cron fields", "cron(0 3 * * ? *)", "cron(0 3 * * ?)", "cron needs 6 fields"},
		{"schedule bad state", "State: DISABLED", "State: OFF", `State "OFF"`},
		{"schedule Enabled and State", "            Description: sweep\n", "            Description: sweep\n            Enabled: true\n            State: ENABLED\n", "Enabled and State cannot both be set"},
		{"typo in ScheduleV2 property", "ScheduleExpression: cron", "ScheduleExpresion: cron", `unknown property "ScheduleExpresion"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(base, tc.old) {
				t.Fatalf("fixture does not contain %q", tc.old)
			}
			_, err := Parse([]byte(strings.Replace(base, tc.old, tc.new, 1)))
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v\nwant it to contain %q", err, tc.wantErr)
			}
		})
	}
}

// TestRealTemplate checks the project's template.yaml against the contract of
// docs/architecture.md.
func TestRealTemplate(t *testing.T) {
	tp, err := ParseFile("../../template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tb, err := tp.Table()
	if err != nil {
		t.Fatal(err)
	}
	if tb.LogicalID != "Table" || tb.BillingMode != "PAY_PER_REQUEST" {
		t.Errorf("table %s billing %s", tb.LogicalID, tb.BillingMode)
	}
	gsis := map[string]GlobalIndex{}
	for _, g := range tb.GlobalIndexes {
		gsis[g.IndexName] = g
	}
	for _, name := range []string{"GSI1", "GSI2"} {
		want := []KeyElement{{name + "PK", "HASH"}, {name + "SK", "RANGE"}}
		if g := gsis[name]; !reflect.DeepEqual(g.KeySchema, want) || g.ProjectionType != "ALL" {
			t.Errorf("%s = %+v", name, g)
		}
	}
	if _, ok := tp.Buckets["ImportBucket"]; !ok {
		t.Error("no ImportBucket")
	}
	for q, dlq := range map[string]string{"ImportQueue": "ImportDeadLetterQueue", "JobsQueue": "JobsDeadLetterQueue"} {
		qq := tp.Queues[q]
		if qq == nil || !qq.FifoQueue || qq.Redrive == nil || qq.Redrive.DeadLetterQueue != dlq || !tp.Queues[dlq].FifoQueue {
			t.Errorf("%s = %+v", q, qq)
		}
	}
	if got := tp.AuthorizerFunction(); got != "AuthorizerFunction" {
		t.Errorf("authorizer = %q", got)
	}
	workers := map[string]string{}
	for _, m := range tp.SQSMappings() {
		workers[m.Queue] = m.Function
		if !m.ReportBatchItemFailures || m.BatchSize < 1 || m.BatchSize > 10 {
			t.Errorf("mapping %+v", m)
		}
	}
	if want := map[string]string{"ImportQueue": "ImportWorkerFunction", "JobsQueue": "JobsWorkerFunction"}; !reflect.DeepEqual(workers, want) {
		t.Errorf("workers = %v", workers)
	}
	routes := tp.Routes()
	var ping bool
	for _, r := range routes {
		ping = ping || r.Key() == "GET /v1/ping" && r.Function == "PingFunction"
		// The API's routes are behind the authorizer; the dashboard's say Authorizer: NONE.
		want := "AuthorizerFunction"
		if !strings.HasPrefix(r.Path, "/v1/") && r.Function == "DashboardFunction" {
			want = ""
		}
		if r.Authorizer != want {
			t.Errorf("route %s has authorizer %q", r.Key(), r.Authorizer)
		}
	}
	if !ping {
		t.Errorf("no GET /v1/ping -> PingFunction in %v", routes)
	}
	for _, id := range tp.FunctionIDs() {
		env := tp.Functions[id].Environment
		for _, k := range []string{"TABLE_NAME", "IMPORT_BUCKET", "IMPORT_QUEUE_URL", "JOBS_QUEUE_URL", "CURSOR_SECRET", "APP_URL"} {
			if env[k].IsZero() {
				t.Errorf("%s: environment lacks %s", id, k)
			}
		}
	}
}
