package templatecheck

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/subsight/subsight/infra/devstack/samtemplate"
)

// The durations the concurrency budget prices the API's executions at
// (docs/architecture.md, "Guard rails"): steady-state concurrency ≈ rate × duration.
const (
	// apiP99 is an operation's p99 duration: a few DynamoDB requests at up to 25 ms each.
	apiP99 = 500 * time.Millisecond
	// authorizerP99 is the authorizer's, counted on every request (as if its cache
	// missed each time): one GetItem and one Query.
	authorizerP99 = 100 * time.Millisecond
	// importIntakeP99 is the json_imports intake's, which parses up to 5 MB.
	importIntakeP99 = 3 * time.Second
	// stripeWebhookP99 is the Stripe webhook's: a GetItem, a decryption on a cold cache,
	// a signature over up to 4 MB, a put and a send. It has no authorizer; the budget
	// counts one anyway.
	stripeWebhookP99 = 200 * time.Millisecond
	// unreserved is what Lambda keeps unreserved in every account and Region.
	unreserved = 100
)

// routeP99 is the p99 duration of a route with a throttle of its own.
var routeP99 = map[string]time.Duration{"POST /v1/data_sources/{data_source_uuid}/json_imports": importIntakeP99,
	"POST /stripe/webhooks/{data_source_uuid}": stripeWebhookP99}

// guardDoc is what the guard rails read of template.yaml.
type guardDoc struct {
	Parameters map[string]struct {
		Default string `yaml:"Default"`
	} `yaml:"Parameters"`
	Resources map[string]struct {
		Type       string `yaml:"Type"`
		Properties struct {
			ReservedConcurrentExecutions samtemplate.Value   `yaml:"ReservedConcurrentExecutions"`
			DefaultRouteSettings         throttle            `yaml:"DefaultRouteSettings"`
			RouteSettings                map[string]throttle `yaml:"RouteSettings"`
		} `yaml:"Properties"`
	} `yaml:"Resources"`
}

type throttle struct {
	ThrottlingRateLimit  samtemplate.Value `yaml:"ThrottlingRateLimit"`
	ThrottlingBurstLimit samtemplate.Value `yaml:"ThrottlingBurstLimit"`
}

// number is a literal or a parameter's default; -1 when absent or unreadable.
func (d guardDoc) number(v samtemplate.Value) float64 {
	lit := v.Lit
	if v.Fn == samtemplate.FnRef {
		lit = d.Parameters[v.Target].Default
	}
	n, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return -1
	}
	return n
}

// guardRails checks the concurrency budget of a template: every worker reserves at
// least the sum of its mappings' MaximumConcurrency; the HTTP API's stage has a
// throttle, every route-level throttle is below it; the reservations, the API's
// executions at its throttles and the 100 unreserved fit the AccountConcurrency
// parameter's default.
func guardRails(src []byte) []string {
	var doc guardDoc
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return []string{err.Error()}
	}
	tpl, err := samtemplate.Parse(src)
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	mappings := map[string]float64{}
	for _, m := range tpl.SQSMappings() {
		mappings[m.Function] += float64(m.MaximumConcurrency)
	}
	reserved := 0.0
	for _, id := range slices.Sorted(maps.Keys(doc.Resources)) {
		r := doc.Resources[id]
		if r.Type != samtemplate.TypeFunction {
			continue
		}
		v := r.Properties.ReservedConcurrentExecutions
		n := doc.number(v)
		switch {
		case v.IsZero() && mappings[id] > 0:
			out = append(out, fmt.Sprintf("%s reads queues (MaximumConcurrency %.0f in all) without reserved concurrency", id, mappings[id]))
		case v.IsZero():
		case n < mappings[id] || n < 1:
			out = append(out, fmt.Sprintf("%s reserves %v = %.0f, below its mappings' MaximumConcurrency %.0f in all", id, v, n, mappings[id]))
		default:
			reserved += n
		}
	}
	api, ok := doc.Resources[theHttpApi(tpl)]
	if !ok {
		return append(out, "no HttpApi")
	}
	stage := api.Properties.DefaultRouteSettings
	rate, burst := doc.number(stage.ThrottlingRateLimit), doc.number(stage.ThrottlingBurstLimit)
	if rate <= 0 || burst < rate {
		out = append(out, fmt.Sprintf("the HttpApi's DefaultRouteSettings throttle: rate %v, burst %v; want a rate, and a burst at least as high",
			stage.ThrottlingRateLimit, stage.ThrottlingBurstLimit))
	}
	executions := rate * (apiP99 + authorizerP99).Seconds()
	budget := []string{fmt.Sprintf("API %.0f/s × %v", rate, apiP99+authorizerP99)}
	for _, key := range slices.Sorted(maps.Keys(api.Properties.RouteSettings)) {
		rs := api.Properties.RouteSettings[key]
		r := doc.number(rs.ThrottlingRateLimit)
		if r <= 0 || r > rate || doc.number(rs.ThrottlingBurstLimit) < r {
			out = append(out, fmt.Sprintf("route %s: throttle rate %v, burst %v; want a rate below the stage's and a burst at least as high",
				key, rs.ThrottlingRateLimit, rs.ThrottlingBurstLimit))
		}
		p99, ok := routeP99[key]
		if !ok {
			out = append(out, fmt.Sprintf("route %s has a throttle of its own but no p99 duration in the concurrency budget", key))
		}
		executions += r * (p99 + authorizerP99).Seconds()
		budget = append(budget, fmt.Sprintf("%s %.0f/s × %v", key, r, p99+authorizerP99))
	}
	quota := doc.number(samtemplate.Value{Fn: samtemplate.FnRef, Target: "AccountConcurrency"})
	if total := reserved + executions + unreserved; quota <= 0 || total > quota {
		out = append(out, fmt.Sprintf("reserved %.0f + API %.0f (%s) + unreserved %d = %.0f executions, over AccountConcurrency %.0f",
			reserved, executions, strings.Join(budget, ", "), unreserved, total, quota))
	}
	return out
}

func TestConcurrencyBudget(t *testing.T) {
	src := templateSource(t)
	for _, v := range guardRails(src) {
		t.Error(v)
	}
}

// TestConcurrencyBudgetCatchesItsBreach breaks template.yaml's guard rails one at a
// time: each must be reported.
func TestConcurrencyBudgetCatchesItsBreach(t *testing.T) {
	src := templateSource(t)
	tests := []struct{ name, old, new string }{
		{"a worker reserves less than its mappings take", "MaximumConcurrency: 60", "MaximumConcurrency: 600"},
		{"a worker without a reservation", "      ReservedConcurrentExecutions: !Ref JobsWorkerReservedConcurrency\n", ""},
		{"no stage throttle", "        ThrottlingRateLimit: !Ref ApiThrottleRate\n", ""},
		{"a route throttled above the stage", "          ThrottlingRateLimit: !Ref ImportThrottleRate\n", "          ThrottlingRateLimit: 100000\n"},
		{"the budget over the account's concurrency", "  AccountConcurrency:\n    Type: Number\n    Default: 1000\n",
			"  AccountConcurrency:\n    Type: Number\n    Default: 300\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(string(src), tc.old) {
				t.Fatalf("template.yaml has no %q", tc.old)
			}
			if v := guardRails([]byte(strings.Replace(string(src), tc.old, tc.new, 1))); len(v) == 0 {
				t.Errorf("no violation reported")
			}
		})
	}
}
