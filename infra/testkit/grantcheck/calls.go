// Package grantcheck proves the functions' IAM grants from the AWS requests they
// really send: a recording proxy stands between each function and the emulator, every
// request is read back into the IAM actions it needs and the resources it touches, in
// the registry's words (shared/routes), and Check compares them with what each role
// grants — a call its role does not grant fails, and so does a grant none of its
// functions called, unless the registry gives the reason it is kept
// (docs/architecture.md, "Least privilege").
package grantcheck

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strings"

	"github.com/subsight/subsight/infra/devstack/provision"
)

// Call is one AWS request in IAM's words: an action ("dynamodb:Query") on a resource
// named as the registry names it: "Table", "Table/index/GSI1", "JobsQueue",
// "ImportBucket" (the bucket itself), "ImportBucket/imports/acc_1/part.json" (an
// object).
type Call struct{ Action, Resource string }

func (c Call) String() string { return c.Action + " on " + c.Resource }

// Names maps one set of resources' physical names back to their LogicalIds.
type Names struct {
	Tables, Buckets map[string]string // physical name -> LogicalId
	Queues          map[string]string // queue name (the URL's last segment) -> LogicalId
	Keys            map[string]string // KMS key id and ARN -> LogicalId
}

func (n Names) table(name string) string  { return orUnknown(n.Tables, name) }
func (n Names) bucket(name string) string { return orUnknown(n.Buckets, name) }
func (n Names) queue(queueURL string) string {
	u, err := url.Parse(queueURL)
	if err != nil {
		return "?" + queueURL
	}
	return orUnknown(n.Queues, path.Base(u.Path))
}

// orUnknown marks a name of no resource of the set: no grant can match it.
func orUnknown(m map[string]string, name string) string {
	if id, ok := m[name]; ok {
		return id
	}
	return "?" + name
}

// Parse reads one request to DynamoDB, SQS, KMS or S3 (path style) into the IAM calls it
// needs: a transaction or batch of several resources and actions is several calls
// (IAM checks PutItem, UpdateItem, DeleteItem and ConditionCheckItem inside
// TransactWriteItems, GetItem inside TransactGetItems). A request it cannot read is
// an error, so nothing escapes the check.
func Parse(r *http.Request, body []byte, n Names) ([]Call, error) {
	target := r.Header.Get("X-Amz-Target")
	switch {
	case strings.HasPrefix(target, "DynamoDB_"):
		return dynamoCalls(strings.TrimPrefix(target[strings.Index(target, "."):], "."), body, n)
	case strings.HasPrefix(target, "AmazonSQS."):
		return sqsCalls(strings.TrimPrefix(target, "AmazonSQS."), body, n)
	case strings.HasPrefix(target, "TrentService."):
		return kmsCalls(strings.TrimPrefix(target, "TrentService."), body, n)
	case target == "":
		return s3Calls(r, body, n)
	}
	return nil, fmt.Errorf("unknown service: %s %s (X-Amz-Target %s)", r.Method, r.URL, target)
}

// dynamoRequest is what the calls of a DynamoDB request are read from.
type dynamoRequest struct {
	TableName     string
	IndexName     string
	RequestItems  map[string]json.RawMessage
	TransactItems []map[string]struct{ TableName string }
}

// transactActions are the item actions IAM checks for each element of a transaction.
var transactActions = map[string]string{"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem",
	"ConditionCheck": "ConditionCheckItem", "Get": "GetItem"}

func dynamoCalls(op string, body []byte, n Names) ([]Call, error) {
	var req dynamoRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("dynamodb %s: %w", op, err)
	}
	switch op {
	case "BatchGetItem", "BatchWriteItem":
		var out []Call
		for table := range req.RequestItems {
			out = append(out, Call{"dynamodb:" + op, n.table(table)})
		}
		return out, nil
	case "TransactWriteItems", "TransactGetItems":
		var out []Call
		for _, item := range req.TransactItems {
			for kind, it := range item {
				action, ok := transactActions[kind]
				if !ok {
					return nil, fmt.Errorf("dynamodb %s: unknown element %s", op, kind)
				}
				out = append(out, Call{"dynamodb:" + action, n.table(it.TableName)})
			}
		}
		return out, nil
	}
	if req.TableName == "" {
		return nil, fmt.Errorf("dynamodb %s: no TableName", op)
	}
	resource := n.table(req.TableName)
	if req.IndexName != "" {
		resource += "/index/" + req.IndexName
	}
	return []Call{{"dynamodb:" + op, resource}}, nil
}

// sqsActions are the IAM actions of SQS's batch operations.
var sqsActions = map[string]string{"SendMessageBatch": "SendMessage", "DeleteMessageBatch": "DeleteMessage",
	"ChangeMessageVisibilityBatch": "ChangeMessageVisibility"}

func sqsCalls(op string, body []byte, n Names) ([]Call, error) {
	var req struct {
		QueueURL string `json:"QueueUrl"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("sqs %s: %w", op, err)
	}
	if req.QueueURL == "" {
		return nil, fmt.Errorf("sqs %s: no QueueUrl", op)
	}
	if a, ok := sqsActions[op]; ok {
		op = a
	}
	return []Call{{"sqs:" + op, n.queue(req.QueueURL)}}, nil
}

var deletedKey = regexp.MustCompile(`<Key>([^<]*)</Key>`)

// s3Calls reads a path-style S3 request: /bucket for the bucket, /bucket/key for an
// object.
func s3Calls(r *http.Request, body []byte, n Names) ([]Call, error) {
	bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if bucket == "" {
		return nil, fmt.Errorf("s3: %s %s names no bucket", r.Method, r.URL)
	}
	b := n.bucket(bucket)
	q := r.URL.Query()
	if key == "" {
		switch {
		case r.Method == http.MethodGet && (q.Has("list-type") || len(q) == 0 || q.Has("prefix")):
			return []Call{{"s3:ListBucket", b}}, nil
		case r.Method == http.MethodPost && q.Has("delete"):
			var out []Call
			for _, m := range deletedKey.FindAllSubmatch(body, -1) {
				out = append(out, Call{"s3:DeleteObject", b + "/" + string(m[1])})
			}
			return out, nil
		}
		return nil, fmt.Errorf("s3: unknown bucket request %s %s", r.Method, r.URL)
	}
	object := b + "/" + key
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		return []Call{{"s3:GetObject", object}}, nil
	case http.MethodPut, http.MethodPost: // a put, or a part or the start or end of a multipart upload
		out := []Call{{"s3:PutObject", object}}
		if src := r.Header.Get("X-Amz-Copy-Source"); src != "" {
			src, _ = url.PathUnescape(src)
			srcBucket, srcKey, _ := strings.Cut(strings.TrimPrefix(src, "/"), "/")
			out = append(out, Call{"s3:GetObject", n.bucket(srcBucket) + "/" + srcKey})
		}
		return out, nil
	case http.MethodDelete:
		if q.Has("uploadId") {
			return []Call{{"s3:AbortMultipartUpload", object}}, nil
		}
		return []Call{{"s3:DeleteObject", object}}, nil
	}
	return nil, fmt.Errorf("s3: unknown object request %s %s", r.Method, r.URL)
}

// kmsCalls is a KMS request on the key it names (KeyId: its id or ARN). A Decrypt
// without KeyId names no key in the request (KMS reads it from the ciphertext): it is
// an error, as the service always pins the key.
func kmsCalls(op string, body []byte, n Names) ([]Call, error) {
	var req struct{ KeyId string }
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("kms %s: %w", op, err)
	}
	if req.KeyId == "" {
		return nil, fmt.Errorf("kms %s: no KeyId", op)
	}
	return []Call{{"kms:" + op, orUnknown(n.Keys, req.KeyId)}}, nil
}

// NamesOf are the names of one provisioned set of the template's resources.
func NamesOf(res *provision.Resources) Names {
	n := Names{Tables: map[string]string{}, Buckets: map[string]string{}, Queues: map[string]string{}, Keys: map[string]string{}}
	for id, name := range res.Tables {
		n.Tables[name] = id
	}
	for id, name := range res.Buckets {
		n.Buckets[name] = id
	}
	for id, q := range res.Queues {
		n.Queues[path.Base(q.URL)] = id
	}
	for id, k := range res.Keys {
		n.Keys[k.ID], n.Keys[k.ARN] = id, id
	}
	return n
}
