package ddbmeter

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// DynamoDB's published limits of one partition, which a single partition key value of
// the table or of a global secondary index can never exceed however the table scales:
// 1,000 write units and 3,000 read units per second.
const (
	PartitionWCUPerSecond = 1000
	PartitionRCUPerSecond = 3000
)

// TransactionsPerItemPerSecond is how many transactions can touch one item per second:
// two transactions that hold the same item at once cancel one of them
// (TransactionConflict), so an item takes them one after the other. A
// TransactWriteItems of a dozen items lasts about 25 ms on DynamoDB (single-digit
// milliseconds per item write, the two-phase protocol on top), hence 40 per second: a
// ceiling, since randomly arriving transactions conflict well before it.
const TransactionsPerItemPerSecond = 40

// Heat records what every DynamoDB request of the clients it is attached to reads and
// writes, per partition key value (of the table and of each GSI) and per item, with the
// time of the request: where one account's traffic concentrates. Its zero value is
// ready; Report prices the writes and projects the rate DynamoDB allows.
type Heat struct {
	mu     sync.Mutex
	start  time.Time
	writes []heatWrite
	reads  []heatRead
}

type heatWrite struct {
	second int
	key    map[string]types.AttributeValue // table key of the item written
	item   map[string]types.AttributeValue // the whole item for a put; nil: read it back
	factor float64                         // 2 inside a transaction
	tx     bool
}

type heatRead struct {
	second    int
	partition string // "table <PK>" or "<index> <GSI PK>"
	units     float64
}

// Attach makes every client built from cfg afterwards report to h.
func (h *Heat) Attach(cfg *aws.Config) {
	attach(cfg, "ddbmeter-heat", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
		middleware.InitializeOutput, middleware.Metadata, error) {
		out, md, err := next.HandleInitialize(ctx, in)
		if err == nil {
			h.record(in.Parameters, out.Result)
		}
		return out, md, err
	})
}

// attach adds an Initialize-step middleware to every client built from cfg afterwards
// (the one way the recorders of this package hook into the SDK).
func attach(cfg *aws.Config, name string, f func(context.Context, middleware.InitializeInput, middleware.InitializeHandler) (
	middleware.InitializeOutput, middleware.Metadata, error)) {
	cfg.APIOptions = append(cfg.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc(name, f), middleware.After)
	})
}

// Reset forgets everything recorded and restarts the clock.
func (h *Heat) Reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.start, h.writes, h.reads = time.Now(), nil, nil
}

func (h *Heat) record(params, result any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.start.IsZero() {
		h.start = time.Now()
	}
	sec := int(time.Since(h.start).Seconds())
	write := func(key, item map[string]types.AttributeValue, factor float64) {
		if key == nil {
			key = tableKey(item)
		}
		h.writes = append(h.writes, heatWrite{second: sec, key: key, item: item, factor: factor, tx: factor == 2})
	}
	read := func(partition string, units float64) {
		h.reads = append(h.reads, heatRead{second: sec, partition: partition, units: units})
	}
	switch in := params.(type) {
	case *dynamodb.PutItemInput:
		write(nil, in.Item, 1)
	case *dynamodb.UpdateItemInput:
		write(in.Key, nil, 1)
	case *dynamodb.DeleteItemInput:
		write(in.Key, nil, 1)
	case *dynamodb.BatchWriteItemInput:
		for _, reqs := range in.RequestItems {
			for _, r := range reqs {
				if r.PutRequest != nil {
					write(nil, r.PutRequest.Item, 1)
				} else if r.DeleteRequest != nil {
					write(r.DeleteRequest.Key, nil, 1)
				}
			}
		}
	case *dynamodb.TransactWriteItemsInput:
		for _, it := range in.TransactItems {
			switch {
			case it.Put != nil:
				write(nil, it.Put.Item, 2)
			case it.Update != nil:
				write(it.Update.Key, nil, 2)
			case it.Delete != nil:
				write(it.Delete.Key, nil, 2)
			case it.ConditionCheck != nil:
				write(it.ConditionCheck.Key, nil, 0)
			}
		}
	case *dynamodb.GetItemInput:
		units, _, _ := ReadUnits(params, result)
		read("table "+attrString(in.Key["PK"]), units)
	case *dynamodb.BatchGetItemInput:
		out, _ := result.(*dynamodb.BatchGetItemOutput)
		for table, ka := range in.RequestItems {
			got := map[string]map[string]types.AttributeValue{}
			if out != nil {
				for _, item := range out.Responses[table] {
					got[itemName(item)] = item
				}
			}
			half := 0.5
			if aws.ToBool(ka.ConsistentRead) {
				half = 1
			}
			for _, k := range ka.Keys {
				read("table "+attrString(k["PK"]), half*itemUnits(got[itemName(k)]))
			}
		}
	case *dynamodb.QueryInput:
		units, _, _ := ReadUnits(params, result)
		index := "table"
		if in.IndexName != nil {
			index = *in.IndexName
		}
		read(index+" "+queryPartition(in), units)
	}
}

// keyCondition finds the partition key's value placeholder in a key condition.
var keyCondition = regexp.MustCompile(`^\s*\(?\s*#?\w+\s*=\s*(:\w+)`)

func queryPartition(in *dynamodb.QueryInput) string {
	m := keyCondition.FindStringSubmatch(aws.ToString(in.KeyConditionExpression))
	if m == nil {
		return "?"
	}
	return attrString(in.ExpressionAttributeValues[m[1]])
}

func attrString(v types.AttributeValue) string {
	if s, ok := v.(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return "?"
}

func tableKey(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": item["PK"], "SK": item["SK"]}
}

func itemName(item map[string]types.AttributeValue) string {
	return attrString(item["PK"]) + " | " + attrString(item["SK"])
}

// PartitionHeat is what one partition key value took over a run.
type PartitionHeat struct {
	Partition  string  // "table <PK>" or "GSI1 <GSI1PK>"
	WCU, RCU   float64 // over the run
	PeakWCU    float64 // in the busiest second of wall time
	PeakRCU    float64
	WCUPerUnit float64 // per customer (Report's unit of work)
	RCUPerUnit float64
}

// ItemHeat is what one item took.
type ItemHeat struct {
	Item                string // "<PK> | <SK>"
	WCU                 float64
	Transactions        int
	TransactionsPerUnit float64
}

// Limit is one ceiling of the projection: the rate of work units (customers) per
// second at which a partition or an item reaches DynamoDB's limit.
type Limit struct {
	What    string // "WCU of table all#…", "transactions on …"
	PerUnit float64
	Rate    float64
}

// HeatReport is a run's heat, hottest first, and its projection.
type HeatReport struct {
	Units      int           // work units the run did (customers)
	Elapsed    time.Duration // wall time of the run
	Partitions []PartitionHeat
	Items      []ItemHeat
	// Limits are the binding ceilings, lowest rate first; Projected is the lowest.
	Limits    []Limit
	Projected float64
}

// Report prices the recorded writes (updates and deletes by the item as it is now,
// read with db, a client h is not attached to; each item read once), sums everything
// per partition and per item, and projects how many units (customers, when units is
// the number of customers the run imported and recomputed) per second one account can
// do on DynamoDB: the lowest of 1,000 WCU and 3,000 RCU per partition key value, and
// TransactionsPerItemPerSecond per item, divided by what one unit takes of each.
func (h *Heat) Report(ctx context.Context, db *dynamodb.Client, table string, units int, elapsed time.Duration) (HeatReport, error) {
	h.mu.Lock()
	writes, reads := slices.Clone(h.writes), slices.Clone(h.reads)
	h.mu.Unlock()
	now := map[string]map[string]types.AttributeValue{}
	wcu, rcu := map[string]*heatSum{}, map[string]*heatSum{}
	add := func(m map[string]*heatSum, partition string, second int, u float64) {
		a := m[partition]
		if a == nil {
			a = &heatSum{perSecond: map[int]float64{}}
			m[partition] = a
		}
		a.total += u
		a.perSecond[second] += u
	}
	items := map[string]*ItemHeat{}
	for _, w := range writes {
		name := itemName(w.key)
		item := w.item
		if item == nil {
			var ok bool
			if item, ok = now[name]; !ok {
				out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: w.key})
				if err != nil {
					return HeatReport{}, err
				}
				item = out.Item
				now[name] = item
			}
		}
		size := 1.0
		if item != nil {
			size = float64(max(1, (ItemSize(item)+1023)/1024))
		}
		u := w.factor * size
		add(wcu, "table "+attrString(w.key["PK"]), w.second, u)
		for _, g := range gsiKeys {
			if v, ok := item[g]; ok {
				add(wcu, strings.TrimSuffix(g, "PK")+" "+attrString(v), w.second, u)
			}
		}
		ih := items[name]
		if ih == nil {
			ih = &ItemHeat{Item: name}
			items[name] = ih
		}
		ih.WCU += u
		if w.tx {
			ih.Transactions++
		}
	}
	for _, r := range reads {
		add(rcu, r.partition, r.second, r.units)
	}
	per := func(x float64) float64 { return x / float64(max(units, 1)) }
	rep := HeatReport{Units: units, Elapsed: elapsed}
	for p := range joinKeys(wcu, rcu) {
		ph := PartitionHeat{Partition: p}
		if a := wcu[p]; a != nil {
			ph.WCU, ph.PeakWCU = a.total, maxValue(a.perSecond)
		}
		if a := rcu[p]; a != nil {
			ph.RCU, ph.PeakRCU = a.total, maxValue(a.perSecond)
		}
		ph.WCUPerUnit, ph.RCUPerUnit = per(ph.WCU), per(ph.RCU)
		rep.Partitions = append(rep.Partitions, ph)
		if ph.WCU > 0 {
			rep.Limits = append(rep.Limits, Limit{What: "WCU of " + p, PerUnit: ph.WCUPerUnit, Rate: PartitionWCUPerSecond / ph.WCUPerUnit})
		}
		if ph.RCU > 0 {
			rep.Limits = append(rep.Limits, Limit{What: "RCU of " + p, PerUnit: ph.RCUPerUnit, Rate: PartitionRCUPerSecond / ph.RCUPerUnit})
		}
	}
	for _, ih := range items {
		ih.TransactionsPerUnit = per(float64(ih.Transactions))
		rep.Items = append(rep.Items, *ih)
		if ih.Transactions > 0 {
			rep.Limits = append(rep.Limits, Limit{What: "transactions on " + ih.Item, PerUnit: ih.TransactionsPerUnit,
				Rate: TransactionsPerItemPerSecond / ih.TransactionsPerUnit})
		}
	}
	sort.Slice(rep.Partitions, func(i, j int) bool {
		a, b := rep.Partitions[i], rep.Partitions[j]
		return a.WCU/PartitionWCUPerSecond+a.RCU/PartitionRCUPerSecond > b.WCU/PartitionWCUPerSecond+b.RCU/PartitionRCUPerSecond
	})
	sort.Slice(rep.Items, func(i, j int) bool {
		a, b := rep.Items[i], rep.Items[j]
		if a.Transactions != b.Transactions {
			return a.Transactions > b.Transactions
		}
		return a.WCU > b.WCU
	})
	sort.Slice(rep.Limits, func(i, j int) bool { return rep.Limits[i].Rate < rep.Limits[j].Rate })
	if len(rep.Limits) > 0 {
		rep.Projected = rep.Limits[0].Rate
	}
	return rep, nil
}

// heatSum is the units of one partition, over the run and per second.
type heatSum struct {
	total     float64
	perSecond map[int]float64
}

func joinKeys(a, b map[string]*heatSum) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func maxValue(m map[int]float64) float64 {
	out := 0.0
	for _, v := range m {
		out = max(out, v)
	}
	return out
}

// Table renders the n hottest partitions, items and limits as Markdown tables.
func (r HeatReport) Table(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d customers in %v. Hottest partition key values (per customer; busiest second of the run):\n\n", r.Units, r.Elapsed.Round(time.Millisecond))
	b.WriteString("| partition key value | WCU / customer | RCU / customer | WCU total | RCU total | peak WCU/s | peak RCU/s |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, p := range r.Partitions[:min(n, len(r.Partitions))] {
		fmt.Fprintf(&b, "| `%s` | %.3f | %.3f | %.0f | %.0f | %.0f | %.0f |\n", p.Partition, p.WCUPerUnit, p.RCUPerUnit, p.WCU, p.RCU, p.PeakWCU, p.PeakRCU)
	}
	b.WriteString("\nItems most often in transactions, then by write units:\n\n| item | transactions / customer | WCU total |\n|---|---:|---:|\n")
	for _, it := range r.Items[:min(n, len(r.Items))] {
		fmt.Fprintf(&b, "| `%s` | %.3f | %.0f |\n", it.Item, it.TransactionsPerUnit, it.WCU)
	}
	b.WriteString("\nCeilings (customers per second one account can reach before the limit):\n\n| limit | per customer | customers/s |\n|---|---:|---:|\n")
	for _, l := range r.Limits[:min(n, len(r.Limits))] {
		fmt.Fprintf(&b, "| %s | %.3f | %.0f |\n", l.What, l.PerUnit, l.Rate)
	}
	if len(r.Limits) > 0 {
		l := r.Limits[0]
		fmt.Fprintf(&b, "\nProjected: %.0f customers/s per account, bound by %s (%.0f units/s of the hottest key at that rate).\n",
			r.Projected, l.What, l.PerUnit*r.Projected)
	}
	return b.String()
}
