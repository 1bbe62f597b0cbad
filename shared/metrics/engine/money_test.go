package engine

import (
	"math/big"
	"testing"
	"time"
)

func TestLineMRR(t *testing.T) {
	june := func(it LineItem) LineItem { return it }
	tests := []struct {
		name string
		item LineItem
		plan Plan
		want int64
	}{
		{"monthly is the amount", item(monthly, "2024-01-01", "2024-02-01", 1000), monthly, 1000},
		{"30-day month still the plan price", item(monthly, "2017-05-01", "2017-05-31", 10000), monthly, 10000},
		{"quarterly 9000 -> 3000 (§1.4)", item(quarterly, "2024-01-01", "2024-04-01", 9000), quarterly, 3000},
		{"annual 200000 -> 16667 (§1.4)", item(annual, "2024-01-01", "2025-01-01", 200000), annual, 16667},
		{"7-day 1000 -> 4348 (§1.4 fixture)", item(weekly, "2024-01-01", "2024-01-08", 1000), weekly, 4348},
		{"tax removed, discount and fees informational",
			LineItem{AmountInCents: 1100, TaxAmountInCents: 100, DiscountAmountInCents: 200, TransactionFeesInCents: 50}, monthly, 1000},
		{"quantity does not multiply", LineItem{AmountInCents: 10000, Quantity: 10}, monthly, 10000},
		{"prorated: $25 for 16-30 June -> 5000 (§1.4)", june(LineItem{Prorated: true, AmountInCents: 2500,
			ServicePeriodStart: at("2024-06-16"), ServicePeriodEnd: at("2024-07-01")}), monthly, 5000},
		{"prorated credit is negative", LineItem{Prorated: true, AmountInCents: -2500,
			ServicePeriodStart: at("2024-06-16"), ServicePeriodEnd: at("2024-07-01")}, monthly, -5000},
		{"prorated month clamps 31 Mar - 1 month to 29 Feb: 1000 x 31d/15d", LineItem{Prorated: true, AmountInCents: 1000,
			ServicePeriodStart: at("2024-03-16"), ServicePeriodEnd: at("2024-03-31")}, monthly, 2067},
		{"tie rounds half away from zero: 5 per 2 months -> 3", LineItem{AmountInCents: 5},
			Plan{UUID: "p2", IntervalCount: 2, IntervalUnit: "month"}, 3},
		{"negative tie rounds away from zero: -5 per 2 months -> -3", LineItem{AmountInCents: -5},
			Plan{UUID: "p2", IntervalCount: 2, IntervalUnit: "month"}, -3},
		{"two-year plan", LineItem{AmountInCents: 240000}, Plan{UUID: "p", IntervalCount: 2, IntervalUnit: "year"}, 10000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := lineMRR(tt.item, tt.plan, true)
			if err != nil || got != tt.want {
				t.Fatalf("lineMRR = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
}

func TestLineMRRDifferentialMRRSkipsProration(t *testing.T) {
	it := LineItem{Prorated: true, ProrationType: ProrationDifferentialMRR, AmountInCents: 2500,
		ServicePeriodStart: at("2024-06-16"), ServicePeriodEnd: at("2024-07-01")}
	if got, _ := lineMRR(it, monthly, false); got != 2500 {
		t.Fatalf("differential_mrr = %d, want 2500", got)
	}
}

func TestBadPlanInterval(t *testing.T) {
	for _, p := range []Plan{{IntervalCount: 0, IntervalUnit: "month"}, {IntervalCount: 1, IntervalUnit: "week"}} {
		if _, err := monthlyRatio(p); err == nil {
			t.Errorf("plan %+v accepted", p)
		}
	}
}

func TestRoundingAndTruncation(t *testing.T) {
	tests := []struct {
		num, den   int64
		round, trn int64
	}{
		{5, 2, 3, 2}, {-5, 2, -3, -2}, {7, 2, 4, 3}, {1090861, 100, 10909, 10908}, {4348125, 1000, 4348, 4348},
	}
	for _, tt := range tests {
		v := big.NewRat(tt.num, tt.den)
		if got := roundHalfAwayFromZero(v); got != tt.round {
			t.Errorf("round(%d/%d) = %d, want %d", tt.num, tt.den, got, tt.round)
		}
		if got := truncate(v); got != tt.trn {
			t.Errorf("truncate(%d/%d) = %d, want %d", tt.num, tt.den, got, tt.trn)
		}
	}
}

func TestIntervalBefore(t *testing.T) {
	tests := []struct {
		end  string
		plan Plan
		want string
	}{
		{"2024-07-01", monthly, "2024-06-01"},
		{"2024-03-31", monthly, "2024-02-29"},
		{"2025-01-01", annual, "2024-01-01"},
		{"2024-01-08", weekly, "2024-01-01"},
		{"2024-05-31", quarterly, "2024-02-29"},
	}
	for _, tt := range tests {
		if got := intervalBefore(at(tt.end), tt.plan); !got.Equal(at(tt.want)) {
			t.Errorf("intervalBefore(%s, %s) = %s, want %s", tt.end, tt.plan.Name, got.Format(time.DateOnly), tt.want)
		}
	}
}
