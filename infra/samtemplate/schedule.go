package samtemplate

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// ScheduleEvent is an event of Type Schedule (an EventBridge rule) or ScheduleV2 (an
// EventBridge Scheduler schedule).
type ScheduleEvent struct {
	Name string
	// Expression is the schedule as written: rate(5 minutes), cron(0 * * * ? *), at(...).
	Expression string
	// Every is the period of a rate() expression; 0 for cron() and at().
	Every   time.Duration
	Enabled bool
}

// ScheduleMapping is a schedule invoking a function: the local scheduler's view.
type ScheduleMapping struct {
	Function string
	ScheduleEvent
}

type rawScheduleEvent struct {
	Schedule         string    `yaml:"Schedule"`
	Enabled          *bool     `yaml:"Enabled"`
	State            string    `yaml:"State"`
	Name             yaml.Node `yaml:"Name"`
	Description      yaml.Node `yaml:"Description"`
	Input            yaml.Node `yaml:"Input"`
	DeadLetterConfig yaml.Node `yaml:"DeadLetterConfig"`
	RetryPolicy      yaml.Node `yaml:"RetryPolicy"`
}

type rawScheduleV2Event struct {
	ScheduleExpression         string    `yaml:"ScheduleExpression"`
	ScheduleExpressionTimezone string    `yaml:"ScheduleExpressionTimezone"`
	State                      string    `yaml:"State"`
	FlexibleTimeWindow         yaml.Node `yaml:"FlexibleTimeWindow"`
	Name                       yaml.Node `yaml:"Name"`
	Description                yaml.Node `yaml:"Description"`
	GroupName                  yaml.Node `yaml:"GroupName"`
	Input                      yaml.Node `yaml:"Input"`
	StartDate                  yaml.Node `yaml:"StartDate"`
	EndDate                    yaml.Node `yaml:"EndDate"`
	KmsKeyArn                  yaml.Node `yaml:"KmsKeyArn"`
	OmitName                   yaml.Node `yaml:"OmitName"`
	PermissionsBoundary        yaml.Node `yaml:"PermissionsBoundary"`
	RoleArn                    yaml.Node `yaml:"RoleArn"`
	DeadLetterConfig           yaml.Node `yaml:"DeadLetterConfig"`
	RetryPolicy                yaml.Node `yaml:"RetryPolicy"`
}

// parseScheduleEvent reads the Properties of a Schedule or ScheduleV2 event.
func parseScheduleEvent(name, typ string, props *yaml.Node) (ScheduleEvent, error) {
	var expr, state string
	var enabled *bool
	if typ == "Schedule" {
		var re rawScheduleEvent
		if err := strict(props, &re); err != nil {
			return ScheduleEvent{}, err
		}
		expr, state, enabled = re.Schedule, re.State, re.Enabled
		if enabled != nil && state != "" {
			return ScheduleEvent{}, errors.New("Enabled and State cannot both be set")
		}
	} else {
		var re rawScheduleV2Event
		if err := strict(props, &re); err != nil {
			return ScheduleEvent{}, err
		}
		expr, state = re.ScheduleExpression, re.State
	}
	ev := ScheduleEvent{Name: name, Expression: strings.TrimSpace(expr), Enabled: true}
	if enabled != nil {
		ev.Enabled = *enabled
	}
	switch state {
	case "", "ENABLED":
	case "DISABLED":
		ev.Enabled = false
	default:
		return ScheduleEvent{}, fmt.Errorf("State %q is not ENABLED or DISABLED", state)
	}
	every, err := parseScheduleExpression(ev.Expression)
	if err != nil {
		return ScheduleEvent{}, err
	}
	ev.Every = every
	return ev, nil
}

// parseScheduleExpression checks an EventBridge schedule expression and returns the
// period of a rate(); cron() and at() are only checked for shape.
func parseScheduleExpression(expr string) (time.Duration, error) {
	inner, ok := func() (string, bool) {
		open := strings.IndexByte(expr, '(')
		if open < 0 || !strings.HasSuffix(expr, ")") {
			return "", false
		}
		return expr[open+1 : len(expr)-1], true
	}()
	switch {
	case expr == "":
		return 0, errors.New("no schedule expression")
	case !ok:
		return 0, fmt.Errorf("schedule %q is not rate(...), cron(...) or at(...)", expr)
	case strings.HasPrefix(expr, "rate("):
		return parseRate(inner)
	case strings.HasPrefix(expr, "cron("):
		if n := len(strings.Fields(inner)); n != 6 {
			return 0, fmt.Errorf("schedule %q: cron needs 6 fields, has %d", expr, n)
		}
		return 0, nil
	case strings.HasPrefix(expr, "at("):
		if _, err := time.Parse("2006-01-02T15:04:05", inner); err != nil {
			return 0, fmt.Errorf("schedule %q: at() needs yyyy-mm-ddThh:mm:ss", expr)
		}
		return 0, nil
	}
	return 0, fmt.Errorf("schedule %q is not rate(...), cron(...) or at(...)", expr)
}

// parseRate reads "N unit"; EventBridge wants the singular unit for 1 and the plural
// otherwise.
func parseRate(s string) (time.Duration, error) {
	fields := strings.Fields(s)
	if len(fields) != 2 {
		return 0, fmt.Errorf("rate(%s) is not rate(<number> <unit>)", s)
	}
	n, err := strconv.Atoi(fields[0])
	if err != nil || n < 1 {
		return 0, fmt.Errorf("rate(%s): %q is not a positive whole number", s, fields[0])
	}
	units := map[string]time.Duration{"minute": time.Minute, "hour": time.Hour, "day": 24 * time.Hour}
	unit := fields[1]
	if n != 1 {
		if !strings.HasSuffix(unit, "s") {
			return 0, fmt.Errorf("rate(%s): the unit must be plural (%ss)", s, unit)
		}
		unit = strings.TrimSuffix(unit, "s")
	}
	d, ok := units[unit]
	if !ok {
		return 0, fmt.Errorf("rate(%s): unknown unit %q (minute, hour or day; plural when not 1)", s, fields[1])
	}
	return time.Duration(n) * d, nil
}

// Schedules lists the schedule events of every function, sorted by function then event.
func (t *Template) Schedules() []ScheduleMapping {
	var out []ScheduleMapping
	for _, f := range t.Functions {
		for _, ev := range f.ScheduleEvents {
			out = append(out, ScheduleMapping{Function: f.LogicalID, ScheduleEvent: ev})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Function != out[j].Function {
			return out[i].Function < out[j].Function
		}
		return out[i].Name < out[j].Name
	})
	return out
}
