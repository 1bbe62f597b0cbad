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
//
// Every grant is proven by the calls of the Lambda-parity run (infra/testkit/grantcheck):
// each action on each resource must be called by one of the role's functions. Reason
// says, in a line, why a grant is kept although the run cannot call it (a path it does
// not reach, a request another service makes with the role); only such grants have one.
type Grant struct {
	Name      string
	Actions   []string
	Resources []string
	Reason    string
}

// none is the access of a function that reads and writes nothing (its logs only).
var none Access

// The grants the operations are made of, each proven by the calls of the functions
// that have it (infra/testkit/grantcheck).
var (
	// tableRead is what the reading operations need: items, queries of partitions and of
	// both indexes (the listings).
	tableRead = access(table("GetItem", "BatchGetItem", "Query"), indexes("Query"))
	// customerWrites is what the customer, contact and data source writes need: their
	// items, and the customer's contacts and e-mail lookups (GSI2).
	customerWrites = access(table("GetItem", "BatchGetItem", "Query", "PutItem", "UpdateItem", "DeleteItem"),
		index("GSI2", "Query"))
	// recordWrites is what the writes of billing records and customers that enqueue a
	// recomputation need of the table.
	recordWrites = table("GetItem", "BatchGetItem", "Query", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem",
		"ConditionCheckItem")
	// sendJobs, sendRecomputes, sendFolds, sendImports and sendFeeds send to one queue
	// (SendMessage, which SendMessageBatch needs too).
	sendJobs       = Access{{Name: "SendJobs", Resources: []string{"JobsQueue"}, Actions: []string{"sqs:SendMessage"}}}
	sendRecomputes = Access{{Name: "SendRecomputes", Resources: []string{"RecomputeQueue"}, Actions: []string{"sqs:SendMessage"}}}
	sendFolds      = Access{{Name: "SendFolds", Resources: []string{"SeriesFoldQueue"}, Actions: []string{"sqs:SendMessage"}}}
	sendImports    = Access{{Name: "SendImports", Resources: []string{"ImportQueue"}, Actions: []string{"sqs:SendMessage"}}}
	sendFeeds      = Access{{Name: "SendFeeds", Resources: []string{"ImportFeedQueue"}, Actions: []string{"sqs:SendMessage"}}}
)

// because keeps a grant that the parity run cannot prove, with the reason.
func because(reason string, a Access) Access {
	out := slices.Clone(a)
	for i := range out {
		out[i].Reason = reason
	}
	return out
}

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

// indexes grants DynamoDB actions on every index of the table.
func indexes(actions ...string) Access {
	return Access{{Name: "Indexes" + words(actions), Resources: []string{"Table/index/*"}, Actions: dynamodb(actions...)}}
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
	for i, prefix := range []string{"Table", "Indexes", "Gsi", "Bucket", "Imports", "Exports", "Receive", "Send"} {
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
