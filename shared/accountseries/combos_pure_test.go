package accountseries

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/metrics/series"
)

// TestPlanPartsSumToEveryFilter: for every subset P of the customer's plans (and plans
// it does not have), the parts T ⊆ P add up to its contribution restricted to P.
func TestPlanPartsSumToEveryFilter(t *testing.T) {
	for _, c := range multiPlanPortfolio() {
		sc := series.Customer{UUID: c.Attrs.UUID, Country: c.Attrs.Country, Movements: c.Movements}
		parts := planParts(sc, utc)
		all := []string{"P1", "P2", "P3", "P9"}
		for mask := 1; mask < 1<<len(all); mask++ {
			plans := subset(all, mask)
			sum := series.NewAggregate()
			for _, p := range parts {
				if allIn(p.plans, plans) {
					sum.Add(p.agg, 1)
				}
			}
			if want := series.Contribution(sc, utc, series.Filter{Plans: plans}); !reflect.DeepEqual(sum, want) {
				t.Errorf("%s %v:\n parts %+v\n want  %+v", c.Attrs.UUID, plans, sum, want)
			}
		}
	}
}

// TestManyPlansKeepPlanSegmentsOnly: beyond maxCombinedPlans a customer has no
// combination segments (bounded writes; see docs/metrics-api.md).
func TestManyPlansKeepPlanSegmentsOnly(t *testing.T) {
	var ms []engine.Movement
	var mrr int64
	for i := range maxCombinedPlans + 1 {
		typ := engine.Expansion
		if i == 0 {
			typ = engine.NewBusiness
		}
		ms = append(ms, subMove(fmt.Sprintf("2024-01-%02d", i+1), typ, mrr, mrr+100, fmt.Sprint("P", i), "", 0, 100))
		mrr += 100
	}
	cells := customerCells(series.Customer{UUID: "many", Country: "US", Movements: ms}, utc)
	for k := range cells {
		if seg, sk, _ := splitCell(k); strings.HasPrefix(sk, keys.SeriesComboPrefix) || strings.Contains(seg, "plans:") {
			t.Fatalf("combination cell %s for a customer of %d plans", k, len(ms))
		}
	}
	parts := planParts(series.Customer{Movements: ms[:2]}, utc)
	if len(parts) != 3 {
		t.Fatalf("two interacting plans: %d parts, want P0, P1 and P0+P1", len(parts))
	}
}
