package templatecheck

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/subsight/subsight/infra/devstack/samtemplate"
)

// opsDoc is what the operations rules read of template.yaml: the functions' logging and
// tracing, the log groups, the queues' redrives, the schedules' dead-letter queues and
// the alarms (docs/operations.md).
type opsDoc struct {
	Globals struct {
		Function opsFunction `yaml:"Function"`
	} `yaml:"Globals"`
	Resources map[string]struct {
		Type       string `yaml:"Type"`
		Properties struct {
			opsFunction     `yaml:",inline"`
			RetentionInDays samtemplate.Value `yaml:"RetentionInDays"`
			RedrivePolicy   *struct {
				DeadLetterTargetArn samtemplate.Value `yaml:"deadLetterTargetArn"`
			} `yaml:"RedrivePolicy"`
			Events map[string]struct {
				Type       string `yaml:"Type"`
				Properties struct {
					DeadLetterConfig *struct {
						Arn samtemplate.Value `yaml:"Arn"`
					} `yaml:"DeadLetterConfig"`
				} `yaml:"Properties"`
			} `yaml:"Events"`
			AccessLogSettings *struct {
				DestinationArn samtemplate.Value `yaml:"DestinationArn"`
				Format         string            `yaml:"Format"`
			} `yaml:"AccessLogSettings"`
			// An alarm on one metric, or on metric math over several.
			alarmMetric `yaml:",inline"`
			Metrics     []struct {
				MetricStat *struct {
					Metric alarmMetric `yaml:"Metric"`
				} `yaml:"MetricStat"`
			} `yaml:"Metrics"`
			AlarmActions []samtemplate.Value `yaml:"AlarmActions"`
		} `yaml:"Properties"`
	} `yaml:"Resources"`
}

type opsFunction struct {
	Tracing       string `yaml:"Tracing"`
	LoggingConfig *struct {
		LogGroup  samtemplate.Value `yaml:"LogGroup"`
		LogFormat string            `yaml:"LogFormat"`
	} `yaml:"LoggingConfig"`
}

type alarmMetric struct {
	Namespace  string `yaml:"Namespace"`
	MetricName string `yaml:"MetricName"`
	Dimensions []struct {
		Name  string            `yaml:"Name"`
		Value samtemplate.Value `yaml:"Value"`
	} `yaml:"Dimensions"`
}

// ofType returns the LogicalIds of the resources of a type, sorted.
func (d *opsDoc) ofType(typ string) []string {
	var out []string
	for _, id := range slices.Sorted(maps.Keys(d.Resources)) {
		if d.Resources[id].Type == typ {
			out = append(out, id)
		}
	}
	return out
}

// alarmedQueues returns, per SQS metric name, the queues some alarm watches with it.
func (d *opsDoc) alarmedQueues() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, id := range d.ofType("AWS::CloudWatch::Alarm") {
		p := d.Resources[id].Properties
		metrics := []alarmMetric{p.alarmMetric}
		for _, m := range p.Metrics {
			if m.MetricStat != nil {
				metrics = append(metrics, m.MetricStat.Metric)
			}
		}
		for _, m := range metrics {
			for _, dim := range m.Dimensions {
				if m.Namespace == "AWS/SQS" && dim.Name == "QueueName" && dim.Value.Fn == samtemplate.FnGetAtt && dim.Value.Attr == "QueueName" {
					if out[m.MetricName] == nil {
						out[m.MetricName] = map[string]bool{}
					}
					out[m.MetricName][dim.Value.Target] = true
				}
			}
		}
	}
	return out
}

// logGroupWithRetention reports what is wrong with v as the log group of what: it must
// name a log group of the template whose retention is set.
func (d *opsDoc) logGroupWithRetention(what string, v samtemplate.Value) []string {
	id := v.Target
	if (v.Fn != samtemplate.FnRef && !(v.Fn == samtemplate.FnGetAtt && v.Attr == "Arn")) || d.Resources[id].Type != "AWS::Logs::LogGroup" {
		return []string{fmt.Sprintf("%s: log group %v, want a log group of the template", what, v)}
	}
	if d.Resources[id].Properties.RetentionInDays.IsZero() {
		return []string{fmt.Sprintf("%s: log group %s has no RetentionInDays", what, id)}
	}
	return nil
}

// opsRules are the template's operations rules, checked by TestOperationsRules.
var opsRules = map[string]func(d *opsDoc) []string{
	// A message in a dead-letter queue is work the service gave up on: someone must hear.
	"every dead-letter queue has an alarm on its depth": func(d *opsDoc) (out []string) {
		dlqs := map[string]bool{}
		for _, id := range slices.Sorted(maps.Keys(d.Resources)) {
			p := d.Resources[id].Properties
			if p.RedrivePolicy != nil {
				dlqs[p.RedrivePolicy.DeadLetterTargetArn.Target] = true
			}
			for _, ev := range p.Events {
				if ev.Properties.DeadLetterConfig != nil {
					dlqs[ev.Properties.DeadLetterConfig.Arn.Target] = true
				}
			}
		}
		if len(dlqs) == 0 {
			return []string{"no dead-letter queues found"}
		}
		alarmed := d.alarmedQueues()["ApproximateNumberOfMessagesVisible"]
		for _, q := range slices.Sorted(maps.Keys(dlqs)) {
			if !alarmed[q] {
				out = append(out, fmt.Sprintf("dead-letter queue %s: no alarm on its ApproximateNumberOfMessagesVisible", q))
			}
		}
		return out
	},
	// A worker that stopped or cannot keep up shows as the age of its queue's oldest message.
	"every work queue has an alarm on its oldest message's age": func(d *opsDoc) (out []string) {
		alarmed := d.alarmedQueues()["ApproximateAgeOfOldestMessage"]
		for _, id := range d.ofType("AWS::SQS::Queue") {
			if d.Resources[id].Properties.RedrivePolicy != nil && !alarmed[id] {
				out = append(out, fmt.Sprintf("work queue %s: no alarm on its ApproximateAgeOfOldestMessage", id))
			}
		}
		return out
	},
	"every alarm notifies the alarm topic": func(d *opsDoc) (out []string) {
		for _, id := range d.ofType("AWS::CloudWatch::Alarm") {
			if !slices.ContainsFunc(d.Resources[id].Properties.AlarmActions, func(v samtemplate.Value) bool {
				return v.Fn == samtemplate.FnRef && v.Target == "AlarmTopic"
			}) {
				out = append(out, fmt.Sprintf("alarm %s: AlarmActions %v, want !Ref AlarmTopic", id, d.Resources[id].Properties.AlarmActions))
			}
		}
		return out
	},
	// Logs kept forever cost forever, and hold what they hold forever.
	"every function and the API's access log write to log groups with retention": func(d *opsDoc) (out []string) {
		global := d.Globals.Function.LoggingConfig
		if global == nil || global.LogFormat != "JSON" {
			return []string{"Globals Function: LoggingConfig with LogFormat JSON wanted"}
		}
		out = append(out, d.logGroupWithRetention("Globals Function", global.LogGroup)...)
		for _, id := range d.ofType("AWS::Serverless::Function") {
			if lc := d.Resources[id].Properties.LoggingConfig; lc != nil {
				out = append(out, d.logGroupWithRetention(id, lc.LogGroup)...)
			}
		}
		for _, id := range d.ofType("AWS::Serverless::HttpApi") {
			al := d.Resources[id].Properties.AccessLogSettings
			if al == nil {
				out = append(out, fmt.Sprintf("%s: no AccessLogSettings", id))
				continue
			}
			out = append(out, d.logGroupWithRetention(id+" access log", al.DestinationArn)...)
			for _, field := range []string{"$context.requestId", "$context.authorizer.accountId", "$context.routeKey", "$context.status", "$context.responseLatency", "$context.integrationLatency"} {
				if !strings.Contains(al.Format, `"`+field+`"`) {
					out = append(out, fmt.Sprintf("%s: access log format lacks %s", id, field))
				}
			}
		}
		for _, id := range d.ofType("AWS::Logs::LogGroup") {
			if d.Resources[id].Properties.RetentionInDays.IsZero() {
				out = append(out, fmt.Sprintf("log group %s has no RetentionInDays", id))
			}
		}
		return out
	},
	// The execution roles grant the X-Ray writes (TestEveryRoleGrantsExactlyItsFunctionsNeeds).
	"every function traces actively": func(d *opsDoc) (out []string) {
		if d.Globals.Function.Tracing != "Active" {
			out = append(out, fmt.Sprintf("Globals Function: Tracing %q, want Active", d.Globals.Function.Tracing))
		}
		for _, id := range d.ofType("AWS::Serverless::Function") {
			if tr := d.Resources[id].Properties.Tracing; tr != "" && tr != "Active" {
				out = append(out, fmt.Sprintf("%s: Tracing %q, want Active", id, tr))
			}
		}
		return out
	},
}

func parseOpsDoc(t *testing.T, src []byte) *opsDoc {
	t.Helper()
	var d opsDoc
	if err := yaml.Unmarshal(src, &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

// breach is template.yaml's source with the first old replaced by new.
func breach(t *testing.T, src, old, new string) []byte {
	t.Helper()
	if !strings.Contains(src, old) {
		t.Fatalf("template.yaml has no %q", old)
	}
	return []byte(strings.Replace(src, old, new, 1))
}

// templateSource is template.yaml as it is.
func TestOperationsRules(t *testing.T) {
	d := parseOpsDoc(t, templateSource(t))
	for _, name := range slices.Sorted(maps.Keys(opsRules)) {
		t.Run(name, func(t *testing.T) {
			for _, v := range opsRules[name](d) {
				t.Error(v)
			}
		})
	}
}

// TestOperationsRulesCatchTheirBreach breaks template.yaml once for every rule: each
// must then report a violation.
func TestOperationsRulesCatchTheirBreach(t *testing.T) {
	src := string(templateSource(t))
	tests := []struct {
		rule, old, new string
	}{
		{"every dead-letter queue has an alarm on its depth", "Value: !GetAtt JobsDeadLetterQueue.QueueName", "Value: !GetAtt ImportDeadLetterQueue.QueueName"},
		{"every dead-letter queue has an alarm on its depth", "Value: !GetAtt ScheduleDeadLetterQueue.QueueName", "Value: !GetAtt ImportDeadLetterQueue.QueueName"},
		{"every work queue has an alarm on its oldest message's age", "Value: !GetAtt RecomputeQueue.QueueName", "Value: !GetAtt JobsQueue.QueueName"},
		{"every alarm notifies the alarm topic", "AlarmActions: [!Ref AlarmTopic]", "AlarmActions: []"},
		{"every function and the API's access log write to log groups with retention", "      LogGroup: !Ref ApplicationLogGroup\n", ""},
		{"every function and the API's access log write to log groups with retention", "      RetentionInDays: !Ref LogRetentionDays\n", ""},
		{"every function and the API's access log write to log groups with retention", "DestinationArn: !GetAtt ApiAccessLogGroup.Arn", "DestinationArn: !GetAtt AlarmTopic.Arn"},
		{"every function and the API's access log write to log groups with retention", `"accountId":"$context.authorizer.accountId",`, ""},
		{"every function traces actively", "    Tracing: Active\n", "    Tracing: PassThrough\n"},
	}
	for _, tc := range tests {
		t.Run(tc.rule+": "+strings.TrimSpace(tc.new), func(t *testing.T) {
			d := parseOpsDoc(t, breach(t, src, tc.old, tc.new))
			if v := opsRules[tc.rule](d); len(v) == 0 {
				t.Errorf("no violation reported")
			}
		})
	}
}
