package engine

import (
	"testing"
	"time"
)

// TestSettings covers the account settings of §4.1–§4.4 and §3.4.
func TestSettings(t *testing.T) {
	toFree := []Invoice{
		invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000)),
		invoice("2", "2024-02-01", item(free, "2024-02-01", "2024-03-01", 0)),
		invoice("3", "2024-03-01", item(monthly, "2024-03-01", "2024-04-01", 1000)),
	}
	midPeriod := withHistory(input("2024-03-10", invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000)),
		invoice("2", "2024-02-01", item(monthly, "2024-02-01", "2024-03-01", 1000))), "sub", "2024-02-10")
	quick := []Invoice{
		invoice("1", "2024-01-01", item(monthly, "2024-01-01T10:00", "2024-02-01T10:00", 1000)),
		invoice("2", "2024-01-01", item(gold, "2024-01-01T10:30", "2024-02-01T10:30", 2000)),
	}
	downThenOut := withHistory(input("2024-03-10",
		invoice("1", "2024-01-01", item(gold, "2024-01-01", "2024-02-01", 3000)),
		invoice("2", "2024-02-01", item(monthly, "2024-02-01", "2024-03-01", 1000))), "sub", "2024-02-01T12:00")
	tests := []struct {
		name string
		in   Input
		want want
	}{
		{"churn_when_zero_mrr=false: a $0 plan is a contraction, customer stays Active", input("2024-02-10", toFree[:2]...),
			want{mrr: 0, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000", "2024-02-01 contraction -1000 0"}}},
		{"churn_when_zero_mrr=false: back from $0 is an expansion", input("2024-03-10", toFree...),
			want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{
				"2024-01-01 new_biz 1000 1000", "2024-02-01 contraction -1000 0", "2024-03-01 expansion 1000 1000"}}},
		{"churn_when_zero_mrr=true: a $0 plan is churn, customer Cancelled", withSettings(input("2024-02-10", toFree[:2]...), zeroChurn),
			want{mrr: 0, status: StatusCancelled, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000", "2024-02-01 churn -1000 0"}}},
		{"churn_when_zero_mrr=true: back from $0 is a reactivation", withSettings(input("2024-03-10", toFree...), zeroChurn),
			want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{
				"2024-01-01 new_biz 1000 1000", "2024-02-01 churn -1000 0", "2024-03-01 reactivation 1000 1000"}}},
		{"churn at time of cancellation", midPeriod,
			want{mrr: 0, status: StatusCancelled, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000", "2024-02-10 churn -1000 0"}}},
		{"churn at period end", withSettings(midPeriod, recognition(ChurnAtPeriodEnd)),
			want{mrr: 0, status: StatusCancelled, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000", "2024-03-01 churn -1000 0"}}},
		{"churn at click falls back to the time of cancellation for API sources", withSettings(midPeriod, recognition(ChurnAtClick)),
			want{mrr: 0, status: StatusCancelled, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000", "2024-02-10 churn -1000 0"}}},
		{"churn at period end: renewed before the period ran out, nothing churns", withSettings(withHistory(input("2024-03-10",
			invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000)),
			invoice("2", "2024-02-01", item(monthly, "2024-02-01", "2024-03-01", 1000))), "sub", "2024-01-20"), recognition(ChurnAtPeriodEnd)),
			want{mrr: 1000, status: StatusPastDue, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}}},
		{"reclassification off: purchase then upgrade 30 minutes later", input("2024-01-02", quick...),
			want{mrr: 2000, status: StatusActive, since: "2024-01-01", moves: []string{
				"2024-01-01T10:00 new_biz 1000 1000", "2024-01-01T10:30 expansion 1000 2000"}}},
		{"one hour window: the upgrade is new business too", withSettings(input("2024-01-02", quick...), window("one_hour_reclassification")),
			want{mrr: 2000, status: StatusActive, since: "2024-01-01", moves: []string{
				"2024-01-01T10:00 new_biz 1000 1000", "2024-01-01T10:30 new_biz 1000 2000"}}},
		{"ten minute window: too far apart", withSettings(input("2024-01-02", quick...), window("ten_minutes_reclassification")),
			want{mrr: 2000, status: StatusActive, since: "2024-01-01", moves: []string{
				"2024-01-01T10:00 new_biz 1000 1000", "2024-01-01T10:30 expansion 1000 2000"}}},
		{"one day window: a downgrade just before churn is churn", withSettings(downThenOut, window("one_day_reclassification")),
			want{mrr: 0, status: StatusCancelled, since: "2024-01-01", moves: []string{
				"2024-01-01 new_biz 3000 3000", "2024-02-01 churn -2000 1000", "2024-02-01T12:00 churn -1000 0"}}},
		{"one minute window: the downgrade stays a contraction", withSettings(downThenOut, window("one_minute_reclassification")),
			want{mrr: 0, status: StatusCancelled, since: "2024-01-01", moves: []string{
				"2024-01-01 new_biz 3000 3000", "2024-02-01 contraction -2000 1000", "2024-02-01T12:00 churn -1000 0"}}},
		{"auto-churn: past due for 30 days churns, a later invoice reactivates", withSettings(input("2024-06-10",
			invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000)),
			invoice("2", "2024-05-01", item(monthly, "2024-05-01", "2024-06-01", 1000))), autoChurn(30)),
			want{mrr: 1000, status: StatusPastDue, since: "2024-01-01", moves: []string{
				"2024-01-01 new_biz 1000 1000", "2024-03-02 churn -1000 0", "2024-05-01 reactivation 1000 1000"}}},
		{"auto-churn: a gap shorter than the interval does not churn", withSettings(input("2024-03-10",
			invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000)),
			invoice("2", "2024-02-20", item(monthly, "2024-02-20", "2024-03-20", 1000))), autoChurn(30)),
			want{mrr: 1000, status: StatusActive, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}}},
		{"auto-churn off: past due forever, MRR kept", input("2024-06-10",
			invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000))),
			want{mrr: 1000, status: StatusPastDue, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 1000 1000"}}},
		{"auto-churn after a failed payment, counted from the due date", withSettings(input("2024-03-20",
			failed(withDue(invoice("1", "2024-01-01", item(annual, "2024-01-01", "2025-01-01", 120000)), "2024-01-15"), "2024-01-01")), autoChurn(7)),
			want{mrr: 0, status: StatusCancelled, since: "2024-01-01", moves: []string{"2024-01-01 new_biz 10000 10000", "2024-01-22 churn -10000 0"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { check(t, Compute(tt.in), tt.want) })
	}
}

func TestAutoChurnTag(t *testing.T) {
	r := Compute(withSettings(input("2024-06-10", invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000))), autoChurn(10)))
	if !r.AutoChurned || r.Status != StatusCancelled {
		t.Fatalf("auto-churned %v status %s", r.AutoChurned, r.Status)
	}
}

// TestNextChangeAt: the instant the worker must recompute even if no data arrives.
func TestNextChangeAt(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want string
	}{
		{"end of the current period (past due from then)", input("2024-01-10", invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000))), "2024-02-01"},
		{"a scheduled cancellation", withEvents(input("2024-01-10", invoice("1", "2024-01-01", item(annual, "2024-01-01", "2025-01-01", 1000))),
			event("e", EventCancellationScheduled, "2024-01-05", "2024-03-01")), "2024-03-01"},
		{"a pending auto-churn", withSettings(input("2024-02-10", invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000))), autoChurn(30)), "2024-03-02"},
		{"nothing pending for a cancelled customer", withHistory(input("2024-03-10", invoice("1", "2024-01-01", item(monthly, "2024-01-01", "2024-02-01", 1000))), "sub", "2024-01-20"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compute(tt.in).NextChangeAt
			s := ""
			if !got.IsZero() {
				s = got.Format(time.DateOnly)
			}
			if s != tt.want {
				t.Fatalf("NextChangeAt = %q, want %q", s, tt.want)
			}
		})
	}
}
