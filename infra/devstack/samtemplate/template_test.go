package samtemplate

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

func fixture(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func parseFixture(t *testing.T) *Template {
	t.Helper()
	tp, err := Parse([]byte(fixture(t)))
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

func TestParseFixture(t *testing.T) {
	tp := parseFixture(t)

	wantRoutes := []Route{
		{Method: "ANY", Path: "/admin/{proxy+}", Function: "AdminFunction"}, // Auth: {Authorizer: NONE}
		{Method: "GET", Path: "/v1/ping", Function: "PingFunction", Authorizer: "AuthorizerFunction"},
		{Method: "DELETE", Path: "/v1/things/{uuid}", Function: "GetThingFunction", Authorizer: "AuthorizerFunction"},
		{Method: "GET", Path: "/v1/things/{uuid}", Function: "GetThingFunction", Authorizer: "AuthorizerFunction"},
	}
	if got := tp.Routes(); !reflect.DeepEqual(got, wantRoutes) {
		t.Errorf("Routes() =\n%+v\nwant\n%+v", got, wantRoutes)
	}
	wantAuth := Authorizer{Name: "KeyAuth", Function: "AuthorizerFunction", PayloadFormatVersion: "2.0",
		EnableSimpleResponses: true, IdentityHeaders: []string{"Authorization"}, ResultTTL: time.Minute}
	if api := tp.HttpApis["HttpApi"]; api.DefaultAuthorizer != "KeyAuth" || !reflect.DeepEqual(api.Authorizers["KeyAuth"], wantAuth) {
		t.Errorf("HttpApi = %+v", api)
	}

	wantMappings := []SQSMapping{
		{Queue: "ImportQueue", Function: "ImportWorkerFunction", BatchSize: 5, ReportBatchItemFailures: true, Enabled: true, MaximumConcurrency: 2},
		{Queue: "JobsQueue", Function: "JobsWorkerFunction", BatchSize: 10, Enabled: true},
	}
	if got := tp.SQSMappings(); !reflect.DeepEqual(got, wantMappings) {
		t.Errorf("SQSMappings() = %+v", got)
	}
	wantSchedules := []ScheduleMapping{
		{Function: "AdminFunction", ScheduleEvent: ScheduleEvent{Name: "Nightly", Expression: "rate(1 day)", Every: 24 * time.Hour, Enabled: true}},
		{Function: "SweeperFunction", ScheduleEvent: ScheduleEvent{Name: "Every5", Expression: "rate(5 minutes)", Every: 5 * time.Minute, Enabled: true}},
		{Function: "SweeperFunction", ScheduleEvent: ScheduleEvent{Name: "Nightly", Expression: "cron(0 3 * * ? *)"}},
	}
	if got := tp.Schedules(); !reflect.DeepEqual(got, wantSchedules) {
		t.Errorf("Schedules() = %+v", got)
	}

	if got, want := tp.QueueIDs(), []string{"ImportDeadLetterQueue", "JobsDeadLetterQueue", "ImportQueue", "JobsQueue"}; !reflect.DeepEqual(got, want) {
		t.Errorf("QueueIDs() = %v", got)
	}
	iq := tp.Queues["ImportQueue"]
	if !iq.FifoQueue || iq.ContentBasedDeduplication || *iq.VisibilityTimeout != 60 || *iq.MessageRetentionPeriod != 345600 ||
		*iq.Redrive != (Redrive{DeadLetterQueue: "ImportDeadLetterQueue", MaxReceiveCount: 3}) {
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
	if want := map[string]string{"CursorSecret": "AWS::SecretsManager::Secret", "ApiLogs": "AWS::Logs::LogGroup"}; !reflect.DeepEqual(tp.Other, want) {
		t.Errorf("Other = %v", tp.Other)
	}

	// Architectures and MemorySize come from Globals, as Refs to parameters: their defaults.
	ping := tp.Functions["PingFunction"]
	if ping.Timeout != 10 || ping.MemorySize != 256 || ping.Runtime != "provided.al2023" || ping.Handler != "bootstrap" ||
		ping.BuildMethod != "makefile" || !reflect.DeepEqual(ping.Architectures, []string{"arm64"}) {
		t.Errorf("PingFunction = %+v", ping)
	}
	if g := tp.Functions["GetThingFunction"]; g.Timeout != 5 || g.MemorySize != 256 || g.BuildMethod != "" {
		t.Errorf("GetThingFunction = %+v", g)
	}
}

func TestFunctionEnv(t *testing.T) {
	tp := parseFixture(t)
	r := &Resolver{
		Refs: map[string]string{
			"Table": "local-table", "ImportBucket": "local-bucket",
			"ImportQueue": "http://q/import.fifo", "JobsQueue": "http://q/jobs.fifo", "CursorSecret": "arn:secret",
		},
		Pseudo:  map[string]string{"AWS::Region": "us-east-1"},
		Dynamic: func(service, ref string) (string, error) { return service + "=" + ref, nil },
	}
	shared := map[string]string{
		"TABLE_NAME": "local-table", "IMPORT_BUCKET": "local-bucket", "IMPORT_QUEUE_URL": "http://q/import.fifo",
		"JOBS_QUEUE_URL": "http://q/jobs.fifo", "CURSOR_SECRET": "secretsmanager=arn:secret:SecretString",
		"STAGE_LABEL": "subsight-dev-us-east-1", "LITERAL": "plain",
	}
	with := func(extra map[string]string) map[string]string {
		out := map[string]string{}
		for _, m := range []map[string]string{shared, extra} {
			for k, v := range m {
				out[k] = v
			}
		}
		return out
	}
	tests := []struct {
		function string
		want     map[string]string
	}{
		{"PingFunction", with(map[string]string{"APP_URL": "https://app.example.test"})},
		{"GetThingFunction", with(map[string]string{"APP_URL": "https://override.example.test", "EXTRA": "1"})},
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
	delete(r.Refs, "Table")
	if _, err := tp.FunctionEnv("PingFunction", r); err == nil || !strings.Contains(err.Error(), "Ref Table") {
		t.Errorf("missing local value: err = %v", err)
	}
}

func TestResolve(t *testing.T) {
	tp := &Template{defaults: map[string]string{"P": "p"}}
	r := &Resolver{Refs: map[string]string{"A": "a"}, Attrs: map[string]string{"A.Arn": "arn:a"}}
	tests := []struct {
		in      Value
		want    string
		wantErr string
	}{
		{in: Value{Fn: FnSub, Sub: "x-${A}-${A.Arn}-${P}-${!Literal}"}, want: "x-a-arn:a-p-${Literal}"},
		{in: Value{Fn: FnGetAtt, Target: "A", Attr: "Arn"}, want: "arn:a"},
		{in: Value{Lit: "{{resolve:ssm:/p}}"}, want: "{{resolve:ssm:/p}}"}, // no Dynamic resolver: kept
		{in: Value{Fn: FnRef, Target: "B"}, wantErr: "no local value for Ref B"},
		{in: Value{Fn: "Fn::Join", Line: 7}, wantErr: "line 7: Fn::Join cannot be resolved locally"},
	}
	for _, tc := range tests {
		got, err := tp.Resolve(tc.in, r)
		if got != tc.want || (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("Resolve(%v) = %q, %v; want %q, error %q", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

// TestLenient: CloudFormation and SAM rules are cfn-lint's and `sam validate --lint`'s;
// the reader accepts what it does not use, whatever it is.
func TestLenient(t *testing.T) {
	base := fixture(t)
	tests := []struct{ name, old, new string }{
		{"unknown property", "      Timeout: 5\n", "      Timeot: 5\n"},
		{"unknown top-level section", "Outputs:", "Output:"},
		{"unknown tag", "AttributeName: expires_at", "AttributeName: !Reff expires_at"},
		{"Ref to nothing", "TABLE_NAME: !Ref Table", "TABLE_NAME: !Ref Tabel"},
		{"unknown billing mode", "BillingMode: PAY_PER_REQUEST", "BillingMode: PAY_ME"},
		{"FIFO queue name without .fifo", "-import.fifo\"", "-import\""},
		{"unknown method", "Method: ANY", "Method: FETCH"},
		{"intrinsic the reader cannot resolve", "LITERAL: plain", "LITERAL: !Join [\"-\", [a, b]]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(base, tc.old) {
				t.Fatalf("fixture does not contain %q", tc.old)
			}
			if _, err := Parse([]byte(strings.Replace(base, tc.old, tc.new, 1))); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestReadErrors: what the local stack cannot read is an error.
func TestReadErrors(t *testing.T) {
	base := fixture(t)
	tests := []struct{ name, old, new, wantErr string }{
		{"not YAML", "Outputs:", "Outputs: [", "yaml"},
		{"wrong type", "      Timeout: 5\n", "      Timeout: five\n", "cannot unmarshal"},
		{"Ref to a parameter without default", "    Default: 256\n", "", "cannot unmarshal"},
		{"SQS queue as Ref", "Queue: !GetAtt ImportQueue.Arn", "Queue: !Ref ImportQueue", "Queue must be !GetAtt <Queue>.Arn"},
		{"redrive target as Ref", "!GetAtt ImportDeadLetterQueue.Arn", "!Ref ImportDeadLetterQueue", "deadLetterTargetArn must be !GetAtt"},
		{"authorizer without function", "FunctionArn: !GetAtt AuthorizerFunction.Arn", "FunctionArn: arn:aws:lambda:x", "FunctionArn: !GetAtt <Function>.Arn"},
		{"unknown default authorizer", "DefaultAuthorizer: KeyAuth", "DefaultAuthorizer: Other", "DefaultAuthorizer Other is not among"},
		{"unknown route authorizer", "Auth: {Authorizer: NONE}", "Auth: {Authorizer: Other}", "authorizer Other is not among HttpApi's"},
		{"route without path", "Method: get, Path: /v1/ping", "Method: get", "needs Method and Path"},
		{"ApiId not a Ref", "{ApiId: !Ref HttpApi, Method: get", "{ApiId: HttpApi, Method: get", "ApiId must be !Ref"},
		{"local secondary index", "      TimeToLiveSpecification:", "      LocalSecondaryIndexes: []\n      TimeToLiveSpecification:", "LocalSecondaryIndexes"},
		{"unreadable rate", "rate(5 minutes)", "rate(5 seconds)", `schedule "rate(5 seconds)"`},
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

func TestRatePeriod(t *testing.T) {
	tests := []struct {
		expr    string
		want    time.Duration
		wantErr bool
	}{
		{"rate(1 minute)", time.Minute, false},
		{"rate(5 minutes)", 5 * time.Minute, false},
		{"rate(1 hour)", time.Hour, false},
		{"rate(12 hours)", 12 * time.Hour, false},
		{"rate(1 day)", 24 * time.Hour, false},
		{"rate(7 days)", 7 * 24 * time.Hour, false},
		{"cron(0/5 * * * ? *)", 0, false},
		{"at(2030-01-02T03:04:05)", 0, false},
		{"rate(1 minutes)", 0, true},
		{"rate(2 minute)", 0, true},
		{"rate(0 minutes)", 0, true},
		{"rate(-1 minutes)", 0, true},
		{"rate(1.5 hours)", 0, true},
		{"rate(5)", 0, true},
		{"rate(5 minutes", 0, true},
		{"rate(5 seconds)", 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			got, err := ratePeriod(tc.expr)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("ratePeriod(%q) = %v, %v; want %v, error %v", tc.expr, got, err, tc.want, tc.wantErr)
			}
		})
	}
}

// definitionTemplate is an HttpApi whose routes are an OpenAPI DefinitionBody, as
// infra/stackgen writes them: a Lambda request authorizer, routes behind it, a public
// route (security: []) and one for any method.
const definitionTemplate = `
Resources:
  AuthorizerFunction:
    Type: AWS::Serverless::Function
  PingFunction:
    Type: AWS::Serverless::Function
  PageFunction:
    Type: AWS::Serverless::Function
  HttpApi:
    Type: AWS::Serverless::HttpApi
    Properties:
      DefinitionBody:
        openapi: "3.0.1"
        components:
          securitySchemes:
            KeyAuth:
              type: apiKey
              name: Authorization
              in: header
              x-amazon-apigateway-authorizer:
                type: request
                identitySource: $request.header.Authorization
                authorizerUri: !Sub "arn:${AWS::Partition}:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${AuthorizerFunction.Arn}/invocations"
                authorizerPayloadFormatVersion: "2.0"
                enableSimpleResponses: true
                authorizerResultTtlInSeconds: 30
        paths:
          /v1/ping:
            get:
              security:
                - KeyAuth: []
              x-amazon-apigateway-integration:
                type: aws_proxy
                httpMethod: POST
                uri: !Sub "arn:${AWS::Partition}:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${PingFunction.Arn}/invocations"
                payloadFormatVersion: "2.0"
          /{page}:
            get:
              security: []
              x-amazon-apigateway-integration:
                type: aws_proxy
                uri:
                  Fn::Sub: "arn:${AWS::Partition}:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${PageFunction.Arn}/invocations"
            x-amazon-apigateway-any-method:
              x-amazon-apigateway-integration:
                type: aws_proxy
                uri: !Sub "arn:${AWS::Partition}:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${PageFunction.Arn}/invocations"
`

func TestParseDefinitionBody(t *testing.T) {
	tp, err := Parse([]byte(definitionTemplate))
	if err != nil {
		t.Fatal(err)
	}
	want := []Route{
		{Method: "GET", Path: "/v1/ping", Function: "PingFunction", Authorizer: "AuthorizerFunction"},
		{Method: "ANY", Path: "/{page}", Function: "PageFunction"},
		{Method: "GET", Path: "/{page}", Function: "PageFunction"},
	}
	if got := tp.Routes(); !reflect.DeepEqual(got, want) {
		t.Errorf("Routes() =\n%+v\nwant\n%+v", got, want)
	}
	wantAuth := Authorizer{Name: "KeyAuth", Function: "AuthorizerFunction", PayloadFormatVersion: "2.0",
		EnableSimpleResponses: true, IdentityHeaders: []string{"Authorization"}, ResultTTL: 30 * time.Second}
	if got := tp.HttpApis["HttpApi"].Authorizers["KeyAuth"]; !reflect.DeepEqual(got, wantAuth) {
		t.Errorf("authorizer %+v, want %+v", got, wantAuth)
	}
	if ev := tp.Functions["PingFunction"].HttpEvents; len(ev) != 1 || ev[0].ApiID != "HttpApi" || ev[0].PayloadFormatVersion != "2.0" {
		t.Errorf("PingFunction's events %+v", ev)
	}
	for _, tc := range []struct{ name, old, new, want string }{
		{"not a Lambda integration", "type: aws_proxy\n                httpMethod", "type: http_proxy\n                httpMethod", "aws_proxy"},
		{"an unknown function", "${PingFunction.Arn}", "${NoFunction.Arn}", "NoFunction is not a function"},
		{"an integration by ARN", "uri: !Sub \"arn:${AWS::Partition}:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${PingFunction.Arn}/invocations\"",
			"uri: arn:aws:lambda:us-east-1:123456789012:function:ping", "runs Lambda integrations"},
		{"two authorizers on a route", "                - KeyAuth: []\n", "                - KeyAuth: []\n                - Other: []\n", "one authorizer per route"},
		{"an unknown authorizer", "                - KeyAuth: []\n", "                - Other: []\n", "not among"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(definitionTemplate, tc.old, tc.new, 1)
			if src == definitionTemplate {
				t.Fatalf("no %q in the template", tc.old)
			}
			if _, err := Parse([]byte(src)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
