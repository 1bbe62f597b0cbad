package ddbmeter

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// Write units as DynamoDB bills them (docs/benchmarks.md, "How write units are
// counted"). The emulator's ConsumedCapacity is a placeholder, so the recorders of this
// package price every write from the item before and after it, read around the request
// with a client of their own:
//
//   - a put, update or delete costs one unit per started KB of the larger of the item
//     before and after it (at least one); twice inside a transaction;
//   - a conditional write whose condition fails still costs the item's units (the
//     larger of the stored item and the one sent), without touching an index;
//   - a cancelled transaction costs its first phase: one unit per KB of each item, half
//     of what its commit would have cost; a ConditionCheck costs as a transactional
//     write of the item it checks;
//   - every global secondary index holding the item (all project every attribute) costs
//     the same units again when the item's image changes: once on the index partition
//     it stays in, or twice when the write moves it between index partitions (a delete
//     from the old, a put into the new), once when it enters or leaves the index.

// Charge is what one item of one write request costs, on one partition key value.
type Charge struct {
	Partition string // "table <PK>" or "GSI1 <GSI1PK>"
	Item      string // "<PK> | <SK>" of the table item written
	Entity    string // the item's entity type (attribute et), "" if it has none
	Units     float64
	Tx        bool // inside a TransactWriteItems (committed or cancelled)
}

// writeKind is what a request does to one item.
type writeKind int

const (
	kindPut writeKind = iota
	kindUpdate
	kindDelete
	kindCheck // a transaction's ConditionCheck
)

// outcome is how a write request ended.
type outcome int

const (
	applied         outcome = iota
	conditionFailed         // a single write whose condition was false
	cancelled               // a transaction DynamoDB cancelled
)

// itemWrite is one item of a write request with its images.
type itemWrite struct {
	table  string
	key    map[string]types.AttributeValue
	kind   writeKind
	sent   map[string]types.AttributeValue // the item a put sends
	tx     bool
	before map[string]types.AttributeValue // nil: absent before the request
	after  map[string]types.AttributeValue // nil: absent after it
}

// units is one write of an item: one unit per started KB, at least one.
func units(item map[string]types.AttributeValue) float64 {
	return float64(max(1, (ItemSize(item)+1023)/1024))
}

// charges prices one item of a request that ended with o.
func (w itemWrite) charges(o outcome) []Charge {
	name := itemName(w.key)
	table := "table " + attrString(w.key["PK"])
	factor := 1.0
	if w.tx {
		factor = 2
	}
	entity := ""
	for _, img := range []map[string]types.AttributeValue{w.sent, w.after, w.before} {
		if et := attrString(img["et"]); entity == "" && et != "?" {
			entity = et
		}
	}
	one := func(partition string, u float64) Charge {
		return Charge{Partition: partition, Item: name, Entity: entity, Units: u, Tx: w.tx}
	}
	larger := max(units(w.before), units(w.sent))
	switch {
	case o == conditionFailed, o == cancelled:
		return []Charge{one(table, larger)}
	case w.kind == kindCheck:
		return []Charge{one(table, 2*units(w.before))}
	}
	if w.kind == kindPut {
		w.after = w.sent
	}
	out := []Charge{one(table, factor*max(units(w.before), units(w.after)))}
	if w.before != nil && w.after != nil && reflect.DeepEqual(w.before, w.after) {
		return out // nothing changed: no index entry to rewrite
	}
	for _, g := range gsiKeys {
		was, wasIn := w.before[g]
		is, isIn := w.after[g]
		index := "GSI" + g[3:4] + " "
		switch {
		case wasIn && isIn && attrString(was) == attrString(is):
			out = append(out, one(index+attrString(is), factor*max(units(w.before), units(w.after))))
		default:
			if wasIn {
				out = append(out, one(index+attrString(was), factor*units(w.before)))
			}
			if isIn {
				out = append(out, one(index+attrString(is), factor*units(w.after)))
			}
		}
	}
	return out
}

// writesOf lists the items a write request touches; nil for any other request.
func writesOf(params any) []itemWrite {
	var out []itemWrite
	add := func(table *string, key map[string]types.AttributeValue, kind writeKind, sent map[string]types.AttributeValue, tx bool) {
		if key == nil {
			key = tableKey(sent)
		}
		out = append(out, itemWrite{table: aws.ToString(table), key: key, kind: kind, sent: sent, tx: tx})
	}
	switch in := params.(type) {
	case *dynamodb.PutItemInput:
		add(in.TableName, nil, kindPut, in.Item, false)
	case *dynamodb.UpdateItemInput:
		add(in.TableName, in.Key, kindUpdate, nil, false)
	case *dynamodb.DeleteItemInput:
		add(in.TableName, in.Key, kindDelete, nil, false)
	case *dynamodb.BatchWriteItemInput:
		for _, table := range slices.Sorted(maps.Keys(in.RequestItems)) {
			for _, r := range in.RequestItems[table] {
				switch {
				case r.PutRequest != nil:
					add(&table, nil, kindPut, r.PutRequest.Item, false)
				case r.DeleteRequest != nil:
					add(&table, r.DeleteRequest.Key, kindDelete, nil, false)
				}
			}
		}
	case *dynamodb.TransactWriteItemsInput:
		for _, it := range in.TransactItems {
			switch {
			case it.Put != nil:
				add(it.Put.TableName, nil, kindPut, it.Put.Item, true)
			case it.Update != nil:
				add(it.Update.TableName, it.Update.Key, kindUpdate, nil, true)
			case it.Delete != nil:
				add(it.Delete.TableName, it.Delete.Key, kindDelete, nil, true)
			case it.ConditionCheck != nil:
				add(it.ConditionCheck.TableName, it.ConditionCheck.Key, kindCheck, nil, true)
			}
		}
	}
	return out
}

// unprocessed are the items a BatchWriteItem left for a retry (not written, not billed).
func unprocessed(result any) map[string]bool {
	out := map[string]bool{}
	if r, ok := result.(*dynamodb.BatchWriteItemOutput); ok {
		for _, reqs := range r.UnprocessedItems {
			for _, req := range reqs {
				switch {
				case req.PutRequest != nil:
					out[itemName(req.PutRequest.Item)] = true
				case req.DeleteRequest != nil:
					out[itemName(req.DeleteRequest.Key)] = true
				}
			}
		}
	}
	return out
}

// billedOutcome tells how a request that returned err is billed; false: not at all
// (throttled, rejected before it ran, a network error).
func billedOutcome(err error) (outcome, bool) {
	var failed *types.ConditionalCheckFailedException
	var canceled *types.TransactionCanceledException
	switch {
	case err == nil:
		return applied, true
	case errors.As(err, &failed):
		return conditionFailed, true
	case errors.As(err, &canceled):
		return cancelled, true
	}
	return 0, false
}

// imager reads the items a write touches, before and after it, with a client that
// no recorder is attached to (consistent reads, so a write just made is seen).
type imager struct {
	once sync.Once
	cfg  aws.Config
	db   *dynamodb.Client
}

func newImager(cfg aws.Config) *imager {
	c := cfg.Copy()
	c.APIOptions = nil // none of the recorders or fault injectors attached so far
	return &imager{cfg: c}
}

func (im *imager) client() *dynamodb.Client {
	im.once.Do(func() {
		im.db = dynamodb.NewFromConfig(im.cfg, func(o *dynamodb.Options) { o.DisableValidateResponseChecksum = true })
	})
	return im.db
}

// read returns the current items of the writes' keys (want picks which), by name.
func (im *imager) read(ctx context.Context, ws []itemWrite, want func(itemWrite) bool) (map[string]map[string]types.AttributeValue, error) {
	out := map[string]map[string]types.AttributeValue{}
	byTable := map[string][]map[string]types.AttributeValue{}
	seen := map[string]bool{}
	for _, w := range ws {
		name := w.table + "/" + itemName(w.key)
		if !want(w) || seen[name] {
			continue
		}
		seen[name] = true
		byTable[w.table] = append(byTable[w.table], w.key)
	}
	for table, keyList := range byTable {
		for i := 0; i < len(keyList); i += 100 {
			req := map[string]types.KeysAndAttributes{table: {Keys: keyList[i:min(i+100, len(keyList))], ConsistentRead: aws.Bool(true)}}
			for len(req) > 0 {
				res, err := im.client().BatchGetItem(context.WithoutCancel(ctx), &dynamodb.BatchGetItemInput{RequestItems: req})
				if err != nil {
					return nil, err
				}
				for _, item := range res.Responses[table] {
					out[itemName(item)] = item
				}
				req = res.UnprocessedKeys
			}
		}
	}
	return out, nil
}

// observeWrites adds to every DynamoDB client built from cfg afterwards a middleware
// that prices each write request and hands its charges to sink.
func observeWrites(cfg *aws.Config, name string, sink func([]Charge)) {
	im := newImager(*cfg)
	attach(cfg, name, func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
		middleware.InitializeOutput, middleware.Metadata, error) {
		ws := writesOf(in.Parameters)
		if len(ws) == 0 {
			return next.HandleInitialize(ctx, in)
		}
		before, imgErr := im.read(ctx, ws, func(w itemWrite) bool { return true })
		out, md, err := next.HandleInitialize(ctx, in)
		o, billed := billedOutcome(err)
		if !billed || imgErr != nil {
			return out, md, err
		}
		var after map[string]map[string]types.AttributeValue
		if o == applied {
			if after, imgErr = im.read(ctx, ws, func(w itemWrite) bool { return w.kind == kindUpdate }); imgErr != nil {
				return out, md, err
			}
		}
		skip := unprocessed(out.Result)
		var charges []Charge
		for _, w := range ws {
			n := itemName(w.key)
			if skip[n] {
				continue
			}
			w.before, w.after = before[n], after[n]
			charges = append(charges, w.charges(o)...)
		}
		sink(charges)
		return out, md, err
	})
}
