package templatecheck

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/subsight/subsight/infra/devstack/samtemplate"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/config"
	"github.com/subsight/subsight/shared/routes"
)

// rule is one of the project's own rules about template.yaml, beyond what cfn-lint and
// `sam validate --lint` check (make lint runs both): it returns the violations.
type rule func(tpl *samtemplate.Template) []string

// templateRules are checked on template.yaml by TestTemplateRules; the other rules are
// TestEveryTemplateFunctionIsBuiltAndServed, TestNothingExistsInOnePlaceOnly and
// TestRoutesAreUnique (this package) and every function's Lambda-parity case
// (infra/testkit/rie TestLambdaParity).
var templateRules = map[string]rule{
	// The local router and apigw speak payload format 2.0, on the one HttpApi whose
	// authorizer guards the routes.
	"routes are on the HttpApi in payload format 2.0": func(tpl *samtemplate.Template) (out []string) {
		api := theHttpApi(tpl)
		for _, id := range tpl.FunctionIDs() {
			for _, ev := range tpl.Functions[id].HttpEvents {
				if ev.ApiID == "" || ev.ApiID != api {
					out = append(out, fmt.Sprintf("%s event %s: ApiId %q, want !Ref %s", id, ev.Name, ev.ApiID, api))
				}
				if ev.PayloadFormatVersion != "" && ev.PayloadFormatVersion != "2.0" {
					out = append(out, fmt.Sprintf("%s event %s: payload format %s, want 2.0", id, ev.Name, ev.PayloadFormatVersion))
				}
			}
		}
		return out
	},
	// auth.Authorizer answers simple responses from the Basic credentials; every route
	// but the public pages' goes through it.
	"every operation is behind the API-key authorizer": func(tpl *samtemplate.Template) (out []string) {
		api := tpl.HttpApis[theHttpApi(tpl)]
		if api == nil {
			return []string{fmt.Sprintf("%d HttpApis, want 1", len(tpl.HttpApis))}
		}
		if len(api.Authorizers) != 1 {
			return []string{fmt.Sprintf("authorizers %v, want the API-key authorizer only", slices.Sorted(maps.Keys(api.Authorizers)))}
		}
		for _, a := range api.Authorizers {
			if _, registered := routes.Authorizers[a.Function]; !registered {
				out = append(out, fmt.Sprintf("authorizer %s (function %q) is not one of shared/routes.Authorizers", a.Name, a.Function))
			}
			if a.PayloadFormatVersion != "2.0" || !a.EnableSimpleResponses || !slices.Equal(a.IdentityHeaders, []string{"Authorization"}) {
				out = append(out, fmt.Sprintf("authorizer %s: payload %q, simple responses %v, identity %v; want 2.0, true, [Authorization]",
					a.Name, a.PayloadFormatVersion, a.EnableSimpleResponses, a.IdentityHeaders))
			}
		}
		for _, r := range tpl.Routes() {
			if f, _ := routes.Lookup(r.Function); !f.Open() && r.Authorizer == "" {
				out = append(out, fmt.Sprintf("route %s of %s has no authorizer", r.Key(), r.Function))
			}
		}
		return out
	},
	// sqsworker.FIFO reports partial batch failures, and Lambda reads a FIFO queue in
	// batches of at most 10.
	"workers read FIFO queues in batches of at most 10 with partial batch responses": func(tpl *samtemplate.Template) (out []string) {
		for _, m := range tpl.SQSMappings() {
			q := tpl.Queues[m.Queue]
			switch {
			case q == nil:
				out = append(out, fmt.Sprintf("%s reads %s, which is not a queue of the template", m.Function, m.Queue))
			case !q.FifoQueue || m.BatchSize > 10 || !m.ReportBatchItemFailures:
				out = append(out, fmt.Sprintf("%s reads %s: FIFO %v, batch size %d, ReportBatchItemFailures %v",
					m.Function, m.Queue, q.FifoQueue, m.BatchSize, m.ReportBatchItemFailures))
			}
		}
		return out
	},
	// A message that keeps failing must end somewhere visible (its import shows it).
	"every queue a worker reads has a dead-letter queue of its kind": func(tpl *samtemplate.Template) (out []string) {
		for _, m := range tpl.SQSMappings() {
			q := tpl.Queues[m.Queue]
			if q == nil {
				continue
			}
			if q.Redrive == nil {
				out = append(out, fmt.Sprintf("%s has no RedrivePolicy", m.Queue))
				continue
			}
			dlq := tpl.Queues[q.Redrive.DeadLetterQueue]
			if dlq == nil || dlq.FifoQueue != q.FifoQueue || dlq.Redrive != nil {
				out = append(out, fmt.Sprintf("%s: dead-letter queue %s must be a queue of the template, FIFO as the queue is, without a redrive of its own",
					m.Queue, q.Redrive.DeadLetterQueue))
			}
		}
		return out
	},
	// Lambda's advice for SQS event sources: a visibility timeout of six times the
	// function's timeout, so that a batch still running is not delivered again.
	"a queue's visibility timeout is six times its worker's timeout": func(tpl *samtemplate.Template) (out []string) {
		for _, m := range tpl.SQSMappings() {
			q, f := tpl.Queues[m.Queue], tpl.Functions[m.Function]
			if q != nil && (q.VisibilityTimeout == nil || *q.VisibilityTimeout < 6*f.Timeout) {
				out = append(out, fmt.Sprintf("%s: VisibilityTimeout %v, want at least 6 x %s's Timeout %d", m.Queue, q.VisibilityTimeout, m.Function, f.Timeout))
			}
		}
		return out
	},
	// shared/keys builds PK/SK and the two GSIs' keys; DESIGN: one on-demand table.
	"one on-demand table with the keys shared/keys builds": func(tpl *samtemplate.Template) (out []string) {
		tb, err := tpl.Table()
		if err != nil {
			return []string{err.Error()}
		}
		key := func(pk, sk string) []samtemplate.KeyElement {
			return []samtemplate.KeyElement{{AttributeName: pk, KeyType: "HASH"}, {AttributeName: sk, KeyType: "RANGE"}}
		}
		if tb.BillingMode != "PAY_PER_REQUEST" || !slices.Equal(tb.KeySchema, key("PK", "SK")) {
			out = append(out, fmt.Sprintf("table %s: billing %q, key %v", tb.LogicalID, tb.BillingMode, tb.KeySchema))
		}
		want := []samtemplate.GlobalIndex{{IndexName: "GSI1", KeySchema: key("GSI1PK", "GSI1SK"), ProjectionType: "ALL"},
			{IndexName: "GSI2", KeySchema: key("GSI2PK", "GSI2SK"), ProjectionType: "ALL"}}
		if fmt.Sprint(tb.GlobalIndexes) != fmt.Sprint(want) {
			out = append(out, fmt.Sprintf("GSIs %+v, want %+v", tb.GlobalIndexes, want))
		}
		return out
	},
	// Every function loads config.FromEnv at start.
	"every function gets the variables shared/config reads": func(tpl *samtemplate.Template) (out []string) {
		var read []string
		_, _ = config.FromLookup(func(name string) string { read = append(read, name); return "" })
		for _, id := range tpl.FunctionIDs() {
			for _, name := range read {
				if tpl.Functions[id].Environment[name].IsZero() {
					out = append(out, fmt.Sprintf("%s: environment lacks %s", id, name))
				}
			}
		}
		return out
	},
}

// theHttpApi is the LogicalId of the template's HttpApi, "" unless there is exactly one.
func theHttpApi(tpl *samtemplate.Template) string {
	if len(tpl.HttpApis) != 1 {
		return ""
	}
	return slices.Collect(maps.Keys(tpl.HttpApis))[0]
}

func TestTemplateRules(t *testing.T) {
	_, tpl := testenv.RepoTemplate(t)
	for _, name := range slices.Sorted(maps.Keys(templateRules)) {
		t.Run(name, func(t *testing.T) {
			for _, v := range templateRules[name](tpl) {
				t.Error(v)
			}
		})
	}
}

// templateSource is the repository's template.yaml as written.
func templateSource(t *testing.T) []byte {
	t.Helper()
	root, _ := testenv.RepoTemplate(t)
	src, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestTemplateRulesCatchTheirBreach breaks template.yaml once for every rule: each
// must then report a violation.
func TestTemplateRulesCatchTheirBreach(t *testing.T) {
	src := templateSource(t)
	tests := []struct {
		rule, old, new string
	}{
		{"routes are on the HttpApi in payload format 2.0", "payloadFormatVersion: \"2.0\"\n              responses", "payloadFormatVersion: \"1.0\"\n              responses"},
		{"every operation is behind the API-key authorizer", "enableSimpleResponses: true", "enableSimpleResponses: false"},
		{"every operation is behind the API-key authorizer", "identitySource: $request.header.Authorization", "identitySource: $request.header.X-Api-Key"},
		{"every operation is behind the API-key authorizer", "              security:\n                - ApiKeyAuthorizer: []\n", "              security: []\n"},
		{"workers read FIFO queues in batches of at most 10 with partial batch responses", "BatchSize: 10", "BatchSize: 11"},
		{"workers read FIFO queues in batches of at most 10 with partial batch responses", "- ReportBatchItemFailures", "- Other"},
		{"every queue a worker reads has a dead-letter queue of its kind", "RedrivePolicy:", "RedrivePolicyX:"},
		{"a queue's visibility timeout is six times its worker's timeout", "VisibilityTimeout: 360", "VisibilityTimeout: 300"},
		{"one on-demand table with the keys shared/keys builds", "BillingMode: PAY_PER_REQUEST", "BillingMode: PROVISIONED"},
		{"one on-demand table with the keys shared/keys builds", "ProjectionType: ALL", "ProjectionType: KEYS_ONLY"},
		{"every function gets the variables shared/config reads", "        APP_URL: !Ref AppUrl\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.rule+": "+strings.TrimSpace(tc.new), func(t *testing.T) {
			if !strings.Contains(string(src), tc.old) {
				t.Fatalf("template.yaml has no %q", tc.old)
			}
			tpl, err := samtemplate.Parse([]byte(strings.Replace(string(src), tc.old, tc.new, 1)))
			if err != nil {
				t.Fatal(err)
			}
			if v := templateRules[tc.rule](tpl); len(v) == 0 {
				t.Errorf("no violation reported")
			}
		})
	}
}
