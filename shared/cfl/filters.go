package cfl

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/model"
)

// Level says what a filter selects: customers (the series of the customers that
// match) or subscriptions (each customer's MRR restricted to the matching ones).
type Level string

// The levels of the filter table.
const (
	CustomerLevel     Level = "customer"
	SubscriptionLevel Level = "subscription"
)

// Spec describes one served filter: its name, level, operators and the values it
// accepts (docs/metrics-api.md lists them).
type Spec struct {
	Name      string
	Level     Level
	Operators []Operator
	Accepts   string
}

var (
	setOps        = []Operator{Any, None}
	multiSetOps   = []Operator{All, Any, None}
	compareOps    = []Operator{Eq, NotEq, Gt, Gte, Lt, Lte, Between}
	dateOps       = []Operator{Eq, NotEq, Gt, Gte, Lt, Lte, Between, Is, IsNot}
	identityOps   = []Operator{Is, IsNot}
	customerStats = strings.Join(model.CustomerStatuses, "', '")
)

// Filters is the table of the filters served, in the order docs/metrics-api.md lists
// them; custom attributes (`custom.<key>`) follow it, their operators by type
// (customSpec).
var Filters = []Spec{
	{"plan", SubscriptionLevel, setOps, "plan uuids, external ids or names"},
	{"plan_group", SubscriptionLevel, setOps, "plan group uuids"},
	{"region", CustomerLevel, append(slices.Clone(setOps), identityOps...),
		"ISO 3166-1 alpha-2 country codes ('US') or ISO 3166-2 US state codes ('US-CA'); null"},
	{"country", CustomerLevel, append(slices.Clone(setOps), identityOps...), "ISO 3166-1 alpha-2 country codes; null"},
	{"currency", CustomerLevel, multiSetOps, "ISO 4217 currency codes of the customer's invoices"},
	{"tags", CustomerLevel, append(slices.Clone(multiSetOps), identityOps...), "tags (any case); null: no tag"},
	{"mrr", CustomerLevel, compareOps, "amounts in the account's currency, major units (150 or 149.99)"},
	{"active_quantity", CustomerLevel, compareOps, "integers: the quantities of the active subscriptions, summed"},
	{"customer_since", CustomerLevel, dateOps, "dates (YYYY-MM-DD, the account's time zone); null"},
	{"lead_created_at", CustomerLevel, dateOps, "dates (YYYY-MM-DD, the account's time zone); null"},
	{"free_trial_started_at", CustomerLevel, dateOps, "dates (YYYY-MM-DD, the account's time zone); null"},
	{"status", CustomerLevel, setOps, "customer statuses ('" + customerStats + "', spaces or underscores)"},
	{"data_source", CustomerLevel, setOps, "data source uuids"},
}

// CustomPrefix starts the name of a custom attribute filter: `custom.<key>`.
const CustomPrefix = "custom."

// customSpec is the filter of a custom attribute of type t.
func customSpec(key string, t model.AttrType) Spec {
	s := Spec{Name: CustomPrefix + key, Level: CustomerLevel}
	switch t {
	case model.AttrString:
		s.Operators = []Operator{Any, None, Eq, NotEq, Contains, NotContains, Is, IsNot}
		s.Accepts = "strings (exact; CONTAINS ignores case); null"
	case model.AttrInteger, model.AttrDecimal:
		s.Operators = append(slices.Clone(compareOps), identityOps...)
		s.Accepts = "numbers; null"
	case model.AttrTimestamp:
		s.Operators = dateOps
		s.Accepts = "dates (YYYY-MM-DD, the account's time zone) or times (RFC 3339); null"
	case model.AttrBoolean:
		s.Operators = []Operator{Eq, NotEq, Is, IsNot}
		s.Accepts = "true, false; null"
	}
	return s
}

// Schema is what Compile needs of the account: the types of its customers' custom
// attributes, and its time zone (dates are the account's civil dates).
type Schema struct {
	Custom   map[string]model.AttrType
	Location *time.Location
}

// PlanCondition is a plan or plan_group condition: the plans it names (as written;
// the caller resolves them) and whether it selects them (ANY) or every other plan
// (NONE).
type PlanCondition struct {
	Group  bool
	Negate bool
	Values []string
	Text   string
}

// Query is a compiled expression. A subscription counts when its plan is selected by
// any of Plans (plan and plan_group conditions match either one, as ChartMogul's);
// a customer counts when every customer condition holds.
type Query struct {
	Plans     []PlanCondition
	customer  []test
	countries []string // when every customer condition is region/country ANY of countries
	onlyGeo   bool
}

type test func(model.Customer) bool

// SelectsCustomers reports whether some condition selects customers by attribute.
func (q Query) SelectsCustomers() bool { return len(q.customer) > 0 }

// Matches reports whether the customer passes every customer condition.
func (q Query) Matches(c model.Customer) bool {
	for _, t := range q.customer {
		if !t(c) {
			return false
		}
	}
	return true
}

// Countries is, when the only customer conditions are `region` or `country` ANY
// with country codes, the countries every one of them allows (their intersection),
// and true: such a query can read the stored country series instead of the customers.
func (q Query) Countries() ([]string, bool) {
	if !q.onlyGeo || len(q.customer) == 0 {
		return nil, false
	}
	return q.countries, true
}

// Compile checks every condition against the filter table and the schema.
func Compile(conds []Condition, s Schema) (Query, error) {
	if s.Location == nil {
		s.Location = time.UTC
	}
	q := Query{onlyGeo: true}
	for _, c := range conds {
		spec, ok := lookup(c.Filter, s)
		if !ok {
			return Query{}, unknownFilter(c, s)
		}
		if !slices.Contains(spec.Operators, c.Operator) {
			return Query{}, errorf(c.Text, "The filter %s does not take the operator %s (it takes %s)", spec.Name,
				c.Operator, joinOps(spec.Operators))
		}
		if err := checkArity(c); err != nil {
			return Query{}, err
		}
		if spec.Level == SubscriptionLevel {
			pc := PlanCondition{Group: spec.Name == "plan_group", Negate: c.Operator == None, Text: c.Text}
			for _, v := range c.Values {
				if v.Text == "" {
					return Query{}, errorf(c.Text, "A plan value is empty")
				}
				pc.Values = append(pc.Values, v.Text)
			}
			q.Plans = append(q.Plans, pc)
			continue
		}
		t, countries, err := compileCustomer(spec, c, s)
		if err != nil {
			return Query{}, err
		}
		q.customer = append(q.customer, t)
		if countries == nil {
			q.onlyGeo = false
		} else if len(q.customer) == 1 {
			q.countries = countries
		} else {
			q.countries = slices.DeleteFunc(q.countries, func(c string) bool { return !slices.Contains(countries, c) })
		}
	}
	return q, nil
}

func lookup(name string, s Schema) (Spec, bool) {
	if key, ok := strings.CutPrefix(name, CustomPrefix); ok {
		t, defined := s.Custom[key]
		if !defined {
			return Spec{}, false
		}
		return customSpec(key, t), true
	}
	for _, f := range Filters {
		if f.Name == name {
			return f, true
		}
	}
	return Spec{}, false
}

func unknownFilter(c Condition, s Schema) *Error {
	if key, ok := strings.CutPrefix(c.Filter, CustomPrefix); ok {
		return errorf(c.Text, "The account's customers have no custom attribute %q", key)
	}
	names := make([]string, 0, len(Filters)+1)
	for _, f := range Filters {
		names = append(names, f.Name)
	}
	return errorf(c.Text, "Unknown filter %q (one of %s, or custom.<key> for a custom attribute)", c.Filter,
		strings.Join(names, ", "))
}

func joinOps(ops []Operator) string {
	out := make([]string, len(ops))
	for i, o := range ops {
		out[i] = string(o)
	}
	return strings.Join(out, ", ")
}

func checkArity(c Condition) *Error {
	n := len(c.Values)
	switch c.Operator.Family() {
	case ComparisonFamily, ContainmentFamily, IdentityFamily:
		if n != 1 {
			return errorf(c.Text, "The operator %s takes exactly one value, not %d", c.Operator, n)
		}
	case RangeFamily:
		if n != 2 {
			return errorf(c.Text, "The operator BETWEEN takes two values (low,high), not %d", n)
		}
	}
	return nil
}

// compileCustomer builds the test of a customer condition; countries is set for a
// region or country ANY of country codes (the stored country series can answer it).
func compileCustomer(spec Spec, c Condition, s Schema) (t test, countries []string, err error) {
	if c.Operator.Family() == IdentityFamily {
		return compileIdentity(spec, c, s)
	}
	switch spec.Name {
	case "region", "country":
		var set []string
		for _, v := range c.Values {
			code, err := regionValue(spec.Name, v.Text)
			if err != nil {
				return nil, nil, errorf(c.Text, "%s", err)
			}
			set = append(set, code)
		}
		t = setTest(c.Operator, set, func(cu model.Customer) []string { return regionsOf(cu) })
		if c.Operator == Any && !slices.ContainsFunc(set, func(s string) bool { return strings.Contains(s, "-") }) {
			countries = set
		}
		return t, countries, nil
	case "currency":
		var set []string
		for _, v := range c.Values {
			code := strings.ToUpper(strings.TrimSpace(v.Text))
			if !slices.Contains(model.Currencies, code) {
				return nil, nil, errorf(c.Text, "%q is not an ISO 4217 currency code", v.Text)
			}
			set = append(set, code)
		}
		return setTest(c.Operator, set, func(cu model.Customer) []string { return cu.BillingCurrencies }), nil, nil
	case "tags":
		set := make([]string, len(c.Values))
		for i, v := range c.Values {
			set[i] = strings.ToLower(strings.TrimSpace(v.Text))
		}
		return setTest(c.Operator, set, func(cu model.Customer) []string { return lower(cu.Tags) }), nil, nil
	case "status":
		var set []string
		for _, v := range c.Values {
			st, ok := model.NormalizeStatus(v.Text)
			if !ok {
				return nil, nil, errorf(c.Text, "%q is not a customer status (one of '%s')", v.Text, customerStats)
			}
			set = append(set, st)
		}
		return setTest(c.Operator, set, func(cu model.Customer) []string { return []string{cu.Status} }), nil, nil
	case "data_source":
		set := make([]string, len(c.Values))
		for i, v := range c.Values {
			set[i] = strings.TrimSpace(v.Text)
		}
		return setTest(c.Operator, set, func(cu model.Customer) []string { return cu.DataSourceUUIDs }), nil, nil
	case "mrr":
		return numberTest(c, moneyValue, func(cu model.Customer) (float64, bool) { return float64(cu.MRR), true })
	case "active_quantity":
		return numberTest(c, integerValue, func(cu model.Customer) (float64, bool) { return float64(cu.ActiveQuantity), true })
	case "customer_since":
		return dateTest(c, s.Location, func(cu model.Customer) *time.Time { return cu.CustomerSince })
	case "lead_created_at":
		return dateTest(c, s.Location, func(cu model.Customer) *time.Time { return cu.LeadCreatedAt })
	case "free_trial_started_at":
		return dateTest(c, s.Location, func(cu model.Customer) *time.Time { return cu.FreeTrialStartedAt })
	}
	return compileCustom(spec, c, s)
}

// regionsOf is what region and country conditions compare: the customer's country
// and, in the United States, its state as US-XX.
func regionsOf(c model.Customer) []string {
	if c.Country == "" {
		return nil
	}
	out := []string{c.Country}
	if c.Country == "US" && c.State != "" {
		out = append(out, "US-"+c.State)
	}
	return out
}

func regionValue(filter, v string) (string, error) {
	code := strings.ToUpper(strings.TrimSpace(v))
	if filter == "region" && strings.HasPrefix(code, "US-") {
		if _, err := model.USState(code); err != nil {
			return "", fmt.Errorf("%q is not an ISO 3166-2 US state code", v)
		}
		return code, nil
	}
	if c, err := model.Country(code); err != nil || c == "" {
		return "", fmt.Errorf("%q is not an ISO 3166-1 alpha-2 country code", v)
	}
	return code, nil
}

func lower(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = strings.ToLower(s)
	}
	return out
}

// setTest compares the customer's values with set: ANY at least one in common, ALL
// every one of set among them, NONE nothing in common (a customer without values
// matches NONE).
func setTest(op Operator, set []string, values func(model.Customer) []string) test {
	return func(c model.Customer) bool {
		have := values(c)
		switch op {
		case All:
			for _, s := range set {
				if !slices.Contains(have, s) {
					return false
				}
			}
			return true
		case None:
			return !slices.ContainsFunc(have, func(h string) bool { return slices.Contains(set, h) })
		default:
			return slices.ContainsFunc(have, func(h string) bool { return slices.Contains(set, h) })
		}
	}
}

// moneyValue reads an amount in major units into cents.
func moneyValue(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1e15 {
		return 0, fmt.Errorf("%q is not an amount (major units, such as 150 or 149.99)", s)
	}
	return math.Round(f * 100), nil
}

func integerValue(s string) (float64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not an integer", s)
	}
	return float64(n), nil
}

func decimalValue(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return f, nil
}

// numberTest compares a number of the customer (absent numbers match nothing but
// NOT_EQ) with the condition's values, read by parse.
func numberTest(c Condition, parse func(string) (float64, error), value func(model.Customer) (float64, bool)) (test, []string, error) {
	vals := make([]float64, len(c.Values))
	for i, v := range c.Values {
		x, err := parse(v.Text)
		if err != nil {
			return nil, nil, errorf(c.Text, "%s", err)
		}
		vals[i] = x
	}
	if c.Operator == Between && vals[0] > vals[1] {
		return nil, nil, errorf(c.Text, "BETWEEN's low value is above its high value")
	}
	cmp := compare(c.Operator, vals)
	return func(cu model.Customer) bool {
		x, ok := value(cu)
		if !ok {
			return c.Operator == NotEq
		}
		return cmp(x)
	}, nil, nil
}

func compare(op Operator, v []float64) func(float64) bool {
	switch op {
	case Eq:
		return func(x float64) bool { return x == v[0] }
	case NotEq:
		return func(x float64) bool { return x != v[0] }
	case Gt:
		return func(x float64) bool { return x > v[0] }
	case Gte:
		return func(x float64) bool { return x >= v[0] }
	case Lt:
		return func(x float64) bool { return x < v[0] }
	case Lte:
		return func(x float64) bool { return x <= v[0] }
	}
	return func(x float64) bool { return x >= v[0] && x <= v[1] } // BETWEEN, inclusive
}

// dateTest compares civil dates of the account's time zone: the customer's instant's
// date with the condition's dates.
func dateTest(c Condition, loc *time.Location, value func(model.Customer) *time.Time) (test, []string, error) {
	days, err := dayValues(c, loc, false)
	if err != nil {
		return nil, nil, err
	}
	cmp := compare(c.Operator, days)
	return func(cu model.Customer) bool {
		t := value(cu)
		if t == nil {
			return c.Operator == NotEq
		}
		return cmp(dayNumber(*t, loc))
	}, nil, nil
}

// dayValues reads dates (or, with times, RFC 3339 instants) as day numbers in loc.
func dayValues(c Condition, loc *time.Location, times bool) ([]float64, error) {
	out := make([]float64, len(c.Values))
	for i, v := range c.Values {
		text := strings.TrimSpace(v.Text)
		d, err := time.ParseInLocation(time.DateOnly, text, loc)
		if err != nil && times {
			d, err = time.Parse(time.RFC3339, text)
		}
		if err != nil {
			what := "a date (YYYY-MM-DD)"
			if times {
				what = "a date (YYYY-MM-DD) or time (RFC 3339)"
			}
			return nil, errorf(c.Text, "%q is not %s", v.Text, what)
		}
		out[i] = dayNumber(d, loc)
	}
	if c.Operator == Between && out[0] > out[1] {
		return nil, errorf(c.Text, "BETWEEN's low value is above its high value")
	}
	return out, nil
}

// dayNumber is the civil date of t in loc as days since 1970-01-01.
func dayNumber(t time.Time, loc *time.Location) float64 {
	y, m, d := t.In(loc).Date()
	return float64(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// compileIdentity builds IS / IS_NOT: null is "has no value"; true and false compare
// a Boolean custom attribute.
func compileIdentity(spec Spec, c Condition, s Schema) (test, []string, error) {
	v := strings.ToLower(strings.TrimSpace(c.Values[0].Text))
	if c.Values[0].Quoted {
		v = "'" + v + "'" // only the bare words null, true and false qualify
	}
	key, custom := strings.CutPrefix(spec.Name, CustomPrefix)
	boolean := custom && s.Custom[key] == model.AttrBoolean
	var is test
	switch {
	case v == "null":
		is = func(cu model.Customer) bool { return !hasValue(spec.Name, key, cu) }
	case boolean && (v == "true" || v == "false"):
		is = func(cu model.Customer) bool {
			a, ok := cu.Custom[key]
			return ok && !a.Null && a.Text == v
		}
	case boolean:
		return nil, nil, errorf(c.Text, "IS and IS_NOT take null, true or false")
	default:
		return nil, nil, errorf(c.Text, "IS and IS_NOT take null")
	}
	if c.Operator == IsNot {
		return func(cu model.Customer) bool { return !is(cu) }, nil, nil
	}
	return is, nil, nil
}

func hasValue(filter, key string, c model.Customer) bool {
	switch filter {
	case "region", "country":
		return c.Country != ""
	case "tags":
		return len(c.Tags) > 0
	case "customer_since":
		return c.CustomerSince != nil
	case "lead_created_at":
		return c.LeadCreatedAt != nil
	case "free_trial_started_at":
		return c.FreeTrialStartedAt != nil
	}
	a, ok := c.Custom[key]
	return ok && !a.Null
}

// compileCustom builds the tests of a custom attribute by its type.
func compileCustom(spec Spec, c Condition, s Schema) (test, []string, error) {
	key := strings.TrimPrefix(spec.Name, CustomPrefix)
	attr := func(cu model.Customer) (model.AttrValue, bool) {
		a, ok := cu.Custom[key]
		return a, ok && !a.Null
	}
	switch t := s.Custom[key]; t {
	case model.AttrString:
		return customString(c, attr)
	case model.AttrBoolean:
		v := strings.ToLower(strings.TrimSpace(c.Values[0].Text))
		if v != "true" && v != "false" {
			return nil, nil, errorf(c.Text, "%q is not true or false", c.Values[0].Text)
		}
		return func(cu model.Customer) bool {
			a, ok := attr(cu)
			return (ok && a.Text == v) == (c.Operator == Eq)
		}, nil, nil
	case model.AttrTimestamp:
		days, err := dayValues(c, s.Location, true)
		if err != nil {
			return nil, nil, err
		}
		cmp := compare(c.Operator, days)
		return func(cu model.Customer) bool {
			a, ok := attr(cu)
			if !ok {
				return c.Operator == NotEq
			}
			ts, err := time.Parse(time.RFC3339Nano, a.Text)
			return err == nil && cmp(dayNumber(ts, s.Location))
		}, nil, nil
	default: // Integer, Decimal
		parse := decimalValue
		if t == model.AttrInteger {
			parse = integerValue
		}
		return numberTest(c, parse, func(cu model.Customer) (float64, bool) {
			a, ok := attr(cu)
			if !ok {
				return 0, false
			}
			f, err := strconv.ParseFloat(a.Text, 64)
			return f, err == nil
		})
	}
}

func customString(c Condition, attr func(model.Customer) (model.AttrValue, bool)) (test, []string, error) {
	vals := make([]string, len(c.Values))
	for i, v := range c.Values {
		vals[i] = v.Text
	}
	switch c.Operator {
	case Contains, NotContains:
		needle := strings.ToLower(vals[0])
		return func(cu model.Customer) bool {
			a, ok := attr(cu)
			return (ok && strings.Contains(strings.ToLower(a.Text), needle)) == (c.Operator == Contains)
		}, nil, nil
	case Eq, NotEq:
		return func(cu model.Customer) bool {
			a, ok := attr(cu)
			return (ok && a.Text == vals[0]) == (c.Operator == Eq)
		}, nil, nil
	}
	return setTest(c.Operator, vals, func(cu model.Customer) []string {
		if a, ok := attr(cu); ok {
			return []string{a.Text}
		}
		return nil
	}), nil, nil
}
