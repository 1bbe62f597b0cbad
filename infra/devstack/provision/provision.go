// Package provision creates, in an emulator, the table, queues, bucket and KMS keys
// exactly as template.yaml declares them, and says what their physical names are, so that the
// local stack and the tests run against the template's resources and nothing else.
package provision

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	kmstypes "github.com/aws/aws-sdk-go-v2/service/kms/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/subsight/subsight/infra/devstack/emulator"
	"github.com/subsight/subsight/infra/devstack/samtemplate"
	"github.com/subsight/subsight/shared/config"
)

// DefaultPrefix starts every local physical name.
const DefaultPrefix = "subsight-local"

// LocalAccountID is the account id moto uses by default (it appears in ARNs).
const LocalAccountID = "123456789012"

// Options tune Provision.
type Options struct {
	// Prefix of physical names; DefaultPrefix when empty. It must be lower case
	// (bucket names) and short enough for 80-character queue names.
	Prefix string
	// Region the clients talk to; us-east-1 when empty.
	Region string
}

// Queue is a provisioned queue.
type Queue struct {
	Name, URL, ARN string
}

// Resources are the physical names of what Provision created, keyed by LogicalId.
type Resources struct {
	Prefix  string
	Region  string
	Tables  map[string]string // LogicalId -> table name
	Buckets map[string]string // LogicalId -> bucket name
	Queues  map[string]Queue
	Keys    map[string]Key // LogicalId -> KMS key
}

// Key is a provisioned KMS key: Ref gives its id, GetAtt Arn its ARN.
type Key struct {
	ID, ARN string
}

// PhysicalName is the local name of a resource: <prefix>-<logicalid lower case>.
func PhysicalName(prefix, logicalID string) string {
	return prefix + "-" + strings.ToLower(logicalID)
}

// Provision creates the template's tables, queues and buckets. Resources that
// already exist are accepted, so it can run again against a running emulator.
func Provision(ctx context.Context, tpl *samtemplate.Template, cfg aws.Config, opts Options) (*Resources, error) {
	c := emulator.Clients(cfg)
	s3c := emulator.S3(cfg)
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	if opts.Region == "" {
		opts.Region = cfg.Region
	}
	if opts.Prefix != strings.ToLower(opts.Prefix) {
		return nil, fmt.Errorf("provision: prefix %q must be lower case", opts.Prefix)
	}
	r := &Resources{Prefix: opts.Prefix, Region: opts.Region, Tables: map[string]string{},
		Buckets: map[string]string{}, Queues: map[string]Queue{}, Keys: map[string]Key{}}
	t0 := time.Now()

	// Tables, buckets and the queue chain are independent; creating them side by side
	// keeps `make run` and test set-up quick.
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	for id, tb := range tpl.Tables {
		name := PhysicalName(opts.Prefix, id)
		r.Tables[id] = name
		wg.Go(func() {
			if err := createTable(ctx, c.DynamoDB, name, tb); err != nil {
				fail(fmt.Errorf("provision: table %s: %w", id, err))
			}
		})
	}
	for id := range tpl.Buckets {
		name := PhysicalName(opts.Prefix, id)
		r.Buckets[id] = name
		wg.Go(func() {
			if err := createBucket(ctx, s3c, name, opts.Region); err != nil {
				fail(fmt.Errorf("provision: bucket %s: %w", id, err))
			}
		})
	}
	kmsc := kms.NewFromConfig(cfg)
	for id, typ := range tpl.Other {
		if typ != samtemplate.TypeKey {
			continue
		}
		wg.Go(func() {
			k, err := createKey(ctx, kmsc, PhysicalName(opts.Prefix, id))
			if err != nil {
				fail(fmt.Errorf("provision: key %s: %w", id, err))
				return
			}
			mu.Lock()
			r.Keys[id] = k
			mu.Unlock()
		})
	}
	wg.Go(func() {
		// Dead-letter queues first: a queue's redrive policy needs its DLQ's ARN.
		for _, id := range tpl.QueueIDs() {
			q, err := createQueue(ctx, c.SQS, PhysicalName(opts.Prefix, id), tpl.Queues[id], r.Queues)
			if err != nil {
				fail(fmt.Errorf("provision: queue %s: %w", id, err))
				return
			}
			mu.Lock()
			r.Queues[id] = q
			mu.Unlock()
		}
	})
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	slog.Debug("provisioned", "prefix", opts.Prefix, "ms", time.Since(t0).Milliseconds())
	return r, nil
}

func createTable(ctx context.Context, db *dynamodb.Client, name string, tb *samtemplate.Table) error {
	in := &dynamodb.CreateTableInput{
		TableName: aws.String(name),
		// On-demand locally whatever the template says: moto ignores capacity anyway.
		BillingMode: ddbtypes.BillingModePayPerRequest,
		KeySchema:   keySchema(tb.KeySchema),
	}
	for _, a := range tb.AttributeDefinitions {
		in.AttributeDefinitions = append(in.AttributeDefinitions, ddbtypes.AttributeDefinition{
			AttributeName: aws.String(a.AttributeName), AttributeType: ddbtypes.ScalarAttributeType(a.AttributeType)})
	}
	for _, g := range tb.GlobalIndexes {
		p := &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionType(g.ProjectionType)}
		if len(g.NonKeyAttributes) > 0 {
			p.NonKeyAttributes = g.NonKeyAttributes
		}
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, ddbtypes.GlobalSecondaryIndex{
			IndexName: aws.String(g.IndexName), KeySchema: keySchema(g.KeySchema), Projection: p})
	}
	_, err := db.CreateTable(ctx, in)
	var inUse *ddbtypes.ResourceInUseException
	if errors.As(err, &inUse) {
		return nil
	}
	if err != nil {
		return err
	}
	if tb.TTLAttribute != "" {
		_, err = db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(name),
			TimeToLiveSpecification: &ddbtypes.TimeToLiveSpecification{AttributeName: aws.String(tb.TTLAttribute), Enabled: aws.Bool(true)}})
	}
	return err
}

func keySchema(ks []samtemplate.KeyElement) []ddbtypes.KeySchemaElement {
	out := make([]ddbtypes.KeySchemaElement, len(ks))
	for i, k := range ks {
		out[i] = ddbtypes.KeySchemaElement{AttributeName: aws.String(k.AttributeName), KeyType: ddbtypes.KeyType(k.KeyType)}
	}
	return out
}

func createBucket(ctx context.Context, c *s3.Client, name, region string) error {
	in := &s3.CreateBucketInput{Bucket: aws.String(name)}
	if region != "us-east-1" {
		in.CreateBucketConfiguration = &s3types.CreateBucketConfiguration{LocationConstraint: s3types.BucketLocationConstraint(region)}
	}
	_, err := c.CreateBucket(ctx, in)
	var owned *s3types.BucketAlreadyOwnedByYou
	var exists *s3types.BucketAlreadyExists
	if errors.As(err, &owned) || errors.As(err, &exists) {
		return nil
	}
	return err
}

// createKey creates a symmetric KMS key with the alias alias/<name>, or finds the one
// that alias already names (a provisioning run again against a running emulator).
func createKey(ctx context.Context, c *kms.Client, name string) (Key, error) {
	alias := "alias/" + name
	found := func() (Key, error) {
		d, err := c.DescribeKey(ctx, &kms.DescribeKeyInput{KeyId: aws.String(alias)})
		if err != nil {
			return Key{}, err
		}
		return Key{ID: aws.ToString(d.KeyMetadata.KeyId), ARN: aws.ToString(d.KeyMetadata.Arn)}, nil
	}
	if k, err := found(); err == nil {
		return k, nil
	}
	out, err := c.CreateKey(ctx, &kms.CreateKeyInput{Description: aws.String(name)})
	if err != nil {
		return Key{}, err
	}
	_, err = c.CreateAlias(ctx, &kms.CreateAliasInput{AliasName: aws.String(alias), TargetKeyId: out.KeyMetadata.KeyId})
	var exists *kmstypes.AlreadyExistsException
	if errors.As(err, &exists) {
		// Another run created it meanwhile: use that one.
		return found()
	}
	if err != nil {
		return Key{}, err
	}
	return Key{ID: aws.ToString(out.KeyMetadata.KeyId), ARN: aws.ToString(out.KeyMetadata.Arn)}, nil
}

// QueueAttributes are the SQS attributes a queue declaration maps to; dlqARN is the
// ARN of its dead-letter queue (unused without a redrive policy).
func QueueAttributes(q *samtemplate.Queue, dlqARN string) map[string]string {
	attrs := map[string]string{}
	if q.FifoQueue {
		attrs[string(sqstypes.QueueAttributeNameFifoQueue)] = "true"
		attrs[string(sqstypes.QueueAttributeNameContentBasedDeduplication)] = strconv.FormatBool(q.ContentBasedDeduplication)
	}
	setInt := func(name sqstypes.QueueAttributeName, v *int) {
		if v != nil {
			attrs[string(name)] = strconv.Itoa(*v)
		}
	}
	setInt(sqstypes.QueueAttributeNameVisibilityTimeout, q.VisibilityTimeout)
	setInt(sqstypes.QueueAttributeNameMessageRetentionPeriod, q.MessageRetentionPeriod)
	setInt(sqstypes.QueueAttributeNameDelaySeconds, q.DelaySeconds)
	setInt(sqstypes.QueueAttributeNameReceiveMessageWaitTimeSeconds, q.ReceiveWaitTime)
	if q.DeduplicationScope != "" {
		attrs[string(sqstypes.QueueAttributeNameDeduplicationScope)] = q.DeduplicationScope
	}
	if q.FifoThroughputLimit != "" {
		attrs[string(sqstypes.QueueAttributeNameFifoThroughputLimit)] = q.FifoThroughputLimit
	}
	if q.Redrive != nil {
		b, _ := json.Marshal(map[string]any{"deadLetterTargetArn": dlqARN, "maxReceiveCount": q.Redrive.MaxReceiveCount})
		attrs[string(sqstypes.QueueAttributeNameRedrivePolicy)] = string(b)
	}
	return attrs
}

func createQueue(ctx context.Context, c *sqs.Client, name string, q *samtemplate.Queue, done map[string]Queue) (Queue, error) {
	if q.FifoQueue {
		name += ".fifo"
	}
	var dlqARN string
	if q.Redrive != nil {
		dlq, ok := done[q.Redrive.DeadLetterQueue]
		if !ok {
			return Queue{}, fmt.Errorf("dead-letter queue %s not created yet", q.Redrive.DeadLetterQueue)
		}
		dlqARN = dlq.ARN
	}
	attrs := QueueAttributes(q, dlqARN)
	out, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	var exists *sqstypes.QueueNameExists
	if errors.As(err, &exists) {
		// Same name, other attributes (the template changed): bring it in line.
		u, gerr := c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(name)})
		if gerr != nil {
			return Queue{}, gerr
		}
		delete(attrs, string(sqstypes.QueueAttributeNameFifoQueue)) // immutable
		if _, err := c.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: u.QueueUrl, Attributes: attrs}); err != nil {
			return Queue{}, err
		}
		out, err = &sqs.CreateQueueOutput{QueueUrl: u.QueueUrl}, nil
	}
	if err != nil {
		return Queue{}, err
	}
	ga, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: out.QueueUrl,
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}})
	if err != nil {
		return Queue{}, err
	}
	return Queue{Name: name, URL: aws.ToString(out.QueueUrl), ARN: ga.Attributes[string(sqstypes.QueueAttributeNameQueueArn)]}, nil
}

// Resolver says what the template's references stand for locally: Ref of a table or
// bucket is its name, Ref of a queue its URL, Ref of a KMS key its id, GetAtt Arn its ARN; resources of other
// types get placeholder names; secretsmanager dynamic references resolve to secret.
func (r *Resources) Resolver(tpl *samtemplate.Template, secret string) *samtemplate.Resolver {
	res := &samtemplate.Resolver{
		Refs:  map[string]string{},
		Attrs: map[string]string{},
		Pseudo: map[string]string{
			"AWS::Region": r.Region, "AWS::AccountId": LocalAccountID, "AWS::StackName": r.Prefix,
			"AWS::Partition": "aws", "AWS::URLSuffix": "amazonaws.com",
			"AWS::StackId": "arn:aws:cloudformation:" + r.Region + ":" + LocalAccountID + ":stack/" + r.Prefix + "/local",
		},
		Dynamic: func(service, ref string) (string, error) {
			if service == "secretsmanager" {
				return secret, nil
			}
			return "", fmt.Errorf("dynamic reference to %s is not emulated locally", service)
		},
	}
	for id, name := range r.Tables {
		res.Refs[id] = name
		res.Attrs[id+".Arn"] = "arn:aws:dynamodb:" + r.Region + ":" + LocalAccountID + ":table/" + name
	}
	for id, name := range r.Buckets {
		res.Refs[id] = name
		res.Attrs[id+".Arn"] = "arn:aws:s3:::" + name
	}
	for id, q := range r.Queues {
		res.Refs[id] = q.URL
		res.Attrs[id+".Arn"] = q.ARN
		res.Attrs[id+".QueueName"] = q.Name
		res.Attrs[id+".QueueUrl"] = q.URL
	}
	for id := range tpl.Other {
		res.Refs[id] = PhysicalName(r.Prefix, id)
	}
	for id, k := range r.Keys {
		res.Refs[id] = k.ID
		res.Attrs[id+".Arn"] = k.ARN
	}
	for id := range tpl.Functions {
		res.Refs[id] = PhysicalName(r.Prefix, id)
		res.Attrs[id+".Arn"] = "arn:aws:lambda:" + r.Region + ":" + LocalAccountID + ":function:" + PhysicalName(r.Prefix, id)
	}
	return res
}

// AppConfig builds the functions' configuration from resolved template variables,
// exactly as config.FromEnv reads them from a Lambda's environment.
func AppConfig(vars map[string]string) (config.Config, error) {
	return config.FromLookup(func(name string) string { return vars[name] })
}
