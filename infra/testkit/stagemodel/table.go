package stagemodel

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// Published figures of an on-demand table (docs/benchmarks.md, "Stage model on a real
// table", lists the sources).
const (
	// NewTableWriteUnits and NewTableReadUnits are what a new on-demand table serves at
	// once (its warm throughput). On-demand scales up to twice the previous peak within
	// 30 minutes; past that, it may throttle.
	NewTableWriteUnits = 4_000
	NewTableReadUnits  = 12_000
	// QuotaWriteUnits and QuotaReadUnits are the default per-table quotas of an
	// on-demand table, units per second, raisable by a quota request.
	QuotaWriteUnits = 40_000
	QuotaReadUnits  = 40_000
)

// Units is one customer's write and read units on one part of the table: the base
// table or one global secondary index.
type Units struct{ Write, Read float64 }

// Table is a state of the table: the write and read units per second that the base
// table and each index serve at once (warm throughput: the base table and every index
// have their own), and the per-table quotas. The model counts the quotas against the
// table and its indexes together (the cautious reading; a quota request names the
// table).
type Table struct {
	Name string
	// Warm is the warm throughput of each part ("table", "GSI1", …); Default the
	// warm throughput of a part not named.
	Warm    map[string]Units
	Default Units
	// Quota is the per-table quota, units per second.
	Quota Units
	Basis string
}

// warm is a part's warm throughput.
func (t Table) warm(part string) Units {
	if u, ok := t.Warm[part]; ok {
		return u
	}
	return t.Default
}

// The table states the model is shown at.
var (
	// NewTable is a table just created, each part at a new table's warm throughput.
	NewTable = Table{Name: "new table", Default: Units{Write: NewTableWriteUnits, Read: NewTableReadUnits},
		Quota: Units{Write: QuotaWriteUnits, Read: QuotaReadUnits},
		Basis: "a new on-demand table's and index's warm throughput, 4,000 WCU / 12,000 RCU a second each"}
	// DefaultQuotas is a table warmed (or grown) up to the default per-table quotas.
	DefaultQuotas = Table{Name: "default quotas", Default: Units{Write: QuotaWriteUnits, Read: QuotaReadUnits},
		Quota: Units{Write: QuotaWriteUnits, Read: QuotaReadUnits},
		Basis: "the default per-table quotas, 40,000 WCU / 40,000 RCU a second"}
)

// Warmed is a table pre-warmed to the given warm throughput per part, its per-table
// quotas raised to quota.
func Warmed(warm map[string]Units, quota Units) Table {
	var parts []string
	for _, p := range slices.Sorted(maps.Keys(warm)) {
		parts = append(parts, fmt.Sprintf("%s %s/%s", p, thousands(warm[p].Write), thousands(warm[p].Read)))
	}
	return Table{Name: "warmed table", Warm: warm, Default: Units{Write: NewTableWriteUnits, Read: NewTableReadUnits}, Quota: quota,
		Basis: fmt.Sprintf("WarmThroughput WCU/RCU a second %s; quotas raised to %s WCU / %s RCU a second",
			strings.Join(parts, ", "), thousands(quota.Write), thousands(quota.Read))}
}

// Stage is the table's rate for customers of the given units per part: the lowest of
// each part's warm throughput and of the quotas over the parts together.
func (t Table) Stage(perCustomer map[string]Units) Stage {
	var all Units
	rate, binds := math.Inf(1), ""
	limit := func(capacity, units float64, what string) {
		if units > 0 && capacity/units < rate {
			rate, binds = capacity/units, what
		}
	}
	for _, p := range slices.Sorted(maps.Keys(perCustomer)) {
		u := perCustomer[p]
		all.Write += u.Write
		all.Read += u.Read
		limit(t.warm(p).Write, u.Write, fmt.Sprintf("%s's writes (%s WCU/s / %.1f a customer)", p, thousands(t.warm(p).Write), u.Write))
		limit(t.warm(p).Read, u.Read, fmt.Sprintf("%s's reads (%s RCU/s / %.1f a customer)", p, thousands(t.warm(p).Read), u.Read))
	}
	limit(t.Quota.Write, all.Write, fmt.Sprintf("the write quota (%s WCU/s / %.1f a customer)", thousands(t.Quota.Write), all.Write))
	limit(t.Quota.Read, all.Read, fmt.Sprintf("the read quota (%s RCU/s / %.1f a customer)", thousands(t.Quota.Read), all.Read))
	return Stage{Name: "DynamoDB table (" + t.Name + ")", Rate: rate, Basis: t.Basis + "; bound by " + binds}
}

// Total is the units of all parts together.
func Total(perCustomer map[string]Units) Units {
	var all Units
	for _, u := range perCustomer {
		all.Write += u.Write
		all.Read += u.Read
	}
	return all
}

// Lane is a queue and the mapping that reads it.
type Lane struct {
	Queue   Queue
	Mapping Mapping
}

// Import is what the model knows of a first import, measured: the stages that do not
// depend on the time of a request (S3, DynamoDB's per-key limits) as they are, the
// others as their functions, and the units one customer takes of the table.
type Import struct {
	Intake Intake
	S3     Stage
	Lanes  []Lane
	// Concurrency is Lambda's concurrent executions for the account and Region.
	Concurrency int
	// Keys is DynamoDB's per-key limits (the heat meter's projection).
	Keys Stage
	// Units are one customer's units on each part of the table ("table", "GSI1", …),
	// the recomputations and folds included.
	Units map[string]Units
}

// Model is the import's stages at the given time per request, on the given table.
func (in Import) Model(latency time.Duration, table Table) Model {
	m := Model{Stages: in.Intake.Stages(latency)}
	m.Stages = append(m.Stages, in.S3)
	perCustomer := map[string]Function{"intake": in.Intake.Function}
	for _, l := range in.Lanes {
		m.Stages = append(m.Stages, l.Queue.Stage(), l.Mapping.Stage(latency))
		perCustomer[l.Mapping.Name] = l.Mapping.Function
	}
	m.Stages = append(m.Stages, Concurrency(in.Concurrency, perCustomer, latency), in.Keys,
		table.Stage(in.Units))
	return m
}

// Needs is the throughput, write and read units per second of each part of the table,
// that n customers in d take at the measured units per customer.
func (in Import) Needs(n int, d time.Duration) map[string]Units {
	rate := float64(n) / d.Seconds()
	out := map[string]Units{}
	for p, u := range in.Units {
		out[p] = Units{Write: rate * u.Write, Read: rate * u.Read}
	}
	return out
}

// Grid renders the end-to-end rate, its binding stage and the time of a million
// customers for every table state (rows) and time per request (columns), as Markdown.
func (in Import) Grid(tables []Table, latencies []time.Duration) string {
	var b strings.Builder
	b.WriteString("| table |")
	for _, l := range latencies {
		fmt.Fprintf(&b, " %v a request |", l)
	}
	b.WriteString("\n|---|")
	b.WriteString(strings.Repeat("---|", len(latencies)))
	b.WriteString("\n")
	for _, t := range tables {
		fmt.Fprintf(&b, "| %s |", t.Name)
		for _, l := range latencies {
			m := in.Model(l, t)
			fmt.Fprintf(&b, " %s/s, bound by %s; 1M in %s |", thousands(m.Rate()), m.Binding().Name, minutes(m.Time(1_000_000)))
		}
		b.WriteString("\n")
	}
	var parts []string
	for _, p := range slices.Sorted(maps.Keys(in.Units)) {
		parts = append(parts, fmt.Sprintf("%s %.1f / %.1f", p, in.Units[p].Write, in.Units[p].Read))
	}
	all := Total(in.Units)
	fmt.Fprintf(&b, "\nOne customer takes %.1f write units and %.1f read units, recomputation and folds included (%s).\n",
		all.Write, all.Read, strings.Join(parts, ", "))
	return b.String()
}

// minutes renders a duration in whole minutes, or hours and minutes.
func minutes(d time.Duration) string {
	d = d.Round(time.Minute)
	if d >= time.Hour {
		return fmt.Sprintf("%d h %02d min", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%d min", int(d.Minutes()))
}
