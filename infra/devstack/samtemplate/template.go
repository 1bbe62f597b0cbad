// Package samtemplate reads what the local stack uses from template.yaml: the routes
// and their authorizer, the SQS event mappings and schedules, the table, queues and
// bucket, and each function's settings and environment (Globals merged in).
//
// It is a lenient reader, not a validator: CloudFormation and SAM rules are checked by
// cfn-lint and `sam validate --lint` (make lint), properties the local stack does not
// use are ignored, and Parse fails only on what it cannot read. The project's own rules
// about the template are tests in infra/testkit/templatecheck.
//
// References stay symbolic, so the local stack can substitute its own physical names
// (Resolve). A Ref to a parameter that has a default reads as that default, which is
// what `sam deploy` uses unless told otherwise.
package samtemplate

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Resource types the reader models.
const (
	TypeFunction = "AWS::Serverless::Function"
	TypeHttpApi  = "AWS::Serverless::HttpApi"
	TypeTable    = "AWS::DynamoDB::Table"
	TypeQueue    = "AWS::SQS::Queue"
	TypeBucket   = "AWS::S3::Bucket"
	// TypeKey is a KMS key, which the reader keeps in Other by its type.
	TypeKey = "AWS::KMS::Key"
)

// Template is what the local stack reads of a template.
type Template struct {
	Functions map[string]*Function
	HttpApis  map[string]*HttpApi
	Tables    map[string]*Table
	Queues    map[string]*Queue
	Buckets   map[string]*Bucket
	// Other maps the LogicalId of every resource of another type to its type.
	Other map[string]string
	// defaults are the parameters' defaults, for references inside a Sub.
	defaults map[string]string
}

// Function is an AWS::Serverless::Function with Globals.Function merged in.
type Function struct {
	LogicalID     string
	Runtime       string
	Handler       string
	Architectures []string
	Timeout       int // seconds
	MemorySize    int // MB
	// Environment is Globals' variables overlaid with the function's own.
	Environment    map[string]Value
	BuildMethod    string
	HttpEvents     []HttpApiEvent
	SQSEvents      []SQSEvent
	ScheduleEvents []ScheduleEvent // Schedule and ScheduleV2 events
}

// HttpApiEvent is an event of Type HttpApi.
type HttpApiEvent struct {
	Name   string
	Method string // upper case; ANY for any method
	Path   string
	// ApiID is the LogicalId of the AWS::Serverless::HttpApi ("" for SAM's implicit API).
	ApiID string
	// Authorizer is the event's Auth.Authorizer ("" for the API's default, NONE for none).
	Authorizer           string
	PayloadFormatVersion string // "" means SAM's default, 2.0
}

// SQSEvent is an event of Type SQS.
type SQSEvent struct {
	Name                    string
	Queue                   string // LogicalId of the AWS::SQS::Queue
	BatchSize               int
	ReportBatchItemFailures bool
	Enabled                 bool
	MaximumConcurrency      int // ScalingConfig.MaximumConcurrency; 0 when not set
}

// HttpApi is an AWS::Serverless::HttpApi. Its routes are its functions' HttpApi events,
// or the paths of its OpenAPI DefinitionBody, which the reader turns into HttpApi
// events of the functions their integrations invoke.
type HttpApi struct {
	LogicalID         string
	DefaultAuthorizer string
	Authorizers       map[string]Authorizer
	// defined are the DefinitionBody's routes, by the function they invoke.
	defined []definedRoute
}

// definedRoute is a route of a DefinitionBody and the function its integration invokes.
type definedRoute struct {
	function string
	event    HttpApiEvent
}

// Authorizer is a Lambda authorizer of an HttpApi.
type Authorizer struct {
	Name                  string
	Function              string // LogicalId of the authorizer's function
	PayloadFormatVersion  string
	EnableSimpleResponses bool
	IdentityHeaders       []string
	// ResultTTL is how long API Gateway caches an answer per identity source value
	// (0: not cached).
	ResultTTL time.Duration
}

// Table is an AWS::DynamoDB::Table.
type Table struct {
	LogicalID            string
	BillingMode          string
	AttributeDefinitions []AttributeDefinition
	KeySchema            []KeyElement
	GlobalIndexes        []GlobalIndex
	TTLAttribute         string // "" when TTL is off
}

// AttributeDefinition declares a key attribute's type (S, N or B).
type AttributeDefinition struct {
	AttributeName string `yaml:"AttributeName"`
	AttributeType string `yaml:"AttributeType"`
}

// KeyElement is one element of a key schema (HASH or RANGE).
type KeyElement struct {
	AttributeName string `yaml:"AttributeName"`
	KeyType       string `yaml:"KeyType"`
}

// GlobalIndex is a global secondary index.
type GlobalIndex struct {
	IndexName        string
	KeySchema        []KeyElement
	ProjectionType   string
	NonKeyAttributes []string
}

// Queue is an AWS::SQS::Queue. Durations are in seconds; nil means the SQS default.
type Queue struct {
	LogicalID                 string
	FifoQueue                 bool
	ContentBasedDeduplication bool
	VisibilityTimeout         *int
	MessageRetentionPeriod    *int
	DelaySeconds              *int
	ReceiveWaitTime           *int
	DeduplicationScope        string
	FifoThroughputLimit       string
	Redrive                   *Redrive
	// QueueName is the physical name the template gives the queue on AWS (zero when
	// it leaves the name to CloudFormation).
	QueueName Value
}

// Redrive is a queue's RedrivePolicy.
type Redrive struct {
	DeadLetterQueue string // LogicalId of the dead-letter queue
	MaxReceiveCount int
}

// Bucket is an AWS::S3::Bucket.
type Bucket struct {
	LogicalID string
}

// Route is one HttpApi event: the local router's view.
type Route struct {
	Method   string
	Path     string
	Function string
	// Authorizer is the LogicalId of the authorizer function, "" for none.
	Authorizer string
}

// Key is API Gateway's route key, "GET /v1/ping".
func (r Route) Key() string { return r.Method + " " + r.Path }

// SQSMapping is an event source mapping: a queue feeding a function.
type SQSMapping struct {
	Queue                   string
	Function                string
	BatchSize               int
	ReportBatchItemFailures bool
	Enabled                 bool
	MaximumConcurrency      int
}

// The parts of a template that the reader decodes; everything else is ignored.
type (
	rawTemplate struct {
		Globals struct {
			Function rawFunction `yaml:"Function"`
		} `yaml:"Globals"`
		Resources map[string]struct {
			Type       string    `yaml:"Type"`
			Properties yaml.Node `yaml:"Properties"`
			Metadata   struct {
				BuildMethod string `yaml:"BuildMethod"`
			} `yaml:"Metadata"`
		} `yaml:"Resources"`
	}
	rawFunction struct {
		Runtime       *string `yaml:"Runtime"`
		Handler       *string `yaml:"Handler"`
		Architectures []Value `yaml:"Architectures"`
		Timeout       *int    `yaml:"Timeout"`
		MemorySize    *int    `yaml:"MemorySize"`
		Environment   struct {
			Variables map[string]Value `yaml:"Variables"`
		} `yaml:"Environment"`
		Events map[string]struct {
			Type       string    `yaml:"Type"`
			Properties yaml.Node `yaml:"Properties"`
		} `yaml:"Events"`
	}
	rawHttpApiEvent struct {
		ApiId  Value  `yaml:"ApiId"`
		Method string `yaml:"Method"`
		Path   string `yaml:"Path"`
		Auth   struct {
			Authorizer string `yaml:"Authorizer"`
		} `yaml:"Auth"`
		PayloadFormatVersion string `yaml:"PayloadFormatVersion"`
	}
	rawSQSEvent struct {
		Queue                 Value    `yaml:"Queue"`
		BatchSize             *int     `yaml:"BatchSize"`
		Enabled               *bool    `yaml:"Enabled"`
		FunctionResponseTypes []string `yaml:"FunctionResponseTypes"`
		ScalingConfig         struct {
			MaximumConcurrency int `yaml:"MaximumConcurrency"`
		} `yaml:"ScalingConfig"`
	}
	rawHttpApi struct {
		DefinitionBody *rawDefinition `yaml:"DefinitionBody"`
		Auth           struct {
			DefaultAuthorizer string `yaml:"DefaultAuthorizer"`
			Authorizers       map[string]struct {
				FunctionArn                    Value  `yaml:"FunctionArn"`
				AuthorizerPayloadFormatVersion string `yaml:"AuthorizerPayloadFormatVersion"`
				EnableSimpleResponses          bool   `yaml:"EnableSimpleResponses"`
				Identity                       struct {
					Headers          []string `yaml:"Headers"`
					ReauthorizeEvery int      `yaml:"ReauthorizeEvery"`
				} `yaml:"Identity"`
			} `yaml:"Authorizers"`
		} `yaml:"Auth"`
	}
	// rawDefinition is what the reader uses of an OpenAPI 3 DefinitionBody with API
	// Gateway's extensions: the Lambda authorizers, and each operation's security and
	// Lambda proxy integration.
	rawDefinition struct {
		Security   []map[string][]string `yaml:"security"`
		Components struct {
			SecuritySchemes map[string]struct {
				Authorizer *struct {
					Type                 string `yaml:"type"`
					IdentitySource       string `yaml:"identitySource"`
					URI                  Value  `yaml:"authorizerUri"`
					PayloadFormatVersion string `yaml:"authorizerPayloadFormatVersion"`
					SimpleResponses      bool   `yaml:"enableSimpleResponses"`
					ResultTTLSeconds     int    `yaml:"authorizerResultTtlInSeconds"`
				} `yaml:"x-amazon-apigateway-authorizer"`
			} `yaml:"securitySchemes"`
		} `yaml:"components"`
		Paths map[string]map[string]struct {
			Security    *[]map[string][]string `yaml:"security"`
			Integration *struct {
				Type                 string `yaml:"type"`
				URI                  Value  `yaml:"uri"`
				PayloadFormatVersion string `yaml:"payloadFormatVersion"`
			} `yaml:"x-amazon-apigateway-integration"`
		} `yaml:"paths"`
	}
	rawTable struct {
		BillingMode            string                `yaml:"BillingMode"`
		AttributeDefinitions   []AttributeDefinition `yaml:"AttributeDefinitions"`
		KeySchema              []KeyElement          `yaml:"KeySchema"`
		GlobalSecondaryIndexes []struct {
			IndexName  string       `yaml:"IndexName"`
			KeySchema  []KeyElement `yaml:"KeySchema"`
			Projection struct {
				ProjectionType   string   `yaml:"ProjectionType"`
				NonKeyAttributes []string `yaml:"NonKeyAttributes"`
			} `yaml:"Projection"`
		} `yaml:"GlobalSecondaryIndexes"`
		LocalSecondaryIndexes   yaml.Node `yaml:"LocalSecondaryIndexes"`
		TimeToLiveSpecification struct {
			AttributeName string `yaml:"AttributeName"`
			Enabled       bool   `yaml:"Enabled"`
		} `yaml:"TimeToLiveSpecification"`
	}
	rawQueue struct {
		QueueName                     Value  `yaml:"QueueName"`
		FifoQueue                     bool   `yaml:"FifoQueue"`
		ContentBasedDeduplication     bool   `yaml:"ContentBasedDeduplication"`
		VisibilityTimeout             *int   `yaml:"VisibilityTimeout"`
		MessageRetentionPeriod        *int   `yaml:"MessageRetentionPeriod"`
		DelaySeconds                  *int   `yaml:"DelaySeconds"`
		ReceiveMessageWaitTimeSeconds *int   `yaml:"ReceiveMessageWaitTimeSeconds"`
		DeduplicationScope            string `yaml:"DeduplicationScope"`
		FifoThroughputLimit           string `yaml:"FifoThroughputLimit"`
		RedrivePolicy                 *struct {
			DeadLetterTargetArn Value `yaml:"deadLetterTargetArn"`
			MaxReceiveCount     int   `yaml:"maxReceiveCount"`
		} `yaml:"RedrivePolicy"`
	}
)

// ParseFile reads the template at path.
func ParseFile(path string) (*Template, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Parse reads a template.
func Parse(b []byte) (*Template, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return nil, err
	}
	var params struct {
		Parameters map[string]struct {
			Default *string `yaml:"Default"`
		} `yaml:"Parameters"`
	}
	if err := root.Decode(&params); err != nil {
		return nil, err
	}
	t := &Template{Functions: map[string]*Function{}, HttpApis: map[string]*HttpApi{}, Tables: map[string]*Table{},
		Queues: map[string]*Queue{}, Buckets: map[string]*Bucket{}, Other: map[string]string{}, defaults: map[string]string{}}
	for name, p := range params.Parameters {
		if p.Default != nil {
			t.defaults[name] = *p.Default
		}
	}
	inlineDefaults(&root, t.defaults)
	var raw rawTemplate
	if err := root.Decode(&raw); err != nil {
		return nil, err
	}
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(raw.Resources)) {
		r := raw.Resources[id]
		var err error
		switch r.Type {
		case TypeFunction:
			var f *Function
			if f, err = readFunction(id, &raw.Globals.Function, &r.Properties); err == nil {
				f.BuildMethod = r.Metadata.BuildMethod
				t.Functions[id] = f
			}
		case TypeHttpApi:
			var api *HttpApi
			if api, err = readHttpApi(id, &r.Properties); err == nil {
				t.HttpApis[id] = api
			}
		case TypeTable:
			var tb *Table
			if tb, err = readTable(id, &r.Properties); err == nil {
				t.Tables[id] = tb
			}
		case TypeQueue:
			var q *Queue
			if q, err = readQueue(id, &r.Properties); err == nil {
				t.Queues[id] = q
			}
		case TypeBucket:
			t.Buckets[id] = &Bucket{LogicalID: id}
		default:
			t.Other[id] = r.Type
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("resource %s: %w", id, err))
		}
	}
	errs = append(errs, t.attachDefinedRoutes()...)
	errs = append(errs, t.checkAuthorizers()...)
	return t, errors.Join(errs...)
}

// attachDefinedRoutes makes each DefinitionBody route an HttpApi event of the function
// its integration invokes.
func (t *Template) attachDefinedRoutes() []error {
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(t.HttpApis)) {
		for _, r := range t.HttpApis[id].defined {
			f := t.Functions[r.function]
			if f == nil {
				errs = append(errs, fmt.Errorf("%s route %s: %s is not a function of the template", id, r.event.Name, r.function))
				continue
			}
			f.HttpEvents = append(f.HttpEvents, r.event)
		}
	}
	return errs
}

// checkAuthorizers reports authorizer names the local router could not find.
func (t *Template) checkAuthorizers() []error {
	var errs []error
	known := func(api *HttpApi, name string) bool {
		_, ok := api.Authorizers[name]
		return name == "" || name == "NONE" || ok
	}
	for _, id := range slices.Sorted(maps.Keys(t.HttpApis)) {
		if api := t.HttpApis[id]; !known(api, api.DefaultAuthorizer) {
			errs = append(errs, fmt.Errorf("%s: DefaultAuthorizer %s is not among its Authorizers", id, api.DefaultAuthorizer))
		}
	}
	for _, id := range t.FunctionIDs() {
		for _, ev := range t.Functions[id].HttpEvents {
			if api := t.HttpApis[ev.ApiID]; api != nil && !known(api, ev.Authorizer) {
				errs = append(errs, fmt.Errorf("%s event %s: authorizer %s is not among %s's Authorizers", id, ev.Name, ev.Authorizer, api.LogicalID))
			}
		}
	}
	return errs
}

// inlineDefaults turns every Ref to a parameter with a default, in short or long form,
// into that default.
func inlineDefaults(n *yaml.Node, defaults map[string]string) {
	if v, ok := refTarget(n); ok {
		if d, ok := defaults[v]; ok {
			*n = yaml.Node{Kind: yaml.ScalarNode, Value: d, Line: n.Line, Column: n.Column}
			return
		}
	}
	for _, c := range n.Content {
		inlineDefaults(c, defaults)
	}
}

func refTarget(n *yaml.Node) (string, bool) {
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!Ref":
		return n.Value, true
	case n.Kind == yaml.MappingNode && len(n.Content) == 2 && n.Content[0].Value == FnRef && n.Content[1].Kind == yaml.ScalarNode:
		return n.Content[1].Value, true
	}
	return "", false
}

func decode(n *yaml.Node, out any) error {
	if n.Kind == 0 { // no Properties
		return nil
	}
	return n.Decode(out)
}

// readFunction merges Globals.Function into a function as SAM does: the function's
// scalars and lists win, environment variables merge name by name.
func readFunction(id string, g *rawFunction, props *yaml.Node) (*Function, error) {
	var f rawFunction
	if err := decode(props, &f); err != nil {
		return nil, err
	}
	out := &Function{LogicalID: id, Environment: map[string]Value{},
		Runtime: first(f.Runtime, g.Runtime, ""), Handler: first(f.Handler, g.Handler, ""),
		Timeout: first(f.Timeout, g.Timeout, 3), MemorySize: first(f.MemorySize, g.MemorySize, 128)} // SAM's defaults
	arch := g.Architectures
	if f.Architectures != nil {
		arch = f.Architectures
	}
	for _, a := range arch {
		out.Architectures = append(out.Architectures, a.String())
	}
	maps.Copy(out.Environment, g.Environment.Variables)
	maps.Copy(out.Environment, f.Environment.Variables)
	for _, name := range slices.Sorted(maps.Keys(f.Events)) {
		ev := f.Events[name]
		var err error
		switch ev.Type {
		case "HttpApi":
			var e HttpApiEvent
			if e, err = readHttpApiEvent(name, &ev.Properties); err == nil {
				out.HttpEvents = append(out.HttpEvents, e)
			}
		case "SQS":
			var e SQSEvent
			if e, err = readSQSEvent(name, &ev.Properties); err == nil {
				out.SQSEvents = append(out.SQSEvents, e)
			}
		case "Schedule", "ScheduleV2":
			var e ScheduleEvent
			if e, err = readScheduleEvent(name, &ev.Properties); err == nil {
				out.ScheduleEvents = append(out.ScheduleEvents, e)
			}
		} // other event types have no local emulation
		if err != nil {
			return nil, fmt.Errorf("event %s: %w", name, err)
		}
	}
	return out, nil
}

func first[T any](a, b *T, def T) T {
	if a != nil {
		return *a
	}
	if b != nil {
		return *b
	}
	return def
}

func readHttpApiEvent(name string, props *yaml.Node) (HttpApiEvent, error) {
	var re rawHttpApiEvent
	if err := decode(props, &re); err != nil {
		return HttpApiEvent{}, err
	}
	if re.Method == "" || re.Path == "" {
		return HttpApiEvent{}, errors.New("the local router needs Method and Path")
	}
	e := HttpApiEvent{Name: name, Method: strings.ToUpper(re.Method), Path: re.Path, Authorizer: re.Auth.Authorizer,
		PayloadFormatVersion: re.PayloadFormatVersion}
	if !re.ApiId.IsZero() {
		if re.ApiId.Fn != FnRef {
			return HttpApiEvent{}, errors.New("its ApiId must be !Ref <HttpApi>")
		}
		e.ApiID = re.ApiId.Target
	}
	return e, nil
}

func readSQSEvent(name string, props *yaml.Node) (SQSEvent, error) {
	var re rawSQSEvent
	if err := decode(props, &re); err != nil {
		return SQSEvent{}, err
	}
	if re.Queue.Fn != FnGetAtt || re.Queue.Attr != "Arn" {
		return SQSEvent{}, errors.New("its Queue must be !GetAtt <Queue>.Arn")
	}
	return SQSEvent{Name: name, Queue: re.Queue.Target, BatchSize: first(re.BatchSize, nil, 10),
		ReportBatchItemFailures: slices.Contains(re.FunctionResponseTypes, "ReportBatchItemFailures"),
		Enabled:                 first(re.Enabled, nil, true), MaximumConcurrency: re.ScalingConfig.MaximumConcurrency}, nil
}

func readHttpApi(id string, props *yaml.Node) (*HttpApi, error) {
	var ra rawHttpApi
	if err := decode(props, &ra); err != nil {
		return nil, err
	}
	api := &HttpApi{LogicalID: id, DefaultAuthorizer: ra.Auth.DefaultAuthorizer, Authorizers: map[string]Authorizer{}}
	for name, a := range ra.Auth.Authorizers {
		if a.FunctionArn.Fn != FnGetAtt || a.FunctionArn.Attr != "Arn" {
			return nil, fmt.Errorf("authorizer %s: the local router runs Lambda authorizers, FunctionArn: !GetAtt <Function>.Arn", name)
		}
		api.Authorizers[name] = Authorizer{Name: name, Function: a.FunctionArn.Target, PayloadFormatVersion: a.AuthorizerPayloadFormatVersion,
			EnableSimpleResponses: a.EnableSimpleResponses, IdentityHeaders: a.Identity.Headers,
			ResultTTL: time.Duration(a.Identity.ReauthorizeEvery) * time.Second}
	}
	if ra.DefinitionBody != nil {
		if err := api.readDefinition(ra.DefinitionBody); err != nil {
			return nil, fmt.Errorf("DefinitionBody: %w", err)
		}
	}
	return api, nil
}

// invokedFunction matches the function a Lambda integration's uri names:
// !Sub "arn:...:lambda:path/2015-03-31/functions/${X.Arn}/invocations".
var invokedFunction = regexp.MustCompile(`/functions/\$\{([A-Za-z0-9]+)\.Arn\}/invocations$`)

func integrationTarget(uri Value) (string, error) {
	m := invokedFunction.FindStringSubmatch(uri.Sub)
	if uri.Fn != FnSub || m == nil {
		return "", fmt.Errorf("line %d: the local router runs Lambda integrations, "+
			"uri: !Sub \"arn:${AWS::Partition}:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${<Function>.Arn}/invocations\"", uri.Line)
	}
	return m[1], nil
}

// securityName is the one security scheme of an operation's security requirement;
// "NONE" for none ([] or [{}]).
func securityName(reqs []map[string][]string) (string, error) {
	switch {
	case len(reqs) == 0 || len(reqs) == 1 && len(reqs[0]) == 0:
		return "NONE", nil
	case len(reqs) == 1 && len(reqs[0]) == 1:
		return slices.Collect(maps.Keys(reqs[0]))[0], nil
	}
	return "", fmt.Errorf("security %v: the local router runs one authorizer per route", reqs)
}

// readDefinition reads the authorizers and routes of an OpenAPI DefinitionBody.
func (api *HttpApi) readDefinition(def *rawDefinition) error {
	for name, s := range def.Components.SecuritySchemes {
		a := s.Authorizer
		if a == nil || a.Type != "request" {
			return fmt.Errorf("security scheme %s: the local router runs Lambda request authorizers only", name)
		}
		fn, err := integrationTarget(a.URI)
		if err != nil {
			return fmt.Errorf("security scheme %s: %w", name, err)
		}
		var headers []string
		for _, src := range strings.Split(a.IdentitySource, ",") {
			if h, ok := strings.CutPrefix(strings.TrimSpace(src), "$request.header."); ok {
				headers = append(headers, h)
			}
		}
		api.Authorizers[name] = Authorizer{Name: name, Function: fn, PayloadFormatVersion: a.PayloadFormatVersion,
			EnableSimpleResponses: a.SimpleResponses, IdentityHeaders: headers,
			ResultTTL: time.Duration(a.ResultTTLSeconds) * time.Second}
	}
	if def.Security != nil {
		name, err := securityName(def.Security)
		if err != nil {
			return err
		}
		api.DefaultAuthorizer = name
	}
	for _, path := range slices.Sorted(maps.Keys(def.Paths)) {
		for _, method := range slices.Sorted(maps.Keys(def.Paths[path])) {
			op := def.Paths[path][method]
			verb := strings.ToUpper(method)
			if method == "x-amazon-apigateway-any-method" {
				verb = "ANY"
			}
			key := verb + " " + path
			if op.Integration == nil || op.Integration.Type != "aws_proxy" {
				return fmt.Errorf("%s: the local router runs aws_proxy (Lambda) integrations only", key)
			}
			fn, err := integrationTarget(op.Integration.URI)
			if err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
			ev := HttpApiEvent{Name: key, Method: verb, Path: path, ApiID: api.LogicalID,
				PayloadFormatVersion: op.Integration.PayloadFormatVersion}
			if op.Security != nil {
				if ev.Authorizer, err = securityName(*op.Security); err != nil {
					return fmt.Errorf("%s: %w", key, err)
				}
			}
			api.defined = append(api.defined, definedRoute{function: fn, event: ev})
		}
	}
	return nil
}

func readTable(id string, props *yaml.Node) (*Table, error) {
	var rt rawTable
	if err := decode(props, &rt); err != nil {
		return nil, err
	}
	if rt.LocalSecondaryIndexes.Kind != 0 {
		return nil, errors.New("the local stack does not create LocalSecondaryIndexes")
	}
	t := &Table{LogicalID: id, BillingMode: rt.BillingMode, AttributeDefinitions: rt.AttributeDefinitions, KeySchema: rt.KeySchema}
	for _, g := range rt.GlobalSecondaryIndexes {
		t.GlobalIndexes = append(t.GlobalIndexes, GlobalIndex{IndexName: g.IndexName, KeySchema: g.KeySchema,
			ProjectionType: g.Projection.ProjectionType, NonKeyAttributes: g.Projection.NonKeyAttributes})
	}
	if rt.TimeToLiveSpecification.Enabled {
		t.TTLAttribute = rt.TimeToLiveSpecification.AttributeName
	}
	return t, nil
}

func readQueue(id string, props *yaml.Node) (*Queue, error) {
	var rq rawQueue
	if err := decode(props, &rq); err != nil {
		return nil, err
	}
	q := &Queue{LogicalID: id, QueueName: rq.QueueName, FifoQueue: rq.FifoQueue, ContentBasedDeduplication: rq.ContentBasedDeduplication,
		VisibilityTimeout: rq.VisibilityTimeout, MessageRetentionPeriod: rq.MessageRetentionPeriod, DelaySeconds: rq.DelaySeconds,
		ReceiveWaitTime: rq.ReceiveMessageWaitTimeSeconds, DeduplicationScope: rq.DeduplicationScope, FifoThroughputLimit: rq.FifoThroughputLimit}
	if rp := rq.RedrivePolicy; rp != nil {
		if rp.DeadLetterTargetArn.Fn != FnGetAtt || rp.DeadLetterTargetArn.Attr != "Arn" {
			return nil, errors.New("its RedrivePolicy's deadLetterTargetArn must be !GetAtt <Queue>.Arn")
		}
		q.Redrive = &Redrive{DeadLetterQueue: rp.DeadLetterTargetArn.Target, MaxReceiveCount: rp.MaxReceiveCount}
	}
	return q, nil
}

// Routes lists every HttpApi event of every function, sorted by path then method.
func (t *Template) Routes() []Route {
	var out []Route
	for _, f := range t.Functions {
		for _, ev := range f.HttpEvents {
			out = append(out, Route{Method: ev.Method, Path: ev.Path, Function: f.LogicalID, Authorizer: t.routeAuthorizer(ev)})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out
}

// routeAuthorizer is the function that authorizes an event's route: the event's own
// Auth.Authorizer, else its API's default; none for NONE or without an API.
func (t *Template) routeAuthorizer(ev HttpApiEvent) string {
	api := t.HttpApis[ev.ApiID]
	if api == nil {
		return ""
	}
	name := cmp.Or(ev.Authorizer, api.DefaultAuthorizer)
	return api.Authorizers[name].Function // "" for NONE and an unknown name
}

// SQSMappings lists the SQS event source mappings, sorted by queue then function.
func (t *Template) SQSMappings() []SQSMapping {
	var out []SQSMapping
	for _, f := range t.Functions {
		for _, ev := range f.SQSEvents {
			out = append(out, SQSMapping{Queue: ev.Queue, Function: f.LogicalID, BatchSize: ev.BatchSize,
				ReportBatchItemFailures: ev.ReportBatchItemFailures, Enabled: ev.Enabled, MaximumConcurrency: ev.MaximumConcurrency})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Queue+"/"+out[i].Function < out[j].Queue+"/"+out[j].Function
	})
	return out
}

// FunctionEnv resolves a function's merged environment.
func (t *Template) FunctionEnv(function string, r *Resolver) (map[string]string, error) {
	f, ok := t.Functions[function]
	if !ok {
		return nil, fmt.Errorf("no function %s", function)
	}
	out := make(map[string]string, len(f.Environment))
	for k, v := range f.Environment {
		s, err := t.Resolve(v, r)
		if err != nil {
			return nil, fmt.Errorf("%s: environment %s: %w", function, k, err)
		}
		out[k] = s
	}
	return out, nil
}

// FunctionIDs lists the function LogicalIds, sorted.
func (t *Template) FunctionIDs() []string { return slices.Sorted(maps.Keys(t.Functions)) }

// QueueIDs lists the queue LogicalIds, those without a redrive policy (the dead-letter
// queues) first, as creation needs.
func (t *Template) QueueIDs() []string {
	var dlq, rest []string
	for _, id := range slices.Sorted(maps.Keys(t.Queues)) {
		if t.Queues[id].Redrive == nil {
			dlq = append(dlq, id)
		} else {
			rest = append(rest, id)
		}
	}
	return append(dlq, rest...)
}

// Table returns the template's only table; it is an error to have none or several.
func (t *Template) Table() (*Table, error) {
	if len(t.Tables) != 1 {
		return nil, fmt.Errorf("template declares %d DynamoDB tables, want 1", len(t.Tables))
	}
	for _, tb := range t.Tables {
		return tb, nil
	}
	return nil, nil
}
