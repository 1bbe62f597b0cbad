package accountseries

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/metrics/series"
	"github.com/subsight/subsight/shared/store"
)

// Segment names. A segment is one pre-aggregated series: the whole account, one
// country, one plan, or one country and one plan.
const segmentAll = "all"

func geoSegment(country string) string   { return "geo:" + country }
func planSegment(planUUID string) string { return "plan:" + planUUID }
func geoPlanSegment(country, segment string) string {
	return geoSegment(country) + ":" + segment
}

// Attribute letters of the per-day sums in a month item; the day of month follows
// ("n05" = new business on the 5th).
const (
	attrNewBusiness  = "n"
	attrExpansion    = "e"
	attrContraction  = "t"
	attrChurn        = "h"
	attrReactivation = "r"
	attrFXImpact     = "x" // exchange-rate impact: MRR change that is no movement
	attrCustomers    = "c" // customers gained minus lost (also the year and index items' customer nets)
	attrFirstPaying  = "f"
	attrMRRNet       = "m" // year and index items: net MRR change of a month / a year
)

// Attributes of the lost-customer counts (customer churn rate numerators), stored in the
// month item of the period's first day: "ld05" day, "lw05" week starting on the 5th,
// "lm" month, "lq" quarter, "ly" year.
var lostAttr = map[string]string{series.Day: "ld", series.Week: "lw", series.Month: "lm",
	series.Quarter: "lq", series.Year: "ly"}

// cellKey addresses one number of one bucket item: segment, sort key and attribute.
func cellKey(segment, sk, attr string) string { return segment + "|" + sk + "|" + attr }

func splitCell(k string) (segment, sk, attr string) {
	segment, rest, _ := strings.Cut(k, "|")
	sk, attr, _ = strings.Cut(rest, "|")
	return segment, sk, attr
}

// Cells are a customer's contribution (or a difference of two) as numbers to add to
// bucket attributes, keyed by cellKey. Zero cells are never kept.
type Cells map[string]int64

func (c Cells) add(k string, v int64) {
	if v == 0 {
		return
	}
	if n := c[k] + v; n == 0 {
		delete(c, k)
	} else {
		c[k] = n
	}
}

// minus returns c − o.
func (c Cells) minus(o Cells) Cells {
	out := maps.Clone(c)
	if out == nil {
		out = Cells{}
	}
	for k, v := range o {
		out.add(k, -v)
	}
	return out
}

// customerCells is everything one customer adds to the account's buckets: its series
// contribution in every segment it belongs to.
func customerCells(c series.Customer, cal series.Calendar) Cells {
	out := Cells{}
	base := series.Contribution(c, cal, series.Filter{})
	addAggregate(out, segmentAll, base)
	country := ""
	if validCountry(c.Country) {
		country = c.Country
		addAggregate(out, geoSegment(country), base)
	}
	addPlanParts(out, planParts(c, cal), country)
	return out
}

// validCountry accepts the two-letter codes the geo filter can ask for; anything else
// only counts in the unfiltered series.
func validCountry(s string) bool {
	if len(s) != 2 {
		return false
	}
	for _, r := range s {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

// customerPlans are the plans the customer's real movements touch, sorted.
func customerPlans(ms []engine.Movement) []string {
	set := map[string]bool{}
	for _, m := range ms {
		if m.Scheduled {
			continue
		}
		for _, p := range []string{m.PlanUUID, m.PreviousPlanUUID} {
			if p != "" {
				set[p] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// addAggregate spreads a series aggregate over the segment's month, year and index items.
func addAggregate(out Cells, segment string, a *series.Aggregate) {
	for day, t := range a.Days {
		d, err := time.Parse(time.DateOnly, day)
		if err != nil {
			continue // the series package only makes valid dates
		}
		month := keys.SeriesMonthSK(d.Format("2006-01"))
		dd := fmt.Sprintf("%02d", d.Day())
		for attr, v := range map[string]int64{attrNewBusiness: t.NewBusiness, attrExpansion: t.Expansion,
			attrContraction: t.Contraction, attrChurn: t.Churn, attrReactivation: t.Reactivation,
			attrFXImpact: t.ExchangeRateImpact, attrCustomers: t.CustomersChange, attrFirstPaying: t.NewCustomers} {
			out.add(cellKey(segment, month, attr+dd), v)
		}
		mrr := t.MRRChange()
		year := keys.SeriesYearSK(d.Format("2006"))
		mm := d.Format("01")
		out.add(cellKey(segment, year, attrMRRNet+mm), mrr)
		out.add(cellKey(segment, year, attrCustomers+mm), t.CustomersChange)
		yyyy := d.Format("2006")
		out.add(cellKey(segment, keys.SeriesIndexSK, attrMRRNet+yyyy), mrr)
		out.add(cellKey(segment, keys.SeriesIndexSK, attrCustomers+yyyy), t.CustomersChange)
	}
	for pk, n := range a.Lost {
		d, err := time.Parse(time.DateOnly, pk.Start)
		if err != nil || lostAttr[pk.Interval] == "" {
			continue
		}
		attr := lostAttr[pk.Interval]
		if pk.Interval == series.Day || pk.Interval == series.Week {
			attr += fmt.Sprintf("%02d", d.Day())
		}
		out.add(cellKey(segment, keys.SeriesMonthSK(d.Format("2006-01")), attr), n)
	}
}

// updates groups cells by bucket item, in a stable order. Every segment's index item
// is among them, with nothing to add if need be, and sorts first among the segment's
// items: whatever shard the additions go to then has the segment's index item before
// any other item of the segment (readers skip shards without one).
func (c Cells) updates() []store.SeriesBucketAdd {
	byItem := map[[2]string]map[string]int64{}
	for k, v := range c {
		seg, sk, attr := splitCell(k)
		id := [2]string{seg, sk}
		if byItem[id] == nil {
			byItem[id] = map[string]int64{}
		}
		byItem[id][attr] = v
		if index := [2]string{seg, keys.SeriesIndexSK}; byItem[index] == nil {
			byItem[index] = map[string]int64{}
		}
	}
	ids := slices.SortedFunc(maps.Keys(byItem), func(a, b [2]string) int {
		return strings.Compare(a[0]+"|"+a[1], b[0]+"|"+b[1])
	})
	out := make([]store.SeriesBucketAdd, len(ids))
	for i, id := range ids {
		out[i] = store.SeriesBucketAdd{Segment: id[0], SK: id[1], Add: byItem[id]}
	}
	return out
}
