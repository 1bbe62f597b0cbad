package accountseries

import (
	"strings"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/metrics/series"
)

// A plans filter of several plans is not the sum of single-plan series: a customer
// paying on two of the plans counts once, and a switch between them is an expansion,
// not a churn plus a new business. The per-plan filtered contribution f(U) of a
// customer, for U a subset of its plans Q, is stored by Möbius inversion:
//
//	g(T) = Σ_{U ⊆ T} (−1)^{|T|−|U|} f(U)      so that      f(P ∩ Q) = Σ_{∅ ≠ T ⊆ P ∩ Q} g(T)
//
// g({p}) = f({p}) is the plan segment; g(T) for |T| ≥ 2 is the combination segment of
// T, non-zero only for customers whose plans in T interact (concurrent subscriptions,
// switches, reactivation on another plan), and then only on the days they interact. A
// request for plans P reads the plan segments of P and the registered combination
// segments T ⊆ P: every series field is additive, so the sum is exactly the series of
// the customers restricted to P.

// maxCombinedPlans bounds the subsets per customer (2^6 − 7 = 57 combination segments at
// most). A customer whose movements touch more plans keeps only its plan segments: in a
// multi-plan request it is counted once per requested plan it has (docs/metrics-api.md).
const maxCombinedPlans = 6

// Registry attributes of a combination: customers contributing to it, in any country
// ("n") and per country ("nUS").
const comboAttrAll = "n"

// combosSegment names the combination segment of sorted plan uuids.
func combosSegment(plans []string) string { return "plans:" + comboName(plans) }

func comboName(plans []string) string { return strings.Join(plans, "+") }

// planPart is what a customer adds to one plan or combination segment.
type planPart struct {
	plans []string
	agg   *series.Aggregate
}

// planParts computes the customer's plan segments and its non-empty combination
// segments (see above).
func planParts(c series.Customer, cal series.Calendar) []planPart {
	plans := customerPlans(c.Movements)
	if len(plans) == 0 {
		return nil
	}
	if len(plans) > maxCombinedPlans {
		out := make([]planPart, len(plans))
		for i, p := range plans {
			out[i] = planPart{[]string{p}, series.Contribution(c, cal, series.Filter{Plans: []string{p}})}
		}
		return out
	}
	n := len(plans)
	g := make([]*series.Aggregate, 1<<n)
	g[0] = series.NewAggregate() // f(∅): no plan, no contribution
	for mask := 1; mask < len(g); mask++ {
		g[mask] = series.Contribution(c, cal, series.Filter{Plans: subset(plans, mask)})
	}
	// In-place Möbius transform: after bit b, g[mask] is the alternating sum over the
	// subsets that differ from mask in the bits up to b.
	for bit := range n {
		for mask := range g {
			if mask&(1<<bit) != 0 {
				g[mask].Add(g[mask^(1<<bit)], -1)
			}
		}
	}
	var out []planPart
	for mask := 1; mask < len(g); mask++ {
		if len(g[mask].Days) > 0 || len(g[mask].Lost) > 0 {
			out = append(out, planPart{subset(plans, mask), g[mask]})
		}
	}
	return out
}

// subset lists the plans whose bit is set in mask, in the order of plans.
func subset(plans []string, mask int) []string {
	var out []string
	for i, p := range plans {
		if mask&(1<<i) != 0 {
			out = append(out, p)
		}
	}
	return out
}

// addPlanParts adds the customer's plan and combination segments, with their country
// variants, and registers the combinations it contributes to.
func addPlanParts(out Cells, parts []planPart, country string) {
	for _, p := range parts {
		seg := planSegment(p.plans[0])
		if len(p.plans) > 1 {
			seg = combosSegment(p.plans)
			registry := keys.SeriesComboSK(comboName(p.plans))
			out.add(cellKey(segmentAll, registry, comboAttrAll), 1)
			if country != "" {
				out.add(cellKey(segmentAll, registry, comboAttrAll+country), 1)
			}
		}
		addAggregate(out, seg, p.agg)
		if country != "" {
			addAggregate(out, geoPlanSegment(country, seg), p.agg)
		}
	}
}
