// Package routes is the registry of the service's Lambda functions, the one place an
// operation is declared: its name (the LogicalId without "Function", whose kebab case
// is its folder under functions/), its route, the handler constructor its main.go
// starts and what it may do on the stack's resources (Access). From it, `go generate
// ./shared/routes` (infra/stackgen) writes the template's functions, their shared IAM
// roles and the HTTP API's routes, and every functions/<folder>/main.go; the local
// stack and the tests read it too, so they run exactly the code the Lambdas run. Each
// family of operations keeps its entries in its own file; Functions merges them.
package routes

//go:generate go run github.com/subsight/subsight/infra/stackgen

import (
	"context"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/auth"
	"github.com/subsight/subsight/shared/dashboard"
	"github.com/subsight/subsight/shared/sqsworker"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/stripewebhook"
	"github.com/subsight/subsight/shared/workers"
)

// API builds an HTTP operation.
type API = func(*api.Deps) apigw.Endpoint

// Scheduled builds the handler of a function invoked by an EventBridge schedule; the
// event itself carries nothing the handler needs.
type Scheduled = func(*workers.Deps) func(context.Context) error

// Route is an HTTP API route: a method and a path with {parameters}.
type Route struct{ Method, Path string }

// Key is API Gateway's route key, "GET /v1/ping".
func (r Route) Key() string { return r.Method + " " + r.Path }

// Parameters are the names of the route's path parameters, in order.
func (r Route) Parameters() []string {
	var out []string
	for _, seg := range strings.Split(r.Path, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			out = append(out, strings.Trim(seg, "{}"))
		}
	}
	return out
}

func get(path string) Route    { return Route{"GET", path} }
func post(path string) Route   { return Route{"POST", path} }
func put(path string) Route    { return Route{"PUT", path} }
func patch(path string) Route  { return Route{"PATCH", path} }
func delete(path string) Route { return Route{"DELETE", path} }

// Operation is one HTTP API operation behind the API-key authorizer: its function's
// name, its route, its handler, its access and the settings of its function that are
// not the template's Globals. Declared with op, and the methods below for the rest.
type Operation struct {
	Name    string
	Route   Route
	Handler API
	Access  Access
	// MemorySize (MB) and Timeout (seconds) override the template's Globals when set.
	MemorySize, Timeout int
	// Throttle names the route-level throttle of the operation's route (Function.Throttle).
	Throttle string
	// ByExternalID declares the operation's twin: the same method on the route without
	// its path parameter, named "<Name>ByExternalId", served by the same handler with the
	// same access; the handler finds the record by data_source_uuid and external_id
	// (query string or body) when the path parameter is absent.
	ByExternalID bool
}

// op declares an operation: its name, route, handler and access.
func op(name string, route Route, handler API, access Access) Operation {
	return Operation{Name: name, Route: route, Handler: handler, Access: access}
}

// memory sets the operation's MemorySize (MB).
func (o Operation) memory(mb int) Operation { o.MemorySize = mb; return o }

// throttled gives the operation's route the route-level throttle named.
func (o Operation) throttled(name string) Operation { o.Throttle = name; return o }

// andByExternalID declares the operation's by-external-id twin (ByExternalID).
func (o Operation) andByExternalID() Operation { o.ByExternalID = true; return o }

// declared is the operation and, when it has one, its by-external-id twin, in that
// order.
func (o Operation) declared() []Operation {
	if !o.ByExternalID {
		return []Operation{o}
	}
	if n := len(o.Route.Parameters()); n != 1 {
		panic(fmt.Sprintf("routes: %s has %d path parameters; a by-external-id twin drops exactly one", o.Name, n))
	}
	twin := o
	twin.Name, twin.ByExternalID = o.Name+"ByExternalId", false
	twin.Route.Path = strings.Replace(o.Route.Path, "/{"+o.Route.Parameters()[0]+"}", "", 1)
	return []Operation{o, twin}
}

// family is a group of operations: their section of the registry, their invoke role in
// the template and their tag in docs/openapi.yaml (Function.Family).
type family struct {
	name       string
	operations []Operation
}

// families are the operations' families, in the template's order.
var families = []family{{"Account", slices.Concat(accountOperations, stripeConnectionOperations, stripeSettingsOperations, stripeBackfillOperations)}, {"Customers", customerOperations}, {"Crm", crmOperations},
	{"Billing", billingOperations}, {"Metrics", metricsOperations}, {"Imports", importOperations}}

// Function is one Lambda function of the template. Exactly one constructor is set;
// it says how main.go starts the function (lambdaapp.API, Public, Worker, Scheduled
// or Authorizer).
type Function struct {
	Name string
	// Family names the operations' group (the API's invoke role is one per family).
	Family string
	// Routes are the function's HTTP API routes (an operation has one; a public
	// function its pages).
	Routes []Route
	Access Access
	// MemorySize (MB) and Timeout (seconds) override the template's Globals when set.
	MemorySize, Timeout int
	// ReservedConcurrency names the template parameter of the function's reserved
	// concurrency, a floor and a ceiling at once: what the rest of the account cannot
	// take from it, and all it may take (docs/architecture.md, "Guard rails"). Empty:
	// none, the function shares the account's unreserved pool.
	ReservedConcurrency string
	// Throttle names the route-level throttle of the function's routes: the template
	// parameters <Throttle>ThrottleRate and <Throttle>ThrottleBurst. Empty: the stage's
	// default (ApiThrottleRate, ApiThrottleBurst).
	Throttle string
	// Queues are the FIFO queues a worker reads, each an event source of its own (a
	// lane, with its own concurrency); Schedule a scheduled function's rate.
	Queues   []QueueSource
	Schedule *Schedule

	API    API
	Public func() dashboard.Handler
	// StripeWebhook is a route without the authorizer whose handler authenticates each
	// request itself (a Stripe signature), with the dependencies it needs for that.
	StripeWebhook func(*stripewebhook.Deps) apigw.Endpoint
	Worker        func(*workers.Deps) sqsworker.Handler
	Scheduled     Scheduled
	Authorizer    func(store.KeyResolver) auth.AuthorizerHandler
}

// QueueSource is a worker's SQS event source: Lambda delivers batches of at most
// BatchSize messages, with partial batch responses, to at most MaxConcurrency
// concurrent invocations.
type QueueSource struct {
	// Event is the event's name in the template ("Queue" when empty); Queue the
	// LogicalId of the queue.
	Event, Queue              string
	BatchSize, MaxConcurrency int
}

// EventName is the source's event name in the template.
func (q QueueSource) EventName() string {
	if q.Event == "" {
		return "Queue"
	}
	return q.Event
}

// Schedule is an EventBridge schedule.
type Schedule struct{ Rate, Description string }

// LogicalID is the function's resource name in template.yaml.
func (f Function) LogicalID() string { return f.Name + "Function" }

// Tag is the tag of the function's operations in docs/openapi.yaml: its family's name
// in lower case.
func (f Function) Tag() string { return strings.ToLower(f.Family) }

// OperationID is the operationId of the function's operation in docs/openapi.yaml: its
// name with a lower-case first letter. A function of several routes (the dashboard's)
// names each operation with it and a word of its own.
func (f Function) OperationID() string { return strings.ToLower(f.Name[:1]) + f.Name[1:] }

// Folder is the function's folder under functions/ and under the build output.
func (f Function) Folder() string { return Folder(f.LogicalID()) }

// Functions are every function of the service, in the template's order: the
// authorizer, the public pages, the operations family by family, the Stripe webhook and
// its worker, the workers and the scheduled functions.
var Functions = func() []Function {
	out := []Function{authorizer, dashboardPages}
	for _, fam := range families {
		for _, declared := range fam.operations {
			for _, o := range declared.declared() {
				out = append(out, Function{Name: o.Name, Family: fam.name, Routes: []Route{o.Route}, API: o.Handler,
					Access: withRequestCounting(o.Access), MemorySize: o.MemorySize, Timeout: o.Timeout, Throttle: o.Throttle})
			}
		}
	}
	out = append(out, stripeWebhookFunctions...)
	out = append(out, backgroundFunctions...)
	seen := map[string]bool{}
	for _, f := range out {
		if seen[f.Name] {
			panic(fmt.Sprintf("routes: %s registered twice", f.Name))
		}
		seen[f.Name] = true
	}
	return out
}()

// Lookup returns the registered function of a LogicalId.
func Lookup(logicalID string) (Function, bool) {
	i := slices.IndexFunc(Functions, func(f Function) bool { return f.LogicalID() == logicalID })
	if i < 0 {
		return Function{}, false
	}
	return Functions[i], true
}

// The constructors by LogicalId, for the local stack and the tests.
var (
	// APIs are the HTTP API operations.
	APIs = byKind(func(f Function) API { return f.API })
	// Workers are the SQS queue consumers.
	Workers = byKind(func(f Function) func(*workers.Deps) sqsworker.Handler { return f.Worker })
	// Authorizers are the HTTP API Lambda authorizers.
	Authorizers = byKind(func(f Function) func(store.KeyResolver) auth.AuthorizerHandler { return f.Authorizer })
	// Schedules are the functions with Schedule events.
	Schedules = byKind(func(f Function) Scheduled { return f.Scheduled })
	// Public are the functions of routes without the authorizer: they get no account and
	// no AWS client, and answer anyone.
	Public = byKind(func(f Function) func() dashboard.Handler { return f.Public })
	// StripeWebhooks are the routes without the authorizer that authenticate each
	// request by its Stripe signature.
	StripeWebhooks = byKind(func(f Function) func(*stripewebhook.Deps) apigw.Endpoint { return f.StripeWebhook })
)

// Open tells a function whose routes go without the API-key authorizer: the public
// pages and the Stripe webhook.
func (f Function) Open() bool { return f.Public != nil || f.StripeWebhook != nil }

func byKind[C any](constructor func(Function) C) map[string]C {
	out := map[string]C{}
	for _, f := range Functions {
		if c := constructor(f); !isNil(c) {
			out[f.LogicalID()] = c
		}
	}
	return out
}

func isNil(v any) bool { return reflect.ValueOf(v).IsNil() }

var (
	upperRun   = regexp.MustCompile(`([A-Z]+)([A-Z][a-z])`)
	lowerUpper = regexp.MustCompile(`([a-z0-9])([A-Z])`)
)

// Folder is the folder under functions/ (and under the build output) of a function:
// its LogicalId without "Function", in kebab case (GetAccountFunction -> get-account,
// CreateCSVImportFunction -> create-csv-import). The Makefile's build-%Function rule
// applies the same rule.
func Folder(logicalID string) string {
	stem := strings.TrimSuffix(logicalID, "Function")
	stem = upperRun.ReplaceAllString(stem, "$1-$2")
	stem = lowerUpper.ReplaceAllString(stem, "$1-$2")
	return strings.ToLower(stem)
}
