package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/subsight/subsight/infra/devstack/samtemplate"
	"github.com/subsight/subsight/infra/testkit/ddbmeter"
	"github.com/subsight/subsight/infra/testkit/stagemodel"
)

// stageCPU is this process's CPU time in each stage of the import benchmark (or the
// stages' wall times).
type stageCPU struct{ intake, importWorker, recompute, fold time.Duration }

// without takes out of each stage's CPU time the idle rate (CPU seconds per second)
// over the stage's wall time.
func (c stageCPU) without(idle float64, walls stageCPU) stageCPU {
	sub := func(cpu, wall time.Duration) time.Duration { return max(0, cpu-time.Duration(idle*float64(wall))) }
	return stageCPU{intake: sub(c.intake, walls.intake), importWorker: sub(c.importWorker, walls.importWorker),
		recompute: sub(c.recompute, walls.recompute), fold: sub(c.fold, walls.fold)}
}

// importStageModel is the stage model of a first import from what the benchmark
// measured: per function, the AWS requests one invocation makes in sequence (the
// transactions and batch writes among them) and its CPU time; per queue, the messages
// a customer sends and how many a batch carried; the template's batch sizes, maximum
// concurrencies and queue modes; the heat meter's projection of DynamoDB's per-key
// limits and the write and read units of a customer.
func importStageModel(b testing.TB, s *stack, calls *ddbmeter.Calls, snap ddbmeter.Snapshot, heat ddbmeter.HeatReport,
	cpu stageCPU, customers, requests int) stagemodel.Import {
	fns := calls.Functions()
	mappings := map[string]samtemplate.SQSMapping{}
	for _, m := range s.template.SQSMappings() {
		mappings[m.Queue] = m
	}
	function := func(name string, cpu time.Duration) (stagemodel.Function, ddbmeter.FunctionCalls) {
		f, ok := fns[name]
		if !ok || f.Invocations == 0 {
			b.Fatalf("stage model: no invocation of %s was measured", name)
		}
		_, seq := f.PerInvocation()
		heavy := 0
		for op, n := range f.SequentialByOperation {
			if stagemodel.HeavyOperations[op] {
				heavy += n
			}
		}
		fn, _, _ := strings.Cut(name, ":")
		return stagemodel.Function{Calls: seq, HeavyCalls: float64(heavy) / float64(f.Invocations), CPU: cpu / time.Duration(f.Invocations),
			MemoryMB: s.template.Functions[fn].MemorySize, Customers: float64(customers) / float64(f.Invocations)}, f
	}
	intake, _ := function("CreateJsonImportFunction", cpu.intake)
	// The one assumption on the client: it keeps importClientInFlight json_imports in
	// flight (ChartMogul's clients may keep twenty connections).
	model := stagemodel.Import{Intake: stagemodel.Intake{Function: intake, InFlight: importClientInFlight},
		S3:          stagemodel.S3(float64(snap.Requests["PutObject"])/float64(customers), float64(snap.Requests["GetObject"])/float64(customers)),
		Concurrency: stagemodel.LambdaAccountConcurrency, Units: map[string]stagemodel.Units{}}
	for _, p := range heat.Partitions {
		part, _, _ := strings.Cut(p.Partition, " ") // "table <PK>", "GSI1 <GSI1PK>"
		u := model.Units[part]
		u.Write += p.WCU / float64(customers)
		u.Read += p.RCU / float64(customers)
		model.Units[part] = u
	}
	lane := func(label, queue string, cpu time.Duration, groups int) {
		worker := "JobsWorkerFunction"
		if queue == "ImportQueue" {
			worker = "ImportWorkerFunction"
		}
		fn, _ := function(worker+":"+queue, cpu)
		m := mappings[queue]
		q := s.template.Queues[queue]
		mode, callsPerSecond := "default", float64(stagemodel.FIFOCallsPerSecond)
		if q.FifoThroughputLimit == "perMessageGroupId" {
			mode, callsPerSecond = "high-throughput", stagemodel.FIFOHighThroughputCallsPerSecond
		}
		sent := float64(calls.Sent(s.resources.Queues[queue].URL))
		if groups > 0 {
			// One group: with a backlog every batch is full, each fold taking BatchSize
			// messages' customers.
			fn.Customers = float64(m.BatchSize) * float64(customers) / sent
		}
		model.Lanes = append(model.Lanes, stagemodel.Lane{
			Queue: stagemodel.Queue{Name: queue + " (SQS FIFO)", CallsPerSecond: callsPerSecond, Mode: mode,
				Batch:               min(float64(stagemodel.FIFOBatch), sent/max(float64(fnInvocations(fns, queue)), 1)),
				MessagesPerCustomer: sent / float64(customers)},
			Mapping: stagemodel.Mapping{Name: label, BatchSize: m.BatchSize, MaximumConcurrency: m.MaximumConcurrency, Groups: groups, Function: fn}})
	}
	lane("import worker (ImportQueue mapping)", "ImportQueue", cpu.importWorker, 0)
	recomputes := "RecomputeQueue"
	if _, ok := mappings[recomputes]; !ok {
		recomputes = "JobsQueue" // one lane for every recomputation
	}
	lane(fmt.Sprintf("recomputations (%s mapping)", recomputes), recomputes, cpu.recompute, 0)
	if _, ok := mappings["SeriesFoldQueue"]; ok {
		// An account's folds are one message group (docs/architecture.md, "Lanes").
		lane("series folds (SeriesFoldQueue mapping)", "SeriesFoldQueue", cpu.fold, 1)
	}
	bound := "nothing"
	if len(heat.Limits) > 0 {
		bound = heat.Limits[0].What
	}
	model.Keys = stagemodel.DynamoDB(heat.Projected, bound)
	return model
}

// importClientInFlight is how many json_imports the model's client keeps in flight: a
// loader that sends its next batch while three are being parsed (the default quota
// admits 50 in flight). With two, the intake binds below the workers at 15 ms a
// request (docs/benchmarks.md, "Stage model on a real table").
const importClientInFlight = 3

// raisedTableQuota is the per-table quota the warmed table is modelled with: the
// quota increase a deployment asks for before it pre-warms the table (README, "Deploy").
var raisedTableQuota = stagemodel.Units{Write: 80_000, Read: 80_000}

// warmOverrides are the parameter overrides README's "Deploy" gives for a first import
// of a million customers; the template's defaults are a new table's own figures, which
// the model's new-table row already covers.
var warmOverrides = map[string]string{"TableWarmWriteUnits": "60000", "TableWarmReadUnits": "70000",
	"IndexWarmWriteUnits": "8000", "IndexWarmReadUnits": "12000"}

// warmedTable is the table state a deployment with warmOverrides has: the WarmThroughput
// of the Table and of each of its indexes, read from the template's properties and the
// overrides (or the parameters' defaults), with the per-table quotas raised to
// raisedTableQuota.
func warmedTable(b testing.TB, root string) stagemodel.Table {
	raw, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	type warm struct {
		ReadUnitsPerSecond  samtemplate.Value `yaml:"ReadUnitsPerSecond"`
		WriteUnitsPerSecond samtemplate.Value `yaml:"WriteUnitsPerSecond"`
	}
	var doc struct {
		Parameters map[string]struct {
			Default string `yaml:"Default"`
		} `yaml:"Parameters"`
		Resources struct {
			Table struct {
				Properties struct {
					WarmThroughput         warm `yaml:"WarmThroughput"`
					GlobalSecondaryIndexes []struct {
						IndexName      string `yaml:"IndexName"`
						WarmThroughput warm   `yaml:"WarmThroughput"`
					} `yaml:"GlobalSecondaryIndexes"`
				} `yaml:"Properties"`
			} `yaml:"Table"`
		} `yaml:"Resources"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		b.Fatal(err)
	}
	number := func(v samtemplate.Value) float64 {
		lit := v.Lit
		if v.Fn == samtemplate.FnRef {
			lit = cmp.Or(warmOverrides[v.Target], doc.Parameters[v.Target].Default)
		}
		n, err := strconv.ParseFloat(lit, 64)
		if err != nil {
			b.Fatalf("template.yaml: the Table's WarmThroughput %v: %v", v, err)
		}
		return n
	}
	units := func(w warm) stagemodel.Units {
		return stagemodel.Units{Write: number(w.WriteUnitsPerSecond), Read: number(w.ReadUnitsPerSecond)}
	}
	parts := map[string]stagemodel.Units{"table": units(doc.Resources.Table.Properties.WarmThroughput)}
	for _, g := range doc.Resources.Table.Properties.GlobalSecondaryIndexes {
		parts[g.IndexName] = units(g.WarmThroughput)
	}
	return stagemodel.Warmed(parts, raisedTableQuota)
}

// fnInvocations is how many batches of the queue a worker ran.
func fnInvocations(fns map[string]ddbmeter.FunctionCalls, queue string) int {
	n := 0
	for _, w := range []string{"ImportWorkerFunction", "JobsWorkerFunction"} {
		n += fns[w+":"+queue].Invocations
	}
	return n
}
