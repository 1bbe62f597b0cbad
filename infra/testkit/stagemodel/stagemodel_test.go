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
				Function: Function{Calls: 170, CPU: 35 * time.Millisecond, Customers: 10}}.Stage(), 50 / 0.885},
		{"the same batch with its customers at once: 12 requests in sequence",
			Mapping{Name: "jobs", BatchSize: 10, MaximumConcurrency: 5,
				Function: Function{Calls: 12, CPU: 35 * time.Millisecond, Customers: 10}}.Stage(), 50 / 0.095},
		{"a function's CPU on its share of a vCPU: 1,769 / 1,024 MB",
			Mapping{Name: "jobs", BatchSize: 10, MaximumConcurrency: 10,
				Function: Function{Calls: 10, CPU: 100 * time.Millisecond, MemoryMB: 1024, Customers: 10}}.Stage(),
			100 / (0.05 + 0.1*1769/1024)},
		{"a FIFO queue in the default mode, one message a customer, full batches",
			Queue{Name: "q", CallsPerSecond: FIFOCallsPerSecond, Batch: 10, MessagesPerCustomer: 1, Mode: "default"}.Stage(), 3000},
		{"half-full batches and two messages a customer",
			Queue{Name: "q", CallsPerSecond: FIFOCallsPerSecond, Batch: 5, MessagesPerCustomer: 2, Mode: "default"}.Stage(), 750},
		{"Lambda's concurrency over 0.1 s + 0.4 s of function time a customer",
			Concurrency(1000, map[string]Function{
				"import": {Calls: 0, CPU: time.Second, Customers: 10},
				"jobs":   {Calls: 0, CPU: 4 * time.Second, Customers: 10}}), 2000},
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
	st := Intake{Function: Function{Calls: 30, CPU: 50 * time.Millisecond, Customers: 250}, InFlight: 2}.Stages()
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
