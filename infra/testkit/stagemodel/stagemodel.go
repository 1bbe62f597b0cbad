// Package stagemodel is the stage-by-stage throughput model of an account's first
// import: every stage a customer passes from the client to DynamoDB, the table's own
// throughput included, how many customers per second each can pass, and which one
// binds, at a given time per AWS request and a given state of the table. Its inputs
// are measured (requests, units and CPU of each function, from the import benchmark)
// or published (AWS's limits and latencies); nothing in it is tuned
// (docs/benchmarks.md, "One account at scale" and "Stage model on a real table").
package stagemodel

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// Published limits and latencies the model uses (docs/benchmarks.md lists the sources).
const (
	// HTTPAPIRequestsPerSecond is API Gateway's default throttle per account and Region.
	HTTPAPIRequestsPerSecond = 10_000
	// LambdaAccountConcurrency is Lambda's default concurrency per account and Region.
	LambdaAccountConcurrency = 1_000
	// FIFOCallsPerSecond is what one FIFO queue takes per API action (send, receive,
	// delete) in the default throughput mode; FIFOHighThroughputCallsPerSecond in
	// high-throughput mode (us-east-1, us-west-2, eu-west-1), where one message group
	// still takes FIFOCallsPerSecond.
	FIFOCallsPerSecond               = 300
	FIFOHighThroughputCallsPerSecond = 70_000
	// FIFOBatch is the most messages one send, receive or delete carries.
	FIFOBatch = 10
	// S3PutsPerPrefixPerSecond and S3GetsPerPrefixPerSecond are S3's request rates per
	// key prefix.
	S3PutsPerPrefixPerSecond = 3_500
	S3GetsPerPrefixPerSecond = 5_500
	// CallLatency is what one AWS request adds to a function's time at best: DynamoDB
	// answers in single-digit milliseconds; SQS and S3 requests are counted at the same
	// figure. Latencies are the figures the model is shown at.
	CallLatency = 5 * time.Millisecond
	// HeavyRequestFactor is how many single-item requests' time a transaction or a
	// batch write takes (HeavyOperations): the model's assumption, since DynamoDB
	// prepares and commits a transaction on every item's partition, and a batch write
	// of up to 25 items waits for its slowest partition.
	HeavyRequestFactor = 2
	// FullVCPUMemoryMB is the memory size at which a function has one whole vCPU; below
	// it, its share of one.
	FullVCPUMemoryMB = 1769
)

// Latencies are the times per request the model is shown at: DynamoDB's single-digit
// milliseconds at best, 15 ms a usual figure end to end from a Lambda function, 25 ms
// a slow day.
var Latencies = []time.Duration{5 * time.Millisecond, 15 * time.Millisecond, 25 * time.Millisecond}

// HeavyOperations are the requests priced at HeavyRequestFactor single-item requests.
var HeavyOperations = map[string]bool{"TransactWriteItems": true, "TransactGetItems": true, "BatchWriteItem": true}

// Stage is one step a customer passes and the rate it can pass them at.
type Stage struct {
	Name  string
	Rate  float64 // customers per second, at most
	Basis string  // the arithmetic, with its inputs
}

// Model is the stages of one path, in the order a customer passes them.
type Model struct{ Stages []Stage }

// Binding is the stage with the lowest rate (the first of equals).
func (m Model) Binding() Stage {
	var b Stage
	for i, s := range m.Stages {
		if i == 0 || s.Rate < b.Rate {
			b = s
		}
	}
	return b
}

// Rate is the end-to-end rate: the binding stage's.
func (m Model) Rate() float64 { return m.Binding().Rate }

// Time is how long n customers take at the end-to-end rate.
func (m Model) Time(n int) time.Duration {
	r := m.Rate()
	if r <= 0 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(float64(n) / r * float64(time.Second))
}

// Table renders the stages as a Markdown table, the binding one in bold, and the
// end-to-end rate.
func (m Model) Table() string {
	var b strings.Builder
	b.WriteString("| stage | customers/s | how |\n|---|---:|---|\n")
	binding := m.Binding().Name
	for _, s := range m.Stages {
		name, rate := s.Name, fmt.Sprintf("%.0f", s.Rate)
		if s.Name == binding {
			name, rate = "**"+name+"**", "**"+rate+"**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", name, rate, s.Basis)
	}
	fmt.Fprintf(&b, "\nEnd to end: %.0f customers per second, bound by %s; 1,000,000 customers in %s.\n",
		m.Rate(), binding, m.Time(1_000_000).Round(time.Second))
	return b.String()
}

// Function is the measured cost of one invocation of a function.
type Function struct {
	// Calls is the AWS requests of one invocation that run one after the other (its
	// critical path: requests sent at once count once); HeavyCalls how many of them are
	// transactions or batch writes (HeavyOperations).
	Calls, HeavyCalls float64
	// CPU is the invocation's own processing time, measured on one core.
	CPU time.Duration
	// MemoryMB is the function's memory size (its share of a vCPU); 0 counts one vCPU.
	MemoryMB int
	// Customers is how many customers one invocation carries.
	Customers float64
}

// Duration is one invocation's time when a single-item request takes latency: its
// requests in sequence (a transaction or batch write HeavyRequestFactor times as
// long), plus its CPU on its share of a vCPU.
func (f Function) Duration(latency time.Duration) time.Duration {
	return time.Duration(f.requests()*float64(latency)) + f.lambdaCPU()
}

// requests is the invocation's requests in sequence in single-item requests' time.
func (f Function) requests() float64 {
	return f.Calls + (HeavyRequestFactor-1)*f.HeavyCalls
}

// calls renders the requests in sequence, the heavy ones apart.
func (f Function) calls(latency time.Duration) string {
	if f.HeavyCalls == 0 {
		return fmt.Sprintf("%.1f requests in sequence × %v", f.Calls, latency)
	}
	return fmt.Sprintf("%.1f requests in sequence × %v, %.1f of them transactions or batch writes × %d", f.Calls, latency,
		f.HeavyCalls, HeavyRequestFactor)
}

// lambdaCPU is the CPU time on the function's share of a vCPU.
func (f Function) lambdaCPU() time.Duration {
	if f.MemoryMB <= 0 || f.MemoryMB >= FullVCPUMemoryMB {
		return f.CPU
	}
	return time.Duration(float64(f.CPU) * FullVCPUMemoryMB / float64(f.MemoryMB))
}

// PerCustomer is the function time one customer takes (Lambda's concurrency is spent
// in these units: concurrency = rate × seconds per customer).
func (f Function) PerCustomer(latency time.Duration) time.Duration {
	return time.Duration(float64(f.Duration(latency)) / max(f.Customers, 1e-9))
}

// Mapping is an SQS event source mapping: batches of up to BatchSize messages, at
// most MaximumConcurrency invocations at once, each running Function.
type Mapping struct {
	Name               string
	BatchSize          int
	MaximumConcurrency int
	// Groups is how many message groups of one account the lane has, when fewer than
	// MaximumConcurrency (0: one per customer, never fewer): Lambda runs one batch of
	// a FIFO message group at a time, so an account whose work is one group (its
	// series folds) gets one invocation at a time, however many the mapping allows
	// across accounts.
	Groups   int
	Function Function
}

// Concurrency is how many of the lane's batches one account gets at once.
func (m Mapping) Concurrency() int {
	if m.Groups > 0 {
		return min(m.Groups, m.MaximumConcurrency)
	}
	return m.MaximumConcurrency
}

// Stage is the mapping's rate: Concurrency batches at once, each of
// Function.Customers customers in Function.Duration.
func (m Mapping) Stage(latency time.Duration) Stage {
	d := m.Function.Duration(latency)
	at := fmt.Sprintf("%d at once", m.Concurrency())
	if m.Concurrency() < m.MaximumConcurrency {
		at = fmt.Sprintf("%d at once (one account's %d message group%s; MaximumConcurrency %d across accounts)",
			m.Concurrency(), m.Groups, map[bool]string{true: "", false: "s"}[m.Groups == 1], m.MaximumConcurrency)
	}
	return Stage{Name: m.Name,
		Rate: float64(m.Concurrency()) * m.Function.Customers / d.Seconds(),
		Basis: fmt.Sprintf("%s × %.1f customers a batch (batch size %d) / %s a batch (%s + %s CPU%s)",
			at, m.Function.Customers, m.BatchSize, round(d), m.Function.calls(latency), round(m.Function.lambdaCPU()),
			m.Function.share())}
}

// Queue is a FIFO queue: per API action CallsPerSecond, each call carrying up to
// FIFOBatch messages (Batch, as measured), MessagesPerCustomer messages per customer.
type Queue struct {
	Name                string
	CallsPerSecond      float64
	Batch               float64
	MessagesPerCustomer float64
	Mode                string // "default" or "high-throughput"
}

// Stage is the queue's rate: its busiest action at CallsPerSecond.
func (q Queue) Stage() Stage {
	return Stage{Name: q.Name, Rate: q.CallsPerSecond * q.Batch / q.MessagesPerCustomer,
		Basis: fmt.Sprintf("%s mode: %s calls/s per action × %.1f messages a call / %.2f messages a customer",
			q.Mode, thousands(q.CallsPerSecond), q.Batch, q.MessagesPerCustomer)}
}

// Intake is API Gateway and the json_imports function: each request carries
// Function.Customers customers; a client keeps InFlight requests going.
type Intake struct {
	Function Function
	InFlight int
}

// Stages are API Gateway's and the intake function's rates.
func (in Intake) Stages(latency time.Duration) []Stage {
	d := in.Function.Duration(latency)
	return []Stage{
		{Name: "API Gateway (HTTP API)", Rate: HTTPAPIRequestsPerSecond * in.Function.Customers,
			Basis: fmt.Sprintf("%s requests/s × %.0f customers a json_import", thousands(HTTPAPIRequestsPerSecond), in.Function.Customers)},
		{Name: "intake function (POST json_imports)", Rate: float64(in.InFlight) * in.Function.Customers / d.Seconds(),
			Basis: fmt.Sprintf("%d requests in flight × %.0f customers / %s a request (%s + %s CPU%s)",
				in.InFlight, in.Function.Customers, round(d), in.Function.calls(latency), round(in.Function.lambdaCPU()), in.Function.share())},
	}
}

// Concurrency is Lambda's account concurrency shared by the functions that run per
// customer: at rate r, each uses r × its seconds per customer at once.
func Concurrency(available int, fns map[string]Function, latency time.Duration) Stage {
	total := 0.0
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(fns)) {
		total += fns[name].PerCustomer(latency).Seconds()
		parts = append(parts, fmt.Sprintf("%s %s", name, round(fns[name].PerCustomer(latency))))
	}
	return Stage{Name: "Lambda account concurrency", Rate: float64(available) / total,
		Basis: fmt.Sprintf("%s executions / %s of function time a customer (%s)", thousands(float64(available)),
			round(time.Duration(total*float64(time.Second))), strings.Join(parts, ", "))}
}

// S3 is the bucket: puts and gets per customer, on one prefix per import.
func S3(putsPerCustomer, getsPerCustomer float64) Stage {
	rate := math.Min(S3PutsPerPrefixPerSecond/putsPerCustomer, S3GetsPerPrefixPerSecond/getsPerCustomer)
	return Stage{Name: "S3 (import parts)", Rate: rate,
		Basis: fmt.Sprintf("%s puts/s / %.3f a customer; %s gets/s / %.3f a customer (one prefix)",
			thousands(S3PutsPerPrefixPerSecond), putsPerCustomer, thousands(S3GetsPerPrefixPerSecond), getsPerCustomer)}
}

// DynamoDB is the heat meter's projection: the rate at which the account's hottest
// partition key value or item reaches its limit.
func DynamoDB(projected float64, bound string) Stage {
	return Stage{Name: "DynamoDB (per-key limits, heat meter)", Rate: projected, Basis: "bound by " + bound}
}

// share says how the measured CPU time was scaled to the function's share of a vCPU.
func (f Function) share() string {
	if f.lambdaCPU() == f.CPU {
		return ""
	}
	return fmt.Sprintf(": %s measured × %d/%d MB", round(f.CPU), FullVCPUMemoryMB, f.MemoryMB)
}

func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(100 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// thousands renders 10000 as "10,000".
func thousands(x float64) string {
	s := fmt.Sprintf("%.0f", x)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
