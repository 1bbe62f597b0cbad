package samtemplate

import (
	"cmp"
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

func readScheduleEvent(name string, props *yaml.Node) (ScheduleEvent, error) {
	var re struct {
		Schedule           string `yaml:"Schedule"`           // Schedule
		ScheduleExpression string `yaml:"ScheduleExpression"` // ScheduleV2
		Enabled            *bool  `yaml:"Enabled"`
		State              string `yaml:"State"`
	}
	if err := decode(props, &re); err != nil {
		return ScheduleEvent{}, err
	}
	ev := ScheduleEvent{Name: name, Expression: strings.TrimSpace(cmp.Or(re.Schedule, re.ScheduleExpression)),
		Enabled: first(re.Enabled, nil, true) && re.State != "DISABLED"}
	var err error
	ev.Every, err = ratePeriod(ev.Expression)
	return ev, err
}

// ratePeriod reads the period of rate(<n> <unit>) as EventBridge writes it: minute,
// hour or day, singular for 1 and plural otherwise. Other expressions (cron, at) have
// no period.
func ratePeriod(expr string) (time.Duration, error) {
	inner, ok := strings.CutPrefix(expr, "rate(")
	if !ok {
		return 0, nil
	}
	count, unit, _ := strings.Cut(strings.TrimSuffix(inner, ")"), " ")
	n, err := strconv.Atoi(count)
	d, known := map[string]time.Duration{"minute": time.Minute, "hour": time.Hour, "day": 24 * time.Hour}[strings.TrimSuffix(unit, "s")]
	if err != nil || n < 1 || !known || !strings.HasSuffix(inner, ")") || (n == 1) == strings.HasSuffix(unit, "s") {
		return 0, fmt.Errorf("schedule %q is not rate(<n> minute|hour|day), plural when n is not 1", expr)
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
