// Package samtemplate is a strict parser for the subset of AWS SAM that template.yaml
// uses. It reads what the local stack needs (routes, authorizer, queues, table,
// bucket, SQS event mappings, function environments) and keeps intrinsic references
// symbolic, so that the local stack can substitute its own physical names. Unknown
// properties of the resource types it knows are errors (typos must not pass
// silently); resources of other types are kept raw.
package samtemplate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Resource types the parser understands.
const (
	TypeFunction = "AWS::Serverless::Function"
	TypeHttpApi  = "AWS::Serverless::HttpApi"
	TypeTable    = "AWS::DynamoDB::Table"
	TypeQueue    = "AWS::SQS::Queue"
	TypeBucket   = "AWS::S3::Bucket"
)

// Template is a parsed template.
type Template struct {
	Description string
	Parameters  map[string]Parameter
	Functions   map[string]*Function
	HttpApis    map[string]*HttpApi
	Tables      map[string]*Table
	Queues      map[string]*Queue
	Buckets     map[string]*Bucket
	// Other holds resources of types this package does not model.
	Other map[string]*RawResource
}

// Parameter is a template parameter.
type Parameter struct {
	Type        string
	Default     *string
	Description string
}

// RawResource is a resource of a type this package does not model.
type RawResource struct {
	LogicalID  string
	Type       string
	Properties yaml.Node
}

// Function is an AWS::Serverless::Function with Globals.Function merged in.
type Function struct {
	LogicalID string
	Runtime   string
	Handler   string
	// Architectures are literal names, or "!Ref Parameter" (Value.String) when the
	// template leaves the choice to a parameter.
	Architectures []string
	Timeout       int
	MemorySize    int
	// Environment is Globals' variables overlaid with the function's own.
	Environment map[string]Value
	BuildMethod string
	HttpEvents  []HttpApiEvent
	SQSEvents   []SQSEvent
	// ScheduleEvents are the Schedule and ScheduleV2 events.
	ScheduleEvents []ScheduleEvent
}

// HttpApiEvent is an event of Type HttpApi.
type HttpApiEvent struct {
	Name   string
	Method string // upper case; ANY for any method
	Path   string
	// ApiID is the LogicalId of the AWS::Serverless::HttpApi ("" means SAM's implicit API).
	ApiID string
	// Authorizer is the event's Auth.Authorizer override ("" means the API's default,
	// "NONE" means none).
	Authorizer string
}

// SQSEvent is an event of Type SQS.
type SQSEvent struct {
	Name string
	// Queue is the LogicalId of the AWS::SQS::Queue.
	Queue                   string
	BatchSize               int
	ReportBatchItemFailures bool
	MaxBatchingWindow       int
	Enabled                 bool
	MaximumConcurrency      int
}

// HttpApi is an AWS::Serverless::HttpApi.
type HttpApi struct {
	LogicalID         string
	DefaultAuthorizer string
	Authorizers       map[string]Authorizer
}

// Authorizer is a Lambda authorizer of an HttpApi.
type Authorizer struct {
	Name string
	// Function is the LogicalId of the authorizer's AWS::Serverless::Function.
	Function              string
	PayloadFormatVersion  string
	EnableSimpleResponses bool
	IdentityHeaders       []string
	ReauthorizeEvery      int
}

// Table is an AWS::DynamoDB::Table.
type Table struct {
	LogicalID            string
	TableName            Value
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

// Queue is an AWS::SQS::Queue.
type Queue struct {
	LogicalID                 string
	QueueName                 Value
	FifoQueue                 bool
	ContentBasedDeduplication bool
	// Durations in seconds; nil means the SQS default.
	VisibilityTimeout      *int
	MessageRetentionPeriod *int
	DelaySeconds           *int
	ReceiveWaitTime        *int
	DeduplicationScope     string
	FifoThroughputLimit    string
	Redrive                *Redrive
}

// Redrive is a queue's RedrivePolicy.
type Redrive struct {
	// DeadLetterQueue is the LogicalId of the dead-letter queue.
	DeadLetterQueue string
	MaxReceiveCount int
}

// Bucket is an AWS::S3::Bucket.
type Bucket struct {
	LogicalID  string
	BucketName Value
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
	// MaximumConcurrency is ScalingConfig.MaximumConcurrency; 0 when not set.
	MaximumConcurrency int
}

// ParseFile parses the template at path.
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

type rawTemplate struct {
	AWSTemplateFormatVersion string                  `yaml:"AWSTemplateFormatVersion"`
	Transform                yaml.Node               `yaml:"Transform"`
	Description              string                  `yaml:"Description"`
	Metadata                 yaml.Node               `yaml:"Metadata"`
	Parameters               map[string]rawParameter `yaml:"Parameters"`
	Mappings                 yaml.Node               `yaml:"Mappings"`
	Conditions               yaml.Node               `yaml:"Conditions"`
	Rules                    yaml.Node               `yaml:"Rules"`
	Globals                  rawGlobals              `yaml:"Globals"`
	Resources                map[string]rawResource  `yaml:"Resources"`
	Outputs                  yaml.Node               `yaml:"Outputs"`
}

type rawParameter struct {
	Type                  string    `yaml:"Type"`
	Default               *string   `yaml:"Default"`
	Description           string    `yaml:"Description"`
	AllowedValues         []string  `yaml:"AllowedValues"`
	AllowedPattern        string    `yaml:"AllowedPattern"`
	ConstraintDescription string    `yaml:"ConstraintDescription"`
	MinLength             yaml.Node `yaml:"MinLength"`
	MaxLength             yaml.Node `yaml:"MaxLength"`
	MinValue              yaml.Node `yaml:"MinValue"`
	MaxValue              yaml.Node `yaml:"MaxValue"`
	NoEcho                bool      `yaml:"NoEcho"`
}

type rawGlobals struct {
	Function     yaml.Node `yaml:"Function"`
	HttpApi      yaml.Node `yaml:"HttpApi"`
	Api          yaml.Node `yaml:"Api"`
	SimpleTable  yaml.Node `yaml:"SimpleTable"`
	StateMachine yaml.Node `yaml:"StateMachine"`
	LayerVersion yaml.Node `yaml:"LayerVersion"`
}

type rawResource struct {
	Type                string    `yaml:"Type"`
	Properties          yaml.Node `yaml:"Properties"`
	Metadata            yaml.Node `yaml:"Metadata"`
	DependsOn           yaml.Node `yaml:"DependsOn"`
	Condition           string    `yaml:"Condition"`
	DeletionPolicy      string    `yaml:"DeletionPolicy"`
	UpdateReplacePolicy string    `yaml:"UpdateReplacePolicy"`
	UpdatePolicy        yaml.Node `yaml:"UpdatePolicy"`
	CreationPolicy      yaml.Node `yaml:"CreationPolicy"`
	Connectors          yaml.Node `yaml:"Connectors"`
}

// Parse parses and validates a template.
func Parse(b []byte) (*Template, error) {
	var raw rawTemplate
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&raw); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty template")
		}
		return nil, err
	}
	if len(raw.Resources) == 0 {
		return nil, errors.New("template has no Resources")
	}
	t := &Template{
		Description: raw.Description,
		Parameters:  map[string]Parameter{},
		Functions:   map[string]*Function{},
		HttpApis:    map[string]*HttpApi{},
		Tables:      map[string]*Table{},
		Queues:      map[string]*Queue{},
		Buckets:     map[string]*Bucket{},
		Other:       map[string]*RawResource{},
	}
	for name, p := range raw.Parameters {
		t.Parameters[name] = Parameter{Type: p.Type, Default: p.Default, Description: p.Description}
	}
	var globals rawFunction
	if !isEmpty(&raw.Globals.Function) {
		if err := strict(&raw.Globals.Function, &globals); err != nil {
			return nil, fmt.Errorf("Globals.Function: %w", err)
		}
	}
	var errs []error
	for _, id := range sortedKeys(raw.Resources) {
		r := raw.Resources[id]
		if err := t.addResource(id, r, &globals); err != nil {
			errs = append(errs, fmt.Errorf("Resources.%s (%s): %w", id, r.Type, err))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if err := t.validate(&raw, b); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *Template) addResource(id string, r rawResource, globals *rawFunction) error {
	if r.Type == "" {
		return errors.New("no Type")
	}
	switch r.Type {
	case TypeFunction:
		var rf rawFunction
		if err := strict(&r.Properties, &rf); err != nil {
			return err
		}
		var md struct {
			BuildMethod     string    `yaml:"BuildMethod"`
			BuildProperties yaml.Node `yaml:"BuildProperties"`
		}
		if !isEmpty(&r.Metadata) {
			if err := strict(&r.Metadata, &md); err != nil {
				return fmt.Errorf("Metadata: %w", err)
			}
		}
		f, err := buildFunction(id, globals, &rf)
		if err != nil {
			return err
		}
		f.BuildMethod = md.BuildMethod
		t.Functions[id] = f
	case TypeHttpApi:
		api, err := parseHttpApi(id, &r.Properties)
		if err != nil {
			return err
		}
		t.HttpApis[id] = api
	case TypeTable:
		tb, err := parseTable(id, &r.Properties)
		if err != nil {
			return err
		}
		t.Tables[id] = tb
	case TypeQueue:
		q, err := parseQueue(id, &r.Properties)
		if err != nil {
			return err
		}
		t.Queues[id] = q
	case TypeBucket:
		var rb rawBucket
		if !isEmpty(&r.Properties) {
			if err := strict(&r.Properties, &rb); err != nil {
				return err
			}
		}
		t.Buckets[id] = &Bucket{LogicalID: id, BucketName: rb.BucketName}
	default:
		t.Other[id] = &RawResource{LogicalID: id, Type: r.Type, Properties: r.Properties}
	}
	return nil
}

// strict decodes a node into out, rejecting properties that out does not declare.
// yaml.v3 offers KnownFields only on a Decoder, not on Node.Decode, so the keys are
// checked against the struct tags first; decoding the node itself keeps the
// template's line numbers in Values and errors.
func strict(n *yaml.Node, out any) error {
	if err := checkKnown(n, reflect.TypeOf(out)); err != nil {
		return err
	}
	return n.Decode(out)
}

var (
	nodeType        = reflect.TypeOf(yaml.Node{})
	unmarshalerType = reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()
)

func checkKnown(n *yaml.Node, t reflect.Type) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nodeType || reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil // Decode reports the type mismatch
		}
		fields := map[string]reflect.Type{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "" {
				name = strings.ToLower(f.Name)
			}
			fields[name] = f.Type
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			ft, ok := fields[key]
			if !ok {
				return fmt.Errorf("line %d: unknown property %q", n.Content[i].Line, key)
			}
			if err := checkKnown(n.Content[i+1], ft); err != nil {
				return err
			}
		}
	case reflect.Map:
		if n.Kind == yaml.MappingNode {
			for i := 1; i < len(n.Content); i += 2 {
				if err := checkKnown(n.Content[i], t.Elem()); err != nil {
					return err
				}
			}
		}
	case reflect.Slice:
		if n.Kind == yaml.SequenceNode {
			for _, c := range n.Content {
				if err := checkKnown(c, t.Elem()); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func isEmpty(n *yaml.Node) bool { return n.Kind == 0 }

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

func (t *Template) routeAuthorizer(ev HttpApiEvent) string {
	api := t.HttpApis[ev.ApiID]
	if api == nil {
		return ""
	}
	name := api.DefaultAuthorizer
	if ev.Authorizer != "" {
		name = ev.Authorizer
	}
	if name == "" || name == "NONE" {
		return ""
	}
	return api.Authorizers[name].Function
}

// AuthorizerFunction is the LogicalId of the default authorizer's function of the
// template's only HttpApi ("" if there is none).
func (t *Template) AuthorizerFunction() string {
	for _, id := range sortedKeys(t.HttpApis) {
		api := t.HttpApis[id]
		if a, ok := api.Authorizers[api.DefaultAuthorizer]; ok {
			return a.Function
		}
	}
	return ""
}

// SQSMappings lists the SQS event source mappings, sorted by queue.
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
func (t *Template) FunctionIDs() []string { return sortedKeys(t.Functions) }

// QueueIDs lists the queue LogicalIds with dead-letter queues before the queues that
// redrive to them, as creation needs.
func (t *Template) QueueIDs() []string {
	ids := sortedKeys(t.Queues)
	var dlq, rest []string
	for _, id := range ids {
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

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func upper(s string) string { return strings.ToUpper(strings.TrimSpace(s)) }
