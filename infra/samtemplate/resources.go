package samtemplate

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// rawFunction lists the AWS::Serverless::Function properties (and Globals.Function)
// that SAM accepts; the ones the local stack does not use are kept as raw nodes so
// that they are accepted but a typo is not.
type rawFunction struct {
	Runtime       *string `yaml:"Runtime"`
	Handler       *string `yaml:"Handler"`
	Architectures []Value `yaml:"Architectures"`
	Timeout       *int    `yaml:"Timeout"`
	MemorySize    *int    `yaml:"MemorySize"`
	Environment   *struct {
		Variables map[string]Value `yaml:"Variables"`
	} `yaml:"Environment"`
	Events map[string]rawEvent `yaml:"Events"`

	AssumeRolePolicyDocument      yaml.Node `yaml:"AssumeRolePolicyDocument"`
	AutoPublishAlias              yaml.Node `yaml:"AutoPublishAlias"`
	AutoPublishAliasAllProperties yaml.Node `yaml:"AutoPublishAliasAllProperties"`
	AutoPublishCodeSha256         yaml.Node `yaml:"AutoPublishCodeSha256"`
	CodeSigningConfigArn          yaml.Node `yaml:"CodeSigningConfigArn"`
	CodeUri                       yaml.Node `yaml:"CodeUri"`
	DeadLetterQueue               yaml.Node `yaml:"DeadLetterQueue"`
	DeploymentPreference          yaml.Node `yaml:"DeploymentPreference"`
	Description                   yaml.Node `yaml:"Description"`
	EphemeralStorage              yaml.Node `yaml:"EphemeralStorage"`
	EventInvokeConfig             yaml.Node `yaml:"EventInvokeConfig"`
	FileSystemConfigs             yaml.Node `yaml:"FileSystemConfigs"`
	FunctionName                  yaml.Node `yaml:"FunctionName"`
	FunctionUrlConfig             yaml.Node `yaml:"FunctionUrlConfig"`
	ImageConfig                   yaml.Node `yaml:"ImageConfig"`
	ImageUri                      yaml.Node `yaml:"ImageUri"`
	InlineCode                    yaml.Node `yaml:"InlineCode"`
	KmsKeyArn                     yaml.Node `yaml:"KmsKeyArn"`
	Layers                        yaml.Node `yaml:"Layers"`
	LoggingConfig                 yaml.Node `yaml:"LoggingConfig"`
	PackageType                   yaml.Node `yaml:"PackageType"`
	PermissionsBoundary           yaml.Node `yaml:"PermissionsBoundary"`
	Policies                      yaml.Node `yaml:"Policies"`
	PropagateTags                 yaml.Node `yaml:"PropagateTags"`
	ProvisionedConcurrencyConfig  yaml.Node `yaml:"ProvisionedConcurrencyConfig"`
	RecursiveLoop                 yaml.Node `yaml:"RecursiveLoop"`
	ReservedConcurrentExecutions  yaml.Node `yaml:"ReservedConcurrentExecutions"`
	Role                          yaml.Node `yaml:"Role"`
	RolePath                      yaml.Node `yaml:"RolePath"`
	RuntimeManagementConfig       yaml.Node `yaml:"RuntimeManagementConfig"`
	SnapStart                     yaml.Node `yaml:"SnapStart"`
	SourceKMSKeyArn               yaml.Node `yaml:"SourceKMSKeyArn"`
	Tags                          yaml.Node `yaml:"Tags"`
	Tracing                       yaml.Node `yaml:"Tracing"`
	VersionDescription            yaml.Node `yaml:"VersionDescription"`
	VpcConfig                     yaml.Node `yaml:"VpcConfig"`
}

type rawEvent struct {
	Type       string    `yaml:"Type"`
	Properties yaml.Node `yaml:"Properties"`
}

type rawHttpApiEvent struct {
	ApiId  yaml.Node `yaml:"ApiId"`
	Method string    `yaml:"Method"`
	Path   string    `yaml:"Path"`
	Auth   *struct {
		Authorizer          string    `yaml:"Authorizer"`
		AuthorizationScopes yaml.Node `yaml:"AuthorizationScopes"`
	} `yaml:"Auth"`
	PayloadFormatVersion string    `yaml:"PayloadFormatVersion"`
	RouteSettings        yaml.Node `yaml:"RouteSettings"`
	TimeoutInMillis      yaml.Node `yaml:"TimeoutInMillis"`
}

type rawSQSEvent struct {
	Queue                          Value    `yaml:"Queue"`
	BatchSize                      *int     `yaml:"BatchSize"`
	Enabled                        *bool    `yaml:"Enabled"`
	FunctionResponseTypes          []string `yaml:"FunctionResponseTypes"`
	MaximumBatchingWindowInSeconds int      `yaml:"MaximumBatchingWindowInSeconds"`
	ScalingConfig                  *struct {
		MaximumConcurrency int `yaml:"MaximumConcurrency"`
	} `yaml:"ScalingConfig"`
	FilterCriteria          yaml.Node `yaml:"FilterCriteria"`
	KmsKeyArn               yaml.Node `yaml:"KmsKeyArn"`
	MetricsConfig           yaml.Node `yaml:"MetricsConfig"`
	ProvisionedPollerConfig yaml.Node `yaml:"ProvisionedPollerConfig"`
}

// buildFunction merges Globals.Function into a function the way SAM does: the
// function's scalars win, environment maps merge key by key, lists are the
// function's own if it sets them.
func buildFunction(id string, g, f *rawFunction) (*Function, error) {
	out := &Function{LogicalID: id, Environment: map[string]Value{}}
	out.Runtime = firstStr(f.Runtime, g.Runtime)
	out.Handler = firstStr(f.Handler, g.Handler)
	out.Timeout = firstInt(f.Timeout, g.Timeout, 3) // SAM's default timeout is 3 s
	out.MemorySize = firstInt(f.MemorySize, g.MemorySize, 128)
	arch := g.Architectures
	if f.Architectures != nil {
		arch = f.Architectures
	}
	for _, a := range arch {
		out.Architectures = append(out.Architectures, a.String())
	}
	if g.Environment != nil {
		maps.Copy(out.Environment, g.Environment.Variables)
	}
	if f.Environment != nil {
		maps.Copy(out.Environment, f.Environment.Variables)
	}
	if len(g.Events) > 0 {
		return nil, errors.New("Globals.Function cannot declare Events")
	}
	for _, name := range sortedKeys(f.Events) {
		ev := f.Events[name]
		switch ev.Type {
		case "HttpApi":
			var re rawHttpApiEvent
			if err := strict(&ev.Properties, &re); err != nil {
				return nil, fmt.Errorf("event %s: %w", name, err)
			}
			he := HttpApiEvent{Name: name, Method: upper(re.Method), Path: re.Path}
			if he.Method == "" || he.Path == "" {
				return nil, fmt.Errorf("event %s: HttpApi events need Method and Path (the implicit catch-all route is not supported)", name)
			}
			if !validMethod(he.Method) {
				return nil, fmt.Errorf("event %s: unknown method %q", name, re.Method)
			}
			if !strings.HasPrefix(he.Path, "/") {
				return nil, fmt.Errorf("event %s: path %q must start with /", name, he.Path)
			}
			if err := checkPath(he.Path); err != nil {
				return nil, fmt.Errorf("event %s: %w", name, err)
			}
			if !isEmpty(&re.ApiId) {
				v, err := parseValue(&re.ApiId)
				if err != nil {
					return nil, fmt.Errorf("event %s: ApiId: %w", name, err)
				}
				if v.Fn != FnRef {
					return nil, fmt.Errorf("event %s: ApiId must be !Ref of an HttpApi", name)
				}
				he.ApiID = v.Target
			}
			if re.Auth != nil {
				he.Authorizer = re.Auth.Authorizer
			}
			if re.PayloadFormatVersion != "" && re.PayloadFormatVersion != "2.0" {
				return nil, fmt.Errorf("event %s: only payload format 2.0 is supported", name)
			}
			out.HttpEvents = append(out.HttpEvents, he)
		case "SQS":
			var re rawSQSEvent
			if err := strict(&ev.Properties, &re); err != nil {
				return nil, fmt.Errorf("event %s: %w", name, err)
			}
			if re.Queue.Fn != FnGetAtt || re.Queue.Attr != "Arn" {
				return nil, fmt.Errorf("event %s: Queue must be !GetAtt <Queue>.Arn", name)
			}
			se := SQSEvent{Name: name, Queue: re.Queue.Target, BatchSize: 10, Enabled: true,
				MaxBatchingWindow: re.MaximumBatchingWindowInSeconds}
			if re.BatchSize != nil {
				se.BatchSize = *re.BatchSize
			}
			if re.Enabled != nil {
				se.Enabled = *re.Enabled
			}
			if re.ScalingConfig != nil {
				se.MaximumConcurrency = re.ScalingConfig.MaximumConcurrency
			}
			for _, rt := range re.FunctionResponseTypes {
				if rt != "ReportBatchItemFailures" {
					return nil, fmt.Errorf("event %s: unknown FunctionResponseTypes %q", name, rt)
				}
				se.ReportBatchItemFailures = true
			}
			if se.BatchSize < 1 || se.BatchSize > 10000 {
				return nil, fmt.Errorf("event %s: BatchSize %d out of range", name, se.BatchSize)
			}
			out.SQSEvents = append(out.SQSEvents, se)
		case "Schedule", "ScheduleV2":
			se, err := parseScheduleEvent(name, ev.Type, &ev.Properties)
			if err != nil {
				return nil, fmt.Errorf("event %s: %w", name, err)
			}
			out.ScheduleEvents = append(out.ScheduleEvents, se)
		case "":
			return nil, fmt.Errorf("event %s has no Type", name)
		default:
			// Other event types (S3, ...) have no local emulation; they are accepted
			// and ignored.
		}
	}
	return out, nil
}

func validMethod(m string) bool {
	switch m {
	case "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "ANY":
		return true
	}
	return false
}

// checkPath validates path parameters: {name} per segment, {name+} only last.
func checkPath(p string) error {
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range segs {
		if !strings.ContainsAny(s, "{}") {
			continue
		}
		if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") || len(s) < 3 {
			return fmt.Errorf("path %q: a parameter must fill a whole segment", p)
		}
		if strings.HasSuffix(s, "+}") && i != len(segs)-1 {
			return fmt.Errorf("path %q: a greedy parameter must be last", p)
		}
	}
	return nil
}

func firstStr(a, b *string) string {
	if a != nil {
		return *a
	}
	if b != nil {
		return *b
	}
	return ""
}

func firstInt(a, b *int, def int) int {
	if a != nil {
		return *a
	}
	if b != nil {
		return *b
	}
	return def
}

type rawHttpApi struct {
	Auth *struct {
		DefaultAuthorizer   string                   `yaml:"DefaultAuthorizer"`
		Authorizers         map[string]rawAuthorizer `yaml:"Authorizers"`
		EnableIamAuthorizer bool                     `yaml:"EnableIamAuthorizer"`
	} `yaml:"Auth"`
	AccessLogSettings         yaml.Node `yaml:"AccessLogSettings"`
	CorsConfiguration         yaml.Node `yaml:"CorsConfiguration"`
	DefaultRouteSettings      yaml.Node `yaml:"DefaultRouteSettings"`
	DefinitionBody            yaml.Node `yaml:"DefinitionBody"`
	DefinitionUri             yaml.Node `yaml:"DefinitionUri"`
	Description               yaml.Node `yaml:"Description"`
	DisableExecuteApiEndpoint yaml.Node `yaml:"DisableExecuteApiEndpoint"`
	Domain                    yaml.Node `yaml:"Domain"`
	FailOnWarnings            yaml.Node `yaml:"FailOnWarnings"`
	Name                      yaml.Node `yaml:"Name"`
	PropagateTags             yaml.Node `yaml:"PropagateTags"`
	RouteSettings             yaml.Node `yaml:"RouteSettings"`
	StageName                 yaml.Node `yaml:"StageName"`
	StageVariables            yaml.Node `yaml:"StageVariables"`
	Tags                      yaml.Node `yaml:"Tags"`
}

type rawAuthorizer struct {
	FunctionArn                      Value  `yaml:"FunctionArn"`
	AuthorizerPayloadFormatVersion   string `yaml:"AuthorizerPayloadFormatVersion"`
	EnableSimpleResponses            bool   `yaml:"EnableSimpleResponses"`
	EnableFunctionDefaultPermissions bool   `yaml:"EnableFunctionDefaultPermissions"`
	FunctionInvokeRole               Value  `yaml:"FunctionInvokeRole"`
	Identity                         *struct {
		Headers          []string  `yaml:"Headers"`
		QueryStrings     []string  `yaml:"QueryStrings"`
		Context          []string  `yaml:"Context"`
		StageVariables   []string  `yaml:"StageVariables"`
		ReauthorizeEvery yaml.Node `yaml:"ReauthorizeEvery"`
	} `yaml:"Identity"`
	// JWT authorizers: accepted, not emulated.
	JwtConfiguration    yaml.Node `yaml:"JwtConfiguration"`
	IdentitySource      yaml.Node `yaml:"IdentitySource"`
	AuthorizationScopes yaml.Node `yaml:"AuthorizationScopes"`
}

func parseHttpApi(id string, n *yaml.Node) (*HttpApi, error) {
	var ra rawHttpApi
	if !isEmpty(n) {
		if err := strict(n, &ra); err != nil {
			return nil, err
		}
	}
	api := &HttpApi{LogicalID: id, Authorizers: map[string]Authorizer{}}
	if ra.Auth == nil {
		return api, nil
	}
	api.DefaultAuthorizer = ra.Auth.DefaultAuthorizer
	for name, a := range ra.Auth.Authorizers {
		if a.FunctionArn.IsZero() {
			return nil, fmt.Errorf("authorizer %s: only Lambda authorizers (FunctionArn) are supported", name)
		}
		if a.FunctionArn.Fn != FnGetAtt || a.FunctionArn.Attr != "Arn" {
			return nil, fmt.Errorf("authorizer %s: FunctionArn must be !GetAtt <Function>.Arn", name)
		}
		au := Authorizer{Name: name, Function: a.FunctionArn.Target, EnableSimpleResponses: a.EnableSimpleResponses,
			PayloadFormatVersion: a.AuthorizerPayloadFormatVersion, ReauthorizeEvery: 300} // 300 s: SAM's default TTL
		if au.PayloadFormatVersion == "" {
			au.PayloadFormatVersion = "2.0"
		}
		if au.PayloadFormatVersion != "2.0" {
			return nil, fmt.Errorf("authorizer %s: only payload format 2.0 is supported", name)
		}
		if a.Identity != nil {
			au.IdentityHeaders = a.Identity.Headers
			if !isEmpty(&a.Identity.ReauthorizeEvery) {
				if err := a.Identity.ReauthorizeEvery.Decode(&au.ReauthorizeEvery); err != nil {
					return nil, fmt.Errorf("authorizer %s: ReauthorizeEvery: %w", name, err)
				}
			}
		}
		api.Authorizers[name] = au
	}
	if d := api.DefaultAuthorizer; d != "" {
		if _, ok := api.Authorizers[d]; !ok {
			return nil, fmt.Errorf("DefaultAuthorizer %q is not among Authorizers", d)
		}
	}
	return api, nil
}

type rawTable struct {
	TableName              Value                 `yaml:"TableName"`
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
		ProvisionedThroughput            yaml.Node `yaml:"ProvisionedThroughput"`
		OnDemandThroughput               yaml.Node `yaml:"OnDemandThroughput"`
		ContributorInsightsSpecification yaml.Node `yaml:"ContributorInsightsSpecification"`
		WarmThroughput                   yaml.Node `yaml:"WarmThroughput"`
	} `yaml:"GlobalSecondaryIndexes"`
	TimeToLiveSpecification *struct {
		AttributeName string `yaml:"AttributeName"`
		Enabled       bool   `yaml:"Enabled"`
	} `yaml:"TimeToLiveSpecification"`
	LocalSecondaryIndexes            yaml.Node `yaml:"LocalSecondaryIndexes"`
	ContributorInsightsSpecification yaml.Node `yaml:"ContributorInsightsSpecification"`
	DeletionProtectionEnabled        yaml.Node `yaml:"DeletionProtectionEnabled"`
	ImportSourceSpecification        yaml.Node `yaml:"ImportSourceSpecification"`
	KinesisStreamSpecification       yaml.Node `yaml:"KinesisStreamSpecification"`
	OnDemandThroughput               yaml.Node `yaml:"OnDemandThroughput"`
	PointInTimeRecoverySpecification yaml.Node `yaml:"PointInTimeRecoverySpecification"`
	ProvisionedThroughput            yaml.Node `yaml:"ProvisionedThroughput"`
	ResourcePolicy                   yaml.Node `yaml:"ResourcePolicy"`
	SSESpecification                 yaml.Node `yaml:"SSESpecification"`
	StreamSpecification              yaml.Node `yaml:"StreamSpecification"`
	TableClass                       yaml.Node `yaml:"TableClass"`
	Tags                             yaml.Node `yaml:"Tags"`
	WarmThroughput                   yaml.Node `yaml:"WarmThroughput"`
}

func parseTable(id string, n *yaml.Node) (*Table, error) {
	var rt rawTable
	if err := strict(n, &rt); err != nil {
		return nil, err
	}
	if !isEmpty(&rt.LocalSecondaryIndexes) {
		return nil, errors.New("LocalSecondaryIndexes are not supported by the local stack")
	}
	t := &Table{LogicalID: id, TableName: rt.TableName, BillingMode: rt.BillingMode,
		AttributeDefinitions: rt.AttributeDefinitions, KeySchema: rt.KeySchema}
	switch t.BillingMode {
	case "":
		t.BillingMode = "PROVISIONED" // CloudFormation's default
	case "PAY_PER_REQUEST", "PROVISIONED":
	default:
		return nil, fmt.Errorf("unknown BillingMode %q", t.BillingMode)
	}
	defined := map[string]bool{}
	for _, a := range rt.AttributeDefinitions {
		switch a.AttributeType {
		case "S", "N", "B":
		default:
			return nil, fmt.Errorf("attribute %s: unknown AttributeType %q", a.AttributeName, a.AttributeType)
		}
		if defined[a.AttributeName] {
			return nil, fmt.Errorf("attribute %s defined twice", a.AttributeName)
		}
		defined[a.AttributeName] = true
	}
	used := map[string]bool{}
	if err := checkKeySchema("table", rt.KeySchema, defined, used); err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, g := range rt.GlobalSecondaryIndexes {
		if g.IndexName == "" || names[g.IndexName] {
			return nil, fmt.Errorf("GSI name %q is empty or repeated", g.IndexName)
		}
		names[g.IndexName] = true
		if err := checkKeySchema("index "+g.IndexName, g.KeySchema, defined, used); err != nil {
			return nil, err
		}
		switch g.Projection.ProjectionType {
		case "ALL", "KEYS_ONLY":
			if len(g.Projection.NonKeyAttributes) > 0 {
				return nil, fmt.Errorf("index %s: NonKeyAttributes need ProjectionType INCLUDE", g.IndexName)
			}
		case "INCLUDE":
		default:
			return nil, fmt.Errorf("index %s: unknown ProjectionType %q", g.IndexName, g.Projection.ProjectionType)
		}
		t.GlobalIndexes = append(t.GlobalIndexes, GlobalIndex{IndexName: g.IndexName, KeySchema: g.KeySchema,
			ProjectionType: g.Projection.ProjectionType, NonKeyAttributes: g.Projection.NonKeyAttributes})
	}
	// DynamoDB rejects attribute definitions that no key schema uses.
	for name := range defined {
		if !used[name] {
			return nil, fmt.Errorf("attribute %s is defined but used by no key schema", name)
		}
	}
	if tt := rt.TimeToLiveSpecification; tt != nil && tt.Enabled {
		t.TTLAttribute = tt.AttributeName
	}
	return t, nil
}

func checkKeySchema(what string, ks []KeyElement, defined, used map[string]bool) error {
	if len(ks) == 0 || len(ks) > 2 {
		return fmt.Errorf("%s: KeySchema needs 1 or 2 elements", what)
	}
	for i, k := range ks {
		want := []string{"HASH", "RANGE"}[i]
		if k.KeyType != want {
			return fmt.Errorf("%s: key element %d must be %s, not %q", what, i, want, k.KeyType)
		}
		if !defined[k.AttributeName] {
			return fmt.Errorf("%s: key attribute %s is not in AttributeDefinitions", what, k.AttributeName)
		}
		used[k.AttributeName] = true
	}
	return nil
}

type rawQueue struct {
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
	RedriveAllowPolicy           yaml.Node `yaml:"RedriveAllowPolicy"`
	KmsDataKeyReusePeriodSeconds yaml.Node `yaml:"KmsDataKeyReusePeriodSeconds"`
	KmsMasterKeyId               yaml.Node `yaml:"KmsMasterKeyId"`
	MaximumMessageSize           yaml.Node `yaml:"MaximumMessageSize"`
	SqsManagedSseEnabled         yaml.Node `yaml:"SqsManagedSseEnabled"`
	Tags                         yaml.Node `yaml:"Tags"`
}

func parseQueue(id string, n *yaml.Node) (*Queue, error) {
	var rq rawQueue
	if !isEmpty(n) {
		if err := strict(n, &rq); err != nil {
			return nil, err
		}
	}
	q := &Queue{LogicalID: id, QueueName: rq.QueueName, FifoQueue: rq.FifoQueue,
		ContentBasedDeduplication: rq.ContentBasedDeduplication, VisibilityTimeout: rq.VisibilityTimeout,
		MessageRetentionPeriod: rq.MessageRetentionPeriod, DelaySeconds: rq.DelaySeconds,
		ReceiveWaitTime: rq.ReceiveMessageWaitTimeSeconds, DeduplicationScope: rq.DeduplicationScope,
		FifoThroughputLimit: rq.FifoThroughputLimit}
	if name := q.QueueName.Lit + q.QueueName.Sub; name != "" && strings.HasSuffix(name, ".fifo") != q.FifoQueue {
		return nil, fmt.Errorf("QueueName %q: a FIFO queue's name must end in .fifo, and only a FIFO queue's", name)
	}
	if !q.FifoQueue && (q.ContentBasedDeduplication || q.DeduplicationScope != "" || q.FifoThroughputLimit != "") {
		return nil, errors.New("FIFO settings on a standard queue")
	}
	if rp := rq.RedrivePolicy; rp != nil {
		if rp.DeadLetterTargetArn.Fn != FnGetAtt || rp.DeadLetterTargetArn.Attr != "Arn" {
			return nil, errors.New("RedrivePolicy.deadLetterTargetArn must be !GetAtt <Queue>.Arn")
		}
		if rp.MaxReceiveCount < 1 || rp.MaxReceiveCount > 1000 {
			return nil, fmt.Errorf("RedrivePolicy.maxReceiveCount %d out of range 1..1000", rp.MaxReceiveCount)
		}
		q.Redrive = &Redrive{DeadLetterQueue: rp.DeadLetterTargetArn.Target, MaxReceiveCount: rp.MaxReceiveCount}
	}
	return q, nil
}

type rawBucket struct {
	BucketName                       Value     `yaml:"BucketName"`
	AbacStatus                       yaml.Node `yaml:"AbacStatus"`
	AccelerateConfiguration          yaml.Node `yaml:"AccelerateConfiguration"`
	AccessControl                    yaml.Node `yaml:"AccessControl"`
	AnalyticsConfigurations          yaml.Node `yaml:"AnalyticsConfigurations"`
	BucketEncryption                 yaml.Node `yaml:"BucketEncryption"`
	CorsConfiguration                yaml.Node `yaml:"CorsConfiguration"`
	IntelligentTieringConfigurations yaml.Node `yaml:"IntelligentTieringConfigurations"`
	InventoryConfigurations          yaml.Node `yaml:"InventoryConfigurations"`
	LifecycleConfiguration           yaml.Node `yaml:"LifecycleConfiguration"`
	LoggingConfiguration             yaml.Node `yaml:"LoggingConfiguration"`
	MetadataTableConfiguration       yaml.Node `yaml:"MetadataTableConfiguration"`
	MetricsConfigurations            yaml.Node `yaml:"MetricsConfigurations"`
	NotificationConfiguration        yaml.Node `yaml:"NotificationConfiguration"`
	ObjectLockConfiguration          yaml.Node `yaml:"ObjectLockConfiguration"`
	ObjectLockEnabled                yaml.Node `yaml:"ObjectLockEnabled"`
	OwnershipControls                yaml.Node `yaml:"OwnershipControls"`
	PublicAccessBlockConfiguration   yaml.Node `yaml:"PublicAccessBlockConfiguration"`
	ReplicationConfiguration         yaml.Node `yaml:"ReplicationConfiguration"`
	Tags                             yaml.Node `yaml:"Tags"`
	VersioningConfiguration          yaml.Node `yaml:"VersioningConfiguration"`
	WebsiteConfiguration             yaml.Node `yaml:"WebsiteConfiguration"`
}

// pseudoParams are CloudFormation's pseudo parameters.
var pseudoParams = []string{"AWS::AccountId", "AWS::NotificationARNs", "AWS::NoValue", "AWS::Partition",
	"AWS::Region", "AWS::StackId", "AWS::StackName", "AWS::URLSuffix"}

// validate checks cross-references: every Ref, GetAtt and ${} anywhere in the
// template names something that exists, and the typed references point at
// resources of the right type.
func (t *Template) validate(raw *rawTemplate, src []byte) error {
	resources := map[string]string{} // LogicalId -> Type
	for id, r := range raw.Resources {
		resources[id] = r.Type
	}
	var errs []error
	var root yaml.Node
	if err := yaml.Unmarshal(src, &root); err != nil {
		return err
	}
	walk(&root, func(n *yaml.Node) {
		if _, ok := shortTags[n.Tag]; !ok && !(n.Kind == yaml.MappingNode && len(n.Content) == 2 &&
			(n.Content[0].Value == FnRef || n.Content[0].Value == FnGetAtt || n.Content[0].Value == FnSub)) {
			return
		}
		v, err := parseValue(n)
		if err != nil {
			errs = append(errs, err)
			return
		}
		for _, name := range v.Refs() {
			if err := t.checkName(v.Fn, name, resources); err != nil {
				errs = append(errs, fmt.Errorf("line %d: %w", v.Line, err))
			}
		}
	})
	for _, id := range t.FunctionIDs() {
		f := t.Functions[id]
		for _, ev := range f.HttpEvents {
			if ev.ApiID != "" && t.HttpApis[ev.ApiID] == nil {
				errs = append(errs, fmt.Errorf("%s event %s: ApiId %s is not an HttpApi", id, ev.Name, ev.ApiID))
			}
			if ev.ApiID == "" && len(t.HttpApis) > 0 {
				errs = append(errs, fmt.Errorf("%s event %s: ApiId is required when the template declares an HttpApi", id, ev.Name))
			}
			if api := t.HttpApis[ev.ApiID]; api != nil && ev.Authorizer != "" && ev.Authorizer != "NONE" {
				if _, ok := api.Authorizers[ev.Authorizer]; !ok {
					errs = append(errs, fmt.Errorf("%s event %s: unknown authorizer %s", id, ev.Name, ev.Authorizer))
				}
			}
		}
		for _, ev := range f.SQSEvents {
			q := t.Queues[ev.Queue]
			if q == nil {
				errs = append(errs, fmt.Errorf("%s event %s: %s is not an AWS::SQS::Queue", id, ev.Name, ev.Queue))
				continue
			}
			if q.FifoQueue && ev.BatchSize > 10 {
				errs = append(errs, fmt.Errorf("%s event %s: BatchSize %d exceeds 10, the FIFO maximum", id, ev.Name, ev.BatchSize))
			}
		}
	}
	for _, id := range sortedKeys(t.HttpApis) {
		for _, a := range t.HttpApis[id].Authorizers {
			if t.Functions[a.Function] == nil {
				errs = append(errs, fmt.Errorf("%s authorizer %s: %s is not an AWS::Serverless::Function", id, a.Name, a.Function))
			}
		}
	}
	for _, id := range sortedKeys(t.Queues) {
		q := t.Queues[id]
		if q.Redrive == nil {
			continue
		}
		dlq := t.Queues[q.Redrive.DeadLetterQueue]
		switch {
		case dlq == nil:
			errs = append(errs, fmt.Errorf("%s: dead-letter target %s is not an AWS::SQS::Queue", id, q.Redrive.DeadLetterQueue))
		case dlq.FifoQueue != q.FifoQueue:
			errs = append(errs, fmt.Errorf("%s: dead-letter queue %s must be FIFO exactly when the queue is", id, dlq.LogicalID))
		case dlq.Redrive != nil:
			errs = append(errs, fmt.Errorf("%s: dead-letter queue %s has a redrive policy itself", id, dlq.LogicalID))
		}
	}
	seen := map[string]string{}
	for _, r := range t.Routes() {
		if prev, dup := seen[r.Key()]; dup {
			errs = append(errs, fmt.Errorf("route %s is declared by both %s and %s", r.Key(), prev, r.Function))
		}
		seen[r.Key()] = r.Function
	}
	return errors.Join(errs...)
}

func (t *Template) checkName(fn, name string, resources map[string]string) error {
	if slices.Contains(pseudoParams, name) {
		return nil
	}
	res, attr, hasAttr := strings.Cut(name, ".")
	if fn == FnGetAtt || hasAttr {
		if _, ok := resources[res]; !ok {
			return fmt.Errorf("GetAtt %s.%s: no resource %s", res, attr, res)
		}
		return nil
	}
	if _, ok := resources[name]; ok {
		return nil
	}
	if _, ok := t.Parameters[name]; ok {
		return nil
	}
	return fmt.Errorf("reference to unknown resource or parameter %s", name)
}

func walk(n *yaml.Node, f func(*yaml.Node)) {
	f(n)
	for _, c := range n.Content {
		walk(c, f)
	}
}
