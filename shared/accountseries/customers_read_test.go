package accountseries_test

import (
	"fmt"
	"testing"

	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/metrics/series"
)

// TestLoadCustomersEqualsAnAccountOfThem: for subsets of both portfolios, with and
// without plans, every interval and several ranges, the sum of the selected customers'
// own contributions answers exactly what a second account holding only those customers
// answers from its buckets.
func TestLoadCustomersEqualsAnAccountOfThem(t *testing.T) {
	f := newFixture(t)
	cs := append(multiPlanPortfolio(), portfolio()...)
	for _, c := range cs {
		f.apply(c)
	}
	subsets := [][]string{{"cus_A"}, {"cus_B", "cus_C"}, {"cus_E", "cus_F", "cus_D"}, {"cus_E", "cus_G", "cus_nobody"}, {}}
	planSets := [][]string{nil, {"P1"}, {"P1", "P2"}, {"P2", "P3"}}
	ranges := [][2]string{{"2023-12-01", "2024-04-15"}, {"2024-01-15", "2024-03-10"}, {"2024-03-01", "2024-03-01"}}
	for _, subset := range subsets {
		only := newFixture(t)
		var chosen []customer
		for _, c := range cs {
			for _, u := range subset {
				if c.Attrs.UUID == u {
					only.apply(c)
					chosen = append(chosen, c)
				}
			}
		}
		for _, plans := range planSets {
			for _, iv := range series.Intervals {
				for _, r := range ranges {
					q := series.Query{Start: r[0], End: r[1], Interval: iv}
					agg, err := f.series.LoadCustomers(f.ctx, f.acc, subset, plans,
						accountseries.WindowStart(utc, iv, at(r[0])), at(r[1]))
					if err != nil {
						t.Fatal(err)
					}
					got, err := series.Compute(agg, utc, q)
					if err != nil {
						t.Fatal(err)
					}
					label := fmt.Sprint(subset, plans, iv, r)
					sameResponse(t, label, got, only.filtered(nil, plans, q))
					sameResponse(t, label+" in memory", got, inMemory(chosen, series.Filter{Plans: plans}, q))
				}
			}
		}
	}
}
