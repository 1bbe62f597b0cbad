package cfl

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/subsight/subsight/shared/model"
)

func at(s string) *time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return &t
}

// customers is a small population with every attribute the filters read.
var customers = map[string]model.Customer{
	"ann": {Country: "US", State: "CA", Tags: []string{"VIP", "beta"}, BillingCurrencies: []string{"USD"},
		MRR: 15000, ActiveQuantity: 5, Status: model.StatusActive, DataSourceUUIDs: []string{"ds_a"},
		CustomerSince: at("2022-05-01T03:00:00Z"), LeadCreatedAt: at("2022-04-01T00:00:00Z"),
		Custom: map[string]model.AttrValue{
			"tier": {Type: model.AttrString, Text: "Enterprise"}, "seats": {Type: model.AttrInteger, Text: "40"},
			"score": {Type: model.AttrDecimal, Text: "7.5"}, "renewal": {Type: model.AttrTimestamp, Text: "2024-03-01T10:00:00.000Z"},
			"vip": {Type: model.AttrBoolean, Text: "true"}}},
	"bob": {Country: "FR", Tags: []string{"beta"}, BillingCurrencies: []string{"EUR", "USD"}, MRR: 4999,
		ActiveQuantity: 1, Status: model.StatusPastDue, DataSourceUUIDs: []string{"ds_b"},
		CustomerSince: at("2023-01-10T12:00:00Z"),
		Custom: map[string]model.AttrValue{
			"tier": {Type: model.AttrString, Text: "Startup plus"}, "seats": {Type: model.AttrInteger, Text: "3"},
			"vip": {Type: model.AttrBoolean, Text: "false"}, "score": {Type: model.AttrDecimal, Null: true}}},
	"cy": {Country: "DE", BillingCurrencies: []string{"EUR"}, Status: model.StatusCancelled,
		DataSourceUUIDs: []string{"ds_a", "ds_b"}, CustomerSince: at("2021-12-31T23:30:00Z"),
		FreeTrialStartedAt: at("2021-12-01T00:00:00Z")},
	"dee": {Status: model.StatusNewLead, DataSourceUUIDs: []string{"ds_a"}, LeadCreatedAt: at("2024-02-02T00:00:00Z")},
}

var schema = Schema{Custom: map[string]model.AttrType{"tier": model.AttrString, "seats": model.AttrInteger,
	"score": model.AttrDecimal, "renewal": model.AttrTimestamp, "vip": model.AttrBoolean}}

func matching(t *testing.T, expr string) []string {
	t.Helper()
	conds, err := Parse(expr)
	if err != nil {
		t.Fatalf("Parse(%q): %v", expr, err)
	}
	q, err := Compile(conds, schema)
	if err != nil {
		t.Fatalf("Compile(%q): %v", expr, err)
	}
	var out []string
	for name, c := range customers {
		if q.Matches(c) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// TestCustomerFilters runs every customer filter with each operator family it takes
// against a hand-checked population.
func TestCustomerFilters(t *testing.T) {
	tests := []struct {
		expr string
		want string // matching customers, comma-separated
	}{
		{"region~ANY~'US','DE'", "ann,cy"},
		{"region~ANY~'US-CA'", "ann"},
		{"region~NONE~'US','FR'", "cy,dee"},
		{"region~IS~null", "dee"},
		{"country~ANY~'fr'", "bob"},
		{"country~IS_NOT~null", "ann,bob,cy"},
		{"currency~ANY~'USD'", "ann,bob"},
		{"currency~ALL~'EUR','USD'", "bob"},
		{"currency~NONE~'USD'", "cy,dee"},
		{"tags~ANY~'vip'", "ann"},
		{"tags~ALL~'beta','VIP'", "ann"},
		{"tags~NONE~'beta'", "cy,dee"},
		{"tags~IS~null", "cy,dee"},
		{"mrr~GT~150", ""},
		{"mrr~GTE~150", "ann"},
		{"mrr~LT~49.99", "cy,dee"},
		{"mrr~LTE~49.99", "bob,cy,dee"},
		{"mrr~EQ~0", "cy,dee"},
		{"mrr~NOT_EQ~0", "ann,bob"},
		{"mrr~BETWEEN~40,200", "ann,bob"},
		{"active_quantity~BETWEEN~0,1", "bob,cy,dee"},
		{"active_quantity~GT~1", "ann"},
		{"customer_since~LT~2022-01-01", "cy"},
		{"customer_since~BETWEEN~'2022-04-01','2022-06-30'", "ann"},
		{"customer_since~EQ~2023-01-10", "bob"},
		{"customer_since~IS~null", "dee"},
		{"lead_created_at~GTE~2024-01-01", "dee"},
		{"free_trial_started_at~IS_NOT~null", "cy"},
		{"status~ANY~'Active','past_due'", "ann,bob"},
		{"status~NONE~'Active'", "bob,cy,dee"},
		{"data_source~ANY~'ds_b'", "bob,cy"},
		{"data_source~NONE~'ds_b'", "ann,dee"},
		{"custom.tier~ANY~'Enterprise','Startup'", "ann"},
		{"custom.tier~NONE~'Enterprise'", "bob,cy,dee"},
		{"custom.tier~EQ~'Startup plus'", "bob"},
		{"custom.tier~NOT_EQ~'Startup plus'", "ann,cy,dee"},
		{"custom.tier~CONTAINS~'start'", "bob"},
		{"custom.tier~NOT_CONTAINS~'start'", "ann,cy,dee"},
		{"custom.tier~IS~null", "cy,dee"},
		{"custom.seats~GT~10", "ann"},
		{"custom.seats~BETWEEN~1,3", "bob"},
		{"custom.score~LTE~7.5", "ann"},
		{"custom.score~IS~null", "bob,cy,dee"},
		{"custom.renewal~GTE~2024-03-01", "ann"},
		{"custom.renewal~LT~'2024-03-01T00:00:00Z'", ""},
		{"custom.vip~IS~true", "ann"},
		{"custom.vip~IS_NOT~true", "bob,cy,dee"},
		{"custom.vip~EQ~false", "bob"},
		{"custom.vip~IS~null", "cy,dee"},
		// Every condition must hold.
		{"currency~ANY~'USD'~AND~mrr~GT~100", "ann"},
		{"region~ANY~'US','FR'~AND~region~ANY~'FR','DE'", "bob"},
	}
	for _, tt := range tests {
		want := []string{}
		if tt.want != "" {
			want = strings.Split(tt.want, ",")
		}
		if got := matching(t, tt.expr); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%s matches %v, want %v", tt.expr, got, want)
		}
	}
}

// TestDatesInTheAccountTimeZone: a customer since 23:30 UTC on 2021-12-31 is one since
// 2022-01-01 in Berlin.
func TestDatesInTheAccountTimeZone(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	conds, _ := Parse("customer_since~EQ~2022-01-01")
	q, err := Compile(conds, Schema{Location: berlin})
	if err != nil {
		t.Fatal(err)
	}
	if !q.Matches(customers["cy"]) {
		t.Error("customer_since is compared in the account's time zone")
	}
}

func TestPlanConditionsAndCountries(t *testing.T) {
	conds, err := Parse("plan~ANY~'Gold',pl_1~AND~plan_group~NONE~plg_2~AND~region~ANY~'US','FR'~AND~country~ANY~'FR'")
	if err != nil {
		t.Fatal(err)
	}
	q, err := Compile(conds, schema)
	if err != nil {
		t.Fatal(err)
	}
	want := []PlanCondition{{Values: []string{"Gold", "pl_1"}, Text: "plan~ANY~'Gold',pl_1"},
		{Group: true, Negate: true, Values: []string{"plg_2"}, Text: "plan_group~NONE~plg_2"}}
	if !slices.EqualFunc(q.Plans, want, func(a, b PlanCondition) bool {
		return a.Group == b.Group && a.Negate == b.Negate && slices.Equal(a.Values, b.Values) && a.Text == b.Text
	}) {
		t.Errorf("plans = %+v, want %+v", q.Plans, want)
	}
	if got, ok := q.Countries(); !ok || !slices.Equal(got, []string{"FR"}) {
		t.Errorf("countries = %v %v, want [FR] (the intersection)", got, ok)
	}
	for _, expr := range []string{"region~ANY~'US-CA'", "region~NONE~'US'", "region~ANY~'US'~AND~mrr~GT~1", "plan~ANY~x"} {
		conds, _ := Parse(expr)
		q, err := Compile(conds, schema)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := q.Countries(); ok {
			t.Errorf("%s is answered from the country series; it needs the customers", expr)
		}
	}
}

// TestCompileErrors checks the 400s of well-formed expressions: every message names
// the offending condition.
func TestCompileErrors(t *testing.T) {
	tests := []struct{ expr, reason string }{
		{"colour~ANY~'red'", "Unknown filter \"colour\""},
		{"custom.missing~EQ~'x'", "no custom attribute \"missing\""},
		{"region~GT~'US'", "does not take the operator GT (it takes ANY, NONE, IS, IS_NOT)"},
		{"plan~ALL~pl_1", "does not take the operator ALL"},
		{"mrr~ANY~10", "does not take the operator ANY"},
		{"custom.tier~GT~'a'", "does not take the operator GT"},
		{"custom.vip~CONTAINS~'t'", "does not take the operator CONTAINS"},
		{"mrr~GT~1,2", "exactly one value, not 2"},
		{"mrr~BETWEEN~1", "two values (low,high), not 1"},
		{"mrr~BETWEEN~9,1", "low value is above its high value"},
		{"mrr~GT~lots", "\"lots\" is not an amount"},
		{"active_quantity~EQ~1.5", "\"1.5\" is not an integer"},
		{"region~ANY~'USA'", "\"USA\" is not an ISO 3166-1 alpha-2 country code"},
		{"region~ANY~'US-XX'", "\"US-XX\" is not an ISO 3166-2 US state code"},
		{"country~ANY~'US-CA'", "is not an ISO 3166-1 alpha-2 country code"},
		{"currency~ANY~'Dollars'", "\"Dollars\" is not an ISO 4217 currency code"},
		{"status~ANY~'Happy'", "\"Happy\" is not a customer status"},
		{"customer_since~GT~'yesterday'", "\"yesterday\" is not a date (YYYY-MM-DD)"},
		{"customer_since~IS~true", "IS and IS_NOT take null"},
		{"custom.vip~IS~'true'", "IS and IS_NOT take null, true or false"},
		{"custom.vip~EQ~yes", "\"yes\" is not true or false"},
		{"plan~ANY~''", "A plan value is empty"},
	}
	for _, tt := range tests {
		conds, err := Parse(tt.expr)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.expr, err)
		}
		_, err = Compile(conds, schema)
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("Compile(%q) = %v, want a *cfl.Error", tt.expr, err)
			continue
		}
		if !strings.Contains(e.Reason, tt.reason) || !strings.Contains(e.Error(), tt.expr) {
			t.Errorf("Compile(%q) = %q, want %q naming the condition", tt.expr, e.Error(), tt.reason)
		}
	}
}
