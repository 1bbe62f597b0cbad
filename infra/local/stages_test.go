package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

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
// measured: per function, the AWS requests one invocation makes in sequence and its
// CPU time; per queue, the messages a customer sends and how many a batch carried; the
// template's batch sizes, maximum concurrencies and queue modes; the heat meter's
// projection of DynamoDB's per-key limits.
func importStageModel(b testing.TB, s *stack, calls *ddbmeter.Calls, snap ddbmeter.Snapshot, heat ddbmeter.HeatReport,
	cpu stageCPU, customers, requests int) stagemodel.Model {
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
		fn, _, _ := strings.Cut(name, ":")
		return stagemodel.Function{Calls: seq, CPU: cpu / time.Duration(f.Invocations), MemoryMB: s.template.Functions[fn].MemorySize,
			Customers: float64(customers) / float64(f.Invocations)}, f
	}
	intake, _ := function("CreateJsonImportFunction", cpu.intake)
	// The one assumption on the client: it keeps two json_imports in flight (ChartMogul's
	// clients may keep twenty connections).
	model := stagemodel.Model{Stages: stagemodel.Intake{Function: intake, InFlight: 2}.Stages()}
	model.Stages = append(model.Stages, stagemodel.S3(float64(snap.Requests["PutObject"])/float64(customers),
		float64(snap.Requests["GetObject"])/float64(customers)))
	perCustomer := map[string]stagemodel.Function{"intake": intake}
	lane := func(label, queue string, cpu time.Duration) {
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
		model.Stages = append(model.Stages,
			stagemodel.Queue{Name: queue + " (SQS FIFO)", CallsPerSecond: callsPerSecond, Mode: mode,
				Batch:               min(float64(stagemodel.FIFOBatch), sent/max(float64(fnInvocations(fns, queue)), 1)),
				MessagesPerCustomer: sent / float64(customers)}.Stage(),
			stagemodel.Mapping{Name: label, BatchSize: m.BatchSize, MaximumConcurrency: m.MaximumConcurrency, Function: fn}.Stage())
		perCustomer[label] = fn
	}
	lane("import worker (ImportQueue mapping)", "ImportQueue", cpu.importWorker)
	recomputes := "RecomputeQueue"
	if _, ok := mappings[recomputes]; !ok {
		recomputes = "JobsQueue" // one lane for every recomputation
	}
	lane(fmt.Sprintf("recomputations (%s mapping)", recomputes), recomputes, cpu.recompute)
	if _, ok := mappings["SeriesFoldQueue"]; ok {
		lane("series folds (SeriesFoldQueue mapping)", "SeriesFoldQueue", cpu.fold)
	}
	model.Stages = append(model.Stages, stagemodel.Concurrency(stagemodel.LambdaAccountConcurrency, perCustomer))
	bound := "nothing"
	if len(heat.Limits) > 0 {
		bound = heat.Limits[0].What
	}
	model.Stages = append(model.Stages, stagemodel.DynamoDB(heat.Projected, bound))
	return model
}

// fnInvocations is how many batches of the queue a worker ran.
func fnInvocations(fns map[string]ddbmeter.FunctionCalls, queue string) int {
	n := 0
	for _, w := range []string{"ImportWorkerFunction", "JobsWorkerFunction"} {
		n += fns[w+":"+queue].Invocations
	}
	return n
}
