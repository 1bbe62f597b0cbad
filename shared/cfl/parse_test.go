package cfl

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want []Condition
	}{
		{"currency~ANY~'USD'", []Condition{{Filter: "currency", Operator: Any, Values: []Value{{"USD", true}},
			Text: "currency~ANY~'USD'"}}},
		{"region~ANY~'US','FR','DE'~AND~mrr~GT~150", []Condition{
			{Filter: "region", Operator: Any, Values: []Value{{"US", true}, {"FR", true}, {"DE", true}},
				Text: "region~ANY~'US','FR','DE'"},
			{Filter: "mrr", Operator: Gt, Values: []Value{{"150", false}}, Text: "mrr~GT~150"}}},
		{"active_quantity~BETWEEN~0,11", []Condition{{Filter: "active_quantity", Operator: Between,
			Values: []Value{{"0", false}, {"11", false}}, Text: "active_quantity~BETWEEN~0,11"}}},
		// Operators in any case, spaces around values, quotes doubled or escaped, a
		// tilde and a comma inside quotes.
		{"tags~any~ 'a''b' , 'c\\'d','x~y,z'", []Condition{{Filter: "tags", Operator: Any,
			Values: []Value{{"a'b", true}, {"c'd", true}, {"x~y,z", true}}, Text: "tags~any~ 'a''b' , 'c\\'d','x~y,z'"}}},
		{"plan~ANY~pl_1~and~plan_group~ANY~plg_2", []Condition{
			{Filter: "plan", Operator: Any, Values: []Value{{"pl_1", false}}, Text: "plan~ANY~pl_1"},
			{Filter: "plan_group", Operator: Any, Values: []Value{{"plg_2", false}}, Text: "plan_group~ANY~plg_2"}}},
		{"custom.tier~IS~null", []Condition{{Filter: "custom.tier", Operator: Is, Values: []Value{{"null", false}},
			Text: "custom.tier~IS~null"}}},
		{"custom.note~EQ~''", []Condition{{Filter: "custom.note", Operator: Eq, Values: []Value{{"", true}},
			Text: "custom.note~EQ~''"}}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q) =\n %+v\nwant\n %+v", tt.in, got, tt.want)
		}
	}
}

// TestParseMalformed checks that every malformed expression is refused with a message
// that names the offending part.
func TestParseMalformed(t *testing.T) {
	tests := []struct {
		in, reason, part string
	}{
		{"", "empty", ""},
		{"   ", "empty", ""},
		{"currency", "no operator", "currency"},
		{"currency~", "no operator", "currency~"},
		{"currency~ANY", "no value", "currency~ANY"},
		{"currency~ANY~", "value is missing", "currency~ANY~"},
		{"currency~ANY~'USD',", "value is missing", "currency~ANY~'USD',"},
		{"currency~ANY~,'USD'", "value is missing", "currency~ANY~,'USD'"},
		{"currency~ANYTHING~'USD'", "Unknown operator", "ANYTHING"},
		{"~ANY~'USD'", "no filter name", "~"},
		{"curr ency~ANY~'USD'", "filter name may hold only", "curr ency"},
		{"currency~ANY~'USD", "not closed", "'USD"},
		{"currency~ANY~US'D'", "quote inside a bare value", "US'D'"},
		{"currency~ANY~'USD' 'EUR'", "separated by commas", "currency~ANY~'USD' 'EUR'"},
		{"currency~ANY~'USD'~OR~region~ANY~'US'", "only be joined with AND", "~OR~region~ANY~'US'"},
		{"currency~ANY~'USD'~region~ANY~'US'", "Expected ~AND~", "~region~ANY~'US'"},
		{"currency~ANY~'USD'~AND~", "ends with ~AND~", "currency~ANY~'USD'~AND~"},
		{"currency~ANY~'USD'~", "Expected ~AND~", "currency~ANY~'USD'~"},
		{strings.Repeat("x", MaxLength+1), "longer than", ""},
		{strings.Repeat("mrr~GT~1~AND~", MaxConditions) + "mrr~GT~1", "more than", "mrr~GT~1"},
		{"tags~ANY~" + strings.Repeat("'a',", MaxValues) + "'a'", "at most", "tags~ANY~"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("Parse(%.40q) = %v, want a *cfl.Error", tt.in, err)
			continue
		}
		if !strings.Contains(e.Reason, tt.reason) || !strings.Contains(e.Part, tt.part) {
			t.Errorf("Parse(%.40q) = %q (part %q), want a reason with %q naming %q", tt.in, e.Reason, e.Part, tt.reason, tt.part)
		}
		if tt.part != "" && !strings.Contains(e.Error(), tt.part) {
			t.Errorf("message %q does not name %q", e.Error(), tt.part)
		}
	}
}
