// Package cfl reads the ChartMogul Filter Language: the Metrics API's `filters`
// parameter, conditions `filter~OPERATOR~value[,value…]` joined by `~AND~`. Parse checks
// the syntax; Compile checks each condition against the filters Subsight serves
// (filters.go) and splits the expression the way the metrics answer it: the plan and
// plan-group conditions restrict subscriptions, every other condition selects
// customers. The package is pure: no storage, no HTTP.
package cfl

import (
	"fmt"
	"strings"
)

// Operator is one CFL operator, as written (upper case).
type Operator string

// The operators, by family (docs/metrics-api.md, "Filters").
const (
	All         Operator = "ALL"
	Any         Operator = "ANY"
	None        Operator = "NONE"
	Eq          Operator = "EQ"
	NotEq       Operator = "NOT_EQ"
	Gt          Operator = "GT"
	Gte         Operator = "GTE"
	Lt          Operator = "LT"
	Lte         Operator = "LTE"
	Between     Operator = "BETWEEN"
	Contains    Operator = "CONTAINS"
	NotContains Operator = "NOT_CONTAINS"
	Is          Operator = "IS"
	IsNot       Operator = "IS_NOT"
)

// Family names a group of operators that read their values alike.
type Family string

// The operator families.
const (
	SetFamily         Family = "set"
	ComparisonFamily  Family = "comparison"
	RangeFamily       Family = "range"
	ContainmentFamily Family = "containment"
	IdentityFamily    Family = "identity"
)

var families = map[Operator]Family{
	All: SetFamily, Any: SetFamily, None: SetFamily,
	Eq: ComparisonFamily, NotEq: ComparisonFamily, Gt: ComparisonFamily, Gte: ComparisonFamily,
	Lt: ComparisonFamily, Lte: ComparisonFamily,
	Between:  RangeFamily,
	Contains: ContainmentFamily, NotContains: ContainmentFamily,
	Is: IdentityFamily, IsNot: IdentityFamily,
}

// Family is the operator's family ("" for an unknown operator).
func (o Operator) Family() Family { return families[o] }

// Value is one value of a condition: its text, and whether it was written in single
// quotes (strings) or bare (numbers, dates, uuids, true, false, null).
type Value struct {
	Text   string
	Quoted bool
}

// Condition is one `filter~OPERATOR~values` part of an expression.
type Condition struct {
	Filter   string
	Operator Operator
	Values   []Value
	Text     string // the condition as written, for error messages
}

// Error is a filter expression that cannot be used. Its message names the offending
// part as the client wrote it.
type Error struct {
	Part   string
	Reason string
}

func (e *Error) Error() string {
	if e.Part == "" {
		return e.Reason
	}
	return fmt.Sprintf("%s in %q", e.Reason, e.Part)
}

func errorf(part, format string, args ...any) *Error {
	return &Error{Part: part, Reason: fmt.Sprintf(format, args...)}
}

// Bounds that keep one expression cheap to check and to answer.
const (
	MaxLength     = 4000 // characters of the whole expression
	MaxConditions = 20
	MaxValues     = 100 // per condition
)

// Parse reads an expression. Separators are `~`; conditions are joined by `~AND~`
// only; a value is a single-quoted string (a quote inside is written twice or after a
// backslash) or a bare word; several values are separated by commas.
func Parse(s string) ([]Condition, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errorf("", "The filter expression is empty")
	}
	if len(s) > MaxLength {
		return nil, errorf("", "The filter expression is longer than %d characters", MaxLength)
	}
	p := parser{src: s}
	var out []Condition
	for {
		c, err := p.condition()
		if err != nil {
			return nil, err
		}
		out = append(out, c)
		if len(out) > MaxConditions {
			return nil, errorf(c.Text, "The filter expression has more than %d conditions", MaxConditions)
		}
		if p.done() {
			return out, nil
		}
		// condition() stops only at the end or at a `~` that must start `~AND~`.
		rest := p.src[p.pos:]
		if !strings.HasPrefix(strings.ToUpper(rest), "~AND~") {
			word := rest[1:]
			if i := strings.IndexByte(word, '~'); i >= 0 {
				word = word[:i]
			}
			if strings.EqualFold(word, "OR") {
				return nil, errorf(c.Text+rest, "Conditions can only be joined with AND, not OR")
			}
			return nil, errorf(c.Text+rest, "Expected ~AND~ between conditions")
		}
		p.pos += len("~AND~")
		if p.done() {
			return nil, errorf(s, "The filter expression ends with ~AND~ and no condition after it")
		}
	}
}

type parser struct {
	src string
	pos int
}

func (p *parser) done() bool { return p.pos >= len(p.src) }

// word reads up to the next `~` (or the end) and consumes the separator.
func (p *parser) word() (string, bool) {
	rest := p.src[p.pos:]
	i := strings.IndexByte(rest, '~')
	if i < 0 {
		p.pos = len(p.src)
		return rest, false
	}
	p.pos += i + 1
	return rest[:i], true
}

func (p *parser) condition() (Condition, error) {
	start := p.pos
	filter, sep := p.word()
	filter = strings.TrimSpace(filter)
	part := func() string { return p.src[start:min(p.pos, len(p.src))] }
	if filter == "" {
		return Condition{}, errorf(part(), "A condition has no filter name")
	}
	if !validFilterName(filter) {
		return Condition{}, errorf(filter, "A filter name may hold only letters, digits, '_' and '.'")
	}
	if !sep {
		return Condition{}, errorf(part(), "The condition has no operator (expected filter~OPERATOR~value)")
	}
	op, sep := p.word()
	op = strings.ToUpper(strings.TrimSpace(op))
	if op == "" {
		return Condition{}, errorf(part(), "The condition has no operator (expected filter~OPERATOR~value)")
	}
	if Operator(op).Family() == "" {
		return Condition{}, errorf(op, "Unknown operator (one of %s)", strings.Join(operatorNames(), ", "))
	}
	if !sep {
		return Condition{}, errorf(part(), "The condition has no value (expected filter~OPERATOR~value)")
	}
	values, err := p.values(start)
	if err != nil {
		return Condition{}, err
	}
	c := Condition{Filter: filter, Operator: Operator(op), Values: values, Text: strings.TrimSuffix(part(), "~")}
	if len(values) > MaxValues {
		return Condition{}, errorf(c.Text, "A condition can list at most %d values", MaxValues)
	}
	return c, nil
}

// values reads a comma-separated list up to the end or the `~` that follows it (left
// unconsumed); cond is where the condition starts, for messages.
func (p *parser) values(cond int) ([]Value, error) {
	var out []Value
	for {
		v, err := p.value(cond)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.skipSpaces()
		if p.done() || p.src[p.pos] == '~' {
			return out, nil
		}
		if p.src[p.pos] != ',' {
			return nil, errorf(p.src[cond:p.end()], "Values must be separated by commas")
		}
		p.pos++
	}
}

func (p *parser) skipSpaces() {
	for !p.done() && p.src[p.pos] == ' ' {
		p.pos++
	}
}

// end is the position of the next `~` outside quotes, or the end: the extent of the
// current values for error messages.
func (p *parser) end() int {
	if i := strings.IndexByte(p.src[p.pos:], '~'); i >= 0 {
		return p.pos + i
	}
	return len(p.src)
}

func (p *parser) value(cond int) (Value, error) {
	p.skipSpaces()
	if p.done() || p.src[p.pos] == '~' || p.src[p.pos] == ',' {
		return Value{}, errorf(p.src[cond:p.end()], "A value is missing")
	}
	if p.src[p.pos] != '\'' {
		i := p.pos
		for i < len(p.src) && p.src[i] != ',' && p.src[i] != '~' {
			if p.src[i] == '\'' {
				return Value{}, errorf(p.src[p.pos:p.end()], "A quote inside a bare value (quote the whole value: 'text')")
			}
			i++
		}
		text := strings.TrimSpace(p.src[p.pos:i])
		p.pos = i
		return Value{Text: text}, nil
	}
	open := p.pos
	var b strings.Builder
	for i := open + 1; i < len(p.src); i++ {
		switch c := p.src[i]; {
		case c == '\\' && i+1 < len(p.src) && (p.src[i+1] == '\'' || p.src[i+1] == '\\'):
			b.WriteByte(p.src[i+1])
			i++
		case c == '\'' && i+1 < len(p.src) && p.src[i+1] == '\'':
			b.WriteByte('\'')
			i++
		case c == '\'':
			p.pos = i + 1
			return Value{Text: b.String(), Quoted: true}, nil
		default:
			b.WriteByte(c)
		}
	}
	return Value{}, errorf(p.src[open:], "A quoted value is not closed")
}

func validFilterName(s string) bool {
	for _, r := range s {
		if !(r == '_' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// operatorNames lists the operators in family order, for messages.
func operatorNames() []string {
	return []string{string(All), string(Any), string(None), string(Eq), string(NotEq), string(Gt), string(Gte),
		string(Lt), string(Lte), string(Between), string(Contains), string(NotContains), string(Is), string(IsNot)}
}
