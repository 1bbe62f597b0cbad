package routes

import (
	"slices"
	"strings"
)

// Access is what a function may do on the stack's resources: the IAM grants of its
// execution role. Functions with the same grants share one role (infra/stackgen), named
// after them, so a role grants exactly what each of its functions needs.
type Access []Grant

// Grant allows Actions on Resources of the template. A resource is a LogicalId ("Table",
// "JobsQueue", "ImportBucket": its Arn) or a LogicalId and a path below its Arn
// ("Table/index/GSI1", "ImportBucket/exports/*"). Name names the grant inside a role's
// name; one name always means the same grant.
type Grant struct {
	Name      string
	Actions   []string
	Resources []string
}

// none is the access of a function that reads and writes nothing (its logs only).
var none Access

// The grants the operations are made of.
var (
	// tableRead is what SAM's DynamoDBReadPolicy grants: reads of the table and its
	// indexes.
	tableRead = Access{{Name: "TableRead", Resources: []string{"Table", "Table/index/*"},
		Actions: dynamodb("GetItem", "Scan", "Query", "BatchGetItem", "DescribeTable")}}
	// tableCrud is what SAM's DynamoDBCrudPolicy grants: reads and writes of the table
	// and its indexes.
	tableCrud = Access{{Name: "TableCrud", Resources: []string{"Table", "Table/index/*"},
		Actions: dynamodb("GetItem", "DeleteItem", "PutItem", "Scan", "Query", "UpdateItem", "BatchWriteItem",
			"BatchGetItem", "DescribeTable", "ConditionCheckItem")}}
	// bucketRead is what SAM's S3ReadPolicy grants on the import bucket.
	bucketRead = Access{{Name: "BucketRead", Resources: []string{"ImportBucket", "ImportBucket/*"},
		Actions: []string{"s3:GetObject", "s3:ListBucket", "s3:GetBucketLocation", "s3:GetObjectVersion",
			"s3:GetLifecycleConfiguration"}}}
	// sendJobs, sendRecomputes, sendFolds, sendImports and sendFeeds are what SAM's
	// SQSSendMessagePolicy grants on a queue.
	sendJobs       = Access{{Name: "SendJobs", Resources: []string{"JobsQueue"}, Actions: []string{"sqs:SendMessage*"}}}
	sendRecomputes = Access{{Name: "SendRecomputes", Resources: []string{"RecomputeQueue"}, Actions: []string{"sqs:SendMessage*"}}}
	sendFolds      = Access{{Name: "SendFolds", Resources: []string{"SeriesFoldQueue"}, Actions: []string{"sqs:SendMessage*"}}}
	sendImports    = Access{{Name: "SendImports", Resources: []string{"ImportQueue"}, Actions: []string{"sqs:SendMessage*"}}}
	sendFeeds      = Access{{Name: "SendFeeds", Resources: []string{"ImportFeedQueue"}, Actions: []string{"sqs:SendMessage*"}}}
)

// itemActions are the DynamoDB item actions in the order role names list them.
var itemActions = []string{"GetItem", "BatchGetItem", "Query", "Scan", "PutItem", "UpdateItem", "DeleteItem",
	"BatchWriteItem", "ConditionCheckItem", "DescribeTable"}

// shortAction is an action's word in a role name.
var shortAction = map[string]string{"GetItem": "Get", "BatchGetItem": "BatchGet", "PutItem": "Put",
	"UpdateItem": "Update", "DeleteItem": "Delete", "BatchWriteItem": "BatchWrite", "ConditionCheckItem": "Check",
	"GetObject": "Get", "PutObject": "Put"}

func dynamodb(actions ...string) []string {
	out := make([]string, len(actions))
	for i, a := range actions {
		out[i] = "dynamodb:" + a
	}
	return out
}

// table grants DynamoDB item actions on the table itself (not its indexes), each
// transaction item action included (IAM checks PutItem, UpdateItem, DeleteItem and
// ConditionCheckItem inside TransactWriteItems).
func table(actions ...string) Access {
	actions = slices.Clone(actions)
	slices.SortFunc(actions, func(a, b string) int { return slices.Index(itemActions, a) - slices.Index(itemActions, b) })
	return Access{{Name: "Table" + words(actions), Resources: []string{"Table"}, Actions: dynamodb(actions...)}}
}

// index grants DynamoDB actions on one index of the table.
func index(name string, actions ...string) Access {
	return Access{{Name: title(name) + words(actions), Resources: []string{"Table/index/" + name}, Actions: dynamodb(actions...)}}
}

// objects grants S3 object actions under a prefix of the import bucket.
func objects(prefix string, actions ...string) Access {
	s3 := make([]string, len(actions))
	for i, a := range actions {
		s3[i] = "s3:" + a
	}
	return Access{{Name: title(strings.TrimSuffix(prefix, "/")) + words(actions), Resources: []string{"ImportBucket/" + prefix + "*"},
		Actions: s3}}
}

// access joins grants.
func access(parts ...Access) Access { return slices.Concat(parts...) }

func words(actions []string) string {
	var b strings.Builder
	for _, a := range actions {
		if w, ok := shortAction[a]; ok {
			b.WriteString(w)
		} else {
			b.WriteString(a)
		}
	}
	return b.String()
}

func title(s string) string { return strings.ToUpper(s[:1]) + strings.ToLower(s[1:]) }

// RoleName is the LogicalId of the role of the functions with this access: its grants'
// names, table first, then indexes, the bucket and the queues ("LogsOnlyRole" for
// none).
func (a Access) RoleName() string {
	if len(a) == 0 {
		return "LogsOnlyRole"
	}
	var b strings.Builder
	for _, g := range a.Sorted() {
		b.WriteString(g.Name)
	}
	return b.String() + "Role"
}

// Sorted is the access's grants in the order of its role's name and statements.
func (a Access) Sorted() Access {
	out := slices.Clone(a)
	slices.SortFunc(out, func(x, y Grant) int {
		if d := rank(x.Name) - rank(y.Name); d != 0 {
			return d
		}
		return strings.Compare(x.Name, y.Name)
	})
	return out
}

// rank orders grants in a role name: table, indexes, bucket, queues.
func rank(name string) int {
	for i, prefix := range []string{"Table", "Gsi", "Bucket", "Imports", "Exports", "Receive", "Send"} {
		if strings.HasPrefix(name, prefix) {
			return i
		}
	}
	return 99
}

// withRequestCounting is an operation's access plus what apigw.Wrap's rate gate does
// before the handler runs: one UpdateItem on the table per request (the account's
// window of one second). The action joins the operation's own grant of table item
// actions, so each role keeps one table statement.
func withRequestCounting(a Access) Access {
	const update = "dynamodb:UpdateItem"
	for _, g := range a {
		if slices.Contains(g.Resources, "Table") && slices.Contains(g.Actions, update) {
			return a
		}
	}
	for i, g := range a {
		if slices.Equal(g.Resources, []string{"Table"}) {
			actions := []string{"UpdateItem"}
			for _, act := range g.Actions {
				actions = append(actions, strings.TrimPrefix(act, "dynamodb:"))
			}
			out := slices.Clone(a)
			out[i] = table(actions...)[0]
			return out
		}
	}
	return access(a, table("UpdateItem"))
}
