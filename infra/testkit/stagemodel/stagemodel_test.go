package stagemodel

import (
	"math"
	"strings"
	"testing"
	"time"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6*math.Max(1, math.Abs(b)) }

func TestStageRates(t *testing.T) {
	tests := []struct {
		name  string
		stage Stage
		rate  float64
	}{
		{"a mapping whose batch runs its ten messages one after the other: 5 × 10 / (170 × 5 ms + 35 ms)",
			Mapping{Name: "jobs", BatchSize: 10, MaximumConcurrency: 5,
				Function: Function{Calls: 170, CPU: 35 * time.Millisecond, Customers: 10}}.Stage(CallLatency), 50 / 0.885},
		{"the same batch with its customers at once: 12 requests in sequence",
			Mapping{Name: "jobs", BatchSize: 10, MaximumConcurrency: 5,
				Function: Function{Calls: 12, CPU: 35 * time.Millisecond, Customers: 10}}.Stage(CallLatency), 50 / 0.095},
		{"a function's CPU on its share of a vCPU: 1,769 / 1,024 MB",
			Mapping{Name: "jobs", BatchSize: 10, MaximumConcurrency: 10,
				Function: Function{Calls: 10, CPU: 100 * time.Millisecond, MemoryMB: 1024, Customers: 10}}.Stage(CallLatency),
			100 / (0.05 + 0.1*1769/1024)},
		{"at 15 ms a request, two of the twelve a transaction and a batch write: 5 × 10 / (14 × 15 ms + 35 ms)",
			Mapping{Name: "jobs", BatchSize: 10, MaximumConcurrency: 5,
				Function: Function{Calls: 12, HeavyCalls: 2, CPU: 35 * time.Millisecond, Customers: 10}}.Stage(15 * time.Millisecond), 50 / 0.245},
		{"one account's folds: one message group, one fold at a time whatever MaximumConcurrency allows",
			Mapping{Name: "folds", BatchSize: 10, MaximumConcurrency: 5, Groups: 1,
				Function: Function{Calls: 3, CPU: 40 * time.Millisecond, Customers: 100}}.Stage(20 * time.Millisecond), 100 / 0.1},
		{"a new table: the base table's 4,000 WCU/s bind before its 12,000 RCU/s", NewTable.Stage(benchUnits), 4000.0 / 50},
		{"the default quotas: the write quota over table and indexes binds", DefaultQuotas.Stage(benchUnits), 40000.0 / 63},
		{"the base table warmed, its indexes not: GSI1's writes bind", Warmed(map[string]Units{"table": {60_000, 60_000}},
			Units{70_000, 70_000}).Stage(benchUnits), 4000.0 / 8},
		{"everything warmed: the base table's reads bind", benchWarmed.Stage(benchUnits), 60000.0 / 55},
		{"a FIFO queue in the default mode, one message a customer, full batches",
			Queue{Name: "q", CallsPerSecond: FIFOCallsPerSecond, Batch: 10, MessagesPerCustomer: 1, Mode: "default"}.Stage(), 3000},
		{"half-full batches and two messages a customer",
			Queue{Name: "q", CallsPerSecond: FIFOCallsPerSecond, Batch: 5, MessagesPerCustomer: 2, Mode: "default"}.Stage(), 750},
		{"Lambda's concurrency over 0.1 s + 0.4 s of function time a customer",
			Concurrency(1000, map[string]Function{
				"import": {Calls: 0, CPU: time.Second, Customers: 10},
				"jobs":   {Calls: 0, CPU: 4 * time.Second, Customers: 10}}, CallLatency), 2000},
		{"S3: the gets bind", S3(0.004, 2), 2750},
		{"the heat meter's projection as it is", DynamoDB(1255, "RCU of #DS"), 1255},
	}
	for _, tt := range tests {
		if !near(tt.stage.Rate, tt.rate) {
			t.Errorf("%s: %v customers/s, want %v (%s)", tt.name, tt.stage.Rate, tt.rate, tt.stage.Basis)
		}
	}
}

func TestIntakeStages(t *testing.T) {
	st := Intake{Function: Function{Calls: 30, CPU: 50 * time.Millisecond, Customers: 250}, InFlight: 2}.Stages(CallLatency)
	if len(st) != 2 || !near(st[0].Rate, 2_500_000) || !near(st[1].Rate, 2*250/0.2) {
		t.Fatalf("intake stages %+v", st)
	}
}

func TestModelBindingTimeAndTable(t *testing.T) {
	tests := []struct {
		name    string
		stages  []Stage
		binding string
		million time.Duration
	}{
		{"the slowest stage binds", []Stage{{Name: "a", Rate: 3000}, {Name: "b", Rate: 45}, {Name: "c", Rate: 1255}},
			"b", 22222*time.Second + 222222222},
		{"the first of equals", []Stage{{Name: "a", Rate: 1000}, {Name: "b", Rate: 1000}}, "a", 1000 * time.Second},
	}
	for _, tt := range tests {
		m := Model{Stages: tt.stages}
		if got := m.Binding().Name; got != tt.binding {
			t.Errorf("%s: binding %s, want %s", tt.name, got, tt.binding)
		}
		if got := m.Time(1_000_000); got != tt.million {
			t.Errorf("%s: a million customers in %v, want %v", tt.name, got, tt.million)
		}
		table := m.Table()
		if !strings.Contains(table, "| **"+tt.binding+"** |") || strings.Count(table, "**") != 4 {
			t.Errorf("%s: the binding stage is not the one in bold:\n%s", tt.name, table)
		}
	}
}

// benchUnits are a customer's units shaped like the benchmark's: 63 write units and 62
// read units over the table and its indexes.
var benchUnits = map[string]Units{"table": {50, 55}, "GSI1": {8, 5}, "GSI2": {5, 2}}

// benchWarmed is a table warmed for a million customers in 20 minutes (833 a second)
// with room to spare.
var benchWarmed = Warmed(map[string]Units{"table": {60_000, 60_000}, "GSI1": {10_000, 12_000}, "GSI2": {6_000, 12_000}},
	Units{70_000, 70_000})

// benchImport is an import shaped like the benchmark's (rounded figures of one
// measurement).
func benchImport() Import {
	return Import{
		Intake: Intake{Function: Function{Calls: 12.5, CPU: 197 * time.Millisecond, MemoryMB: 1769, Customers: 250}, InFlight: 4},
		S3:     S3(0.1, 0.1),
		Lanes: []Lane{
			{Queue{Name: "ImportQueue", CallsPerSecond: FIFOHighThroughputCallsPerSecond, Batch: 10, MessagesPerCustomer: 1, Mode: "high-throughput"},
				Mapping{Name: "import worker", BatchSize: 10, MaximumConcurrency: 40,
					Function: Function{Calls: 15, HeavyCalls: 3, CPU: 58 * time.Millisecond, MemoryMB: 1024, Customers: 10}}},
			{Queue{Name: "RecomputeQueue", CallsPerSecond: FIFOHighThroughputCallsPerSecond, Batch: 10, MessagesPerCustomer: 1, Mode: "high-throughput"},
				Mapping{Name: "recomputations", BatchSize: 10, MaximumConcurrency: 60,
					Function: Function{Calls: 15, HeavyCalls: 2, CPU: 146 * time.Millisecond, MemoryMB: 1024, Customers: 10}}},
			{Queue{Name: "SeriesFoldQueue", CallsPerSecond: FIFOCallsPerSecond, Batch: 10, MessagesPerCustomer: 0.1, Mode: "default"},
				Mapping{Name: "series folds", BatchSize: 10, MaximumConcurrency: 5, Groups: 1,
					Function: Function{Calls: 3, HeavyCalls: 1, CPU: 23 * time.Millisecond, MemoryMB: 1024, Customers: 100}}},
		},
		Concurrency: LambdaAccountConcurrency,
		Keys:        DynamoDB(2000, "the customer listing's index partitions"),
		Units:       benchUnits,
	}
}

func TestBindingStageByTableState(t *testing.T) {
	in := benchImport()
	warmed := benchWarmed
	tests := []struct {
		name    string
		latency time.Duration
		table   Table
		binding string
	}{
		{"a new table binds at any latency", 5 * time.Millisecond, NewTable, "DynamoDB table (new table)"},
		{"a new table binds at any latency", 25 * time.Millisecond, NewTable, "DynamoDB table (new table)"},
		{"the default quotas still bind at 15 ms", 15 * time.Millisecond, DefaultQuotas, "DynamoDB table (default quotas)"},
		{"warmed, the table binds still at 5 ms", 5 * time.Millisecond, warmed, "DynamoDB table (warmed table)"},
		{"warmed, at 15 ms the account's one-at-a-time folds bind", 15 * time.Millisecond, warmed, "series folds"},
		{"warmed, at 25 ms an account's one-at-a-time folds bind", 25 * time.Millisecond, warmed, "series folds"},
		{"quotas raised and warmed far enough, even at 5 ms the account's one fold at a time binds", 5 * time.Millisecond,
			Warmed(map[string]Units{"table": {200_000, 200_000}, "GSI1": {200_000, 200_000}, "GSI2": {200_000, 200_000}}, Units{400_000, 400_000}),
			"series folds"},
	}
	for _, tt := range tests {
		m := in.Model(tt.latency, tt.table)
		if got := m.Binding().Name; got != tt.binding {
			t.Errorf("%s (%v): bound by %s at %.0f/s, want %s\n%s", tt.name, tt.latency, got, m.Rate(), tt.binding, m.Table())
		}
	}
}

func TestAMillionCustomers(t *testing.T) {
	in := benchImport()
	needs := in.Needs(1_000_000, 20*time.Minute)
	if all := Total(needs); !near(all.Write, 1e6/1200*63) || !near(all.Read, 1e6/1200*62) || !near(needs["GSI2"].Write, 1e6/1200*5) {
		t.Fatalf("a million in 20 minutes needs %+v", needs)
	}
	tests := []struct {
		name    string
		table   Table
		million time.Duration // at 15 ms a request, to the second
	}{
		{"a new table: the base table's 4,000 WCU/s at 50 a customer", NewTable, 12500 * time.Second},
		{"the default quotas: 40,000 WCU/s at 63 a customer", DefaultQuotas, 1575 * time.Second},
		{"warmed above what 20 minutes need", benchWarmed, 20 * time.Minute},
	}
	for _, tt := range tests {
		m := in.Model(15*time.Millisecond, tt.table)
		got := m.Time(1_000_000).Round(time.Second)
		if tt.table.Name == "warmed table" {
			if got > tt.million {
				t.Errorf("%s: a million in %v bound by %s, want at most %v\n%s", tt.name, got, m.Binding().Name, tt.million, m.Table())
			}
			continue
		}
		if got != tt.million {
			t.Errorf("%s: a million in %v, want %v\n%s", tt.name, got, tt.million, m.Table())
		}
	}
	grid := in.Grid([]Table{NewTable, benchWarmed, DefaultQuotas}, Latencies)
	if strings.Count(grid, "bound by") != 9 {
		t.Errorf("the grid has not 3 × 3 cells:\n%s", grid)
	}
}
