package table

import (
	"context"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/parallel"
	"github.com/subsight/subsight/shared/store"
)

// rawPage is one page of items in the table's own encoding; lastKey is where it ends.
type rawPage struct {
	items   []map[string]types.AttributeValue
	lastKey map[string]types.AttributeValue
	hasMore bool
}

// ListQuery is one listing: a Query (partition, index, order, filter) and the
// attributes that identify an item in what it reads (the table key, plus the index
// key when it reads an index), which is what ExclusiveStartKey needs. The key
// condition names the partition ":pk"; KeyNames[2], when there is one, is the index's
// partition attribute.
type ListQuery struct {
	In       dynamodb.QueryInput
	KeyNames []string
	// MaxRequests bounds the Queries of one page; 0 reads until the page is full.
	MaxRequests int
}

// partitionAttr is the attribute that holds the partition q reads.
func (q ListQuery) partitionAttr() string {
	if len(q.KeyNames) > 2 {
		return q.KeyNames[2]
	}
	return keys.PK
}

// partition is the partition key value q reads.
func (q ListQuery) partition() string {
	sv, _ := q.In.ExpressionAttributeValues[":pk"].(*types.AttributeValueMemberS)
	if sv == nil {
		return ""
	}
	return sv.Value
}

// IndexListing lists one partition of GSI1 or GSI2.
func IndexListing(index, pk string, forward bool) ListQuery {
	pkAttr, skAttr := keys.GSI1PK, keys.GSI1SK
	if index == keys.GSI2 {
		pkAttr, skAttr = keys.GSI2PK, keys.GSI2SK
	}
	return ListQuery{
		In: dynamodb.QueryInput{IndexName: aws.String(index), KeyConditionExpression: aws.String(pkAttr + " = :pk"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": SAttr(pk)}, ScanIndexForward: aws.Bool(forward)},
		KeyNames: []string{keys.PK, keys.SK, pkAttr, skAttr},
	}
}

// PrefixListing lists the items of a table partition whose sort key starts with
// prefix, with consistent reads.
func PrefixListing(pk, prefix string) ListQuery {
	return ListQuery{
		In: dynamodb.QueryInput{KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :prefix)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": SAttr(pk), ":prefix": SAttr(prefix)},
			ConsistentRead:            aws.Bool(true)},
		KeyNames: []string{keys.PK, keys.SK},
	}
}

// where adds a filter condition (ANDed with the others) with the attribute names and
// values it uses.
func (q *ListQuery) Where(cond string, names map[string]string, values map[string]types.AttributeValue) {
	if q.In.FilterExpression == nil {
		q.In.FilterExpression = aws.String(cond)
	} else {
		q.In.FilterExpression = aws.String(*q.In.FilterExpression + " AND " + cond)
	}
	if len(names) > 0 && q.In.ExpressionAttributeNames == nil {
		q.In.ExpressionAttributeNames = map[string]string{}
	}
	for k, v := range names {
		q.In.ExpressionAttributeNames[k] = v
	}
	for k, v := range values {
		q.In.ExpressionAttributeValues[k] = v
	}
}

// WhereEqual adds attr = value to q (nothing for an empty value).
func (q *ListQuery) WhereEqual(attr, value string) {
	if value == "" {
		return
	}
	q.Where("#"+attr+" = :"+attr, map[string]string{"#" + attr: attr}, map[string]types.AttributeValue{":" + attr: SAttr(value)})
}

// WhereBetween bounds a string attribute (ISO dates and timestamps sort as text); an
// empty bound does not filter.
func (q *ListQuery) WhereBetween(attr, from, to string) {
	names := map[string]string{"#" + attr: attr}
	if from != "" {
		q.Where("#"+attr+" >= :"+attr+"_from", names, map[string]types.AttributeValue{":" + attr + "_from": SAttr(from)})
	}
	if to != "" {
		q.Where("#"+attr+" <= :"+attr+"_to", names, map[string]types.AttributeValue{":" + attr + "_to": SAttr(to)})
	}
}

// maxEvaluated caps how many items one follow-up query of a filtered listing reads.
const maxEvaluated = 1000

// queryPage reads up to limit items of q after start, those keep accepts (nil: all).
// Without a filter it is one Query with Limit limit+1: the extra item only tells
// whether more exist. A FilterExpression or keep makes DynamoDB's Limit count items
// before the filter, so it reads on, a larger slice each time (up to maxEvaluated),
// until the page is full, the query is exhausted or q.MaxRequests is reached.
// lastKey is the key of the last item returned, never a LastEvaluatedKey beyond it, so
// no match is skipped; only a page cut short by MaxRequests ends at the
// LastEvaluatedKey, as nothing before it is left unread.
func (t *Table) queryPage(ctx context.Context, q ListQuery, limit int, start map[string]types.AttributeValue,
	keep func(map[string]types.AttributeValue) (bool, error)) (rawPage, error) {
	limit = max(limit, 1) // a page holds at least one item
	in := q.In
	in.ExclusiveStartKey = start
	filtered := in.FilterExpression != nil || keep != nil
	evaluate := limit + 1
	var got []map[string]types.AttributeValue
	for requests := 1; ; requests++ {
		in.Limit = aws.Int32(int32(limit + 1 - len(got)))
		if filtered {
			in.Limit = aws.Int32(int32(evaluate))
		}
		out, err := t.Query(ctx, &in)
		if err != nil {
			return rawPage{}, err
		}
		for _, item := range out.Items {
			if keep != nil {
				ok, err := keep(item)
				if err != nil {
					return rawPage{}, err
				}
				if !ok {
					continue
				}
			}
			if len(got) == limit {
				return rawPage{items: got, lastKey: pickKey(got[limit-1], q.KeyNames), hasMore: true}, nil
			}
			got = append(got, item)
		}
		if len(out.LastEvaluatedKey) == 0 {
			p := rawPage{items: got}
			if len(got) > 0 {
				p.lastKey = pickKey(got[len(got)-1], q.KeyNames)
			}
			return p, nil
		}
		if q.MaxRequests > 0 && requests >= q.MaxRequests {
			return rawPage{items: got, lastKey: pickKey(out.LastEvaluatedKey, q.KeyNames), hasMore: true}, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
		// A selective filter would otherwise cost one small query per few matches.
		evaluate = min(evaluate*4, maxEvaluated)
	}
}

// ListPage is queryPage from a token, with the items decoded (I, the stored struct)
// and converted (T); keep, when not nil, filters the converted items.
func ListPage[I, T any](ctx context.Context, t *Table, q ListQuery, limit int, start store.PageToken,
	convert func(I) T, keep func(T) bool) (store.Page[T], error) {
	startKey, err := q.startKey(start)
	if err != nil {
		return store.Page[T]{}, err
	}
	test, kept := decodedFilter(convert, keep)
	raw, err := t.queryPage(ctx, q, limit, startKey, test)
	if err != nil {
		return store.Page[T]{}, err
	}
	next, err := TokenOf(raw.lastKey)
	if err != nil {
		return store.Page[T]{}, err
	}
	out := store.Page[T]{Next: next, HasMore: raw.hasMore}
	if keep != nil {
		out.Items = (*kept)[:len(raw.items)]
		return out, nil
	}
	out.Items = make([]T, len(raw.items))
	for i, item := range raw.items {
		if out.Items[i], err = decodeItem(item, convert); err != nil {
			return store.Page[T]{}, err
		}
	}
	return out, nil
}

// decodedFilter is queryPage's keep for a filter on converted items (nil when keep
// is): it decodes each item once and appends those keep accepts to kept, which may
// run one past the items queryPage returns.
func decodedFilter[I, T any](convert func(I) T, keep func(T) bool) (test func(map[string]types.AttributeValue) (bool, error), kept *[]T) {
	kept = new([]T)
	if keep == nil {
		return nil, kept
	}
	return func(item map[string]types.AttributeValue) (bool, error) {
		t, err := decodeItem(item, convert)
		if err != nil || !keep(t) {
			return false, err
		}
		*kept = append(*kept, t)
		return true, nil
	}, kept
}

func decodeItem[I, T any](item map[string]types.AttributeValue, convert func(I) T) (T, error) {
	var it I
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		var zero T
		return zero, err
	}
	return convert(it), nil
}

// CountMatching counts the items of q that keep accepts (nil: every item, counted by
// DynamoDB with Select COUNT), reading at most maxRequests responses (0: all);
// complete is false when it stopped before the end.
func CountMatching[I, T any](ctx context.Context, t *Table, q ListQuery, maxRequests int, convert func(I) T,
	keep func(T) bool) (n int, complete bool, err error) {
	in := q.In
	if keep == nil {
		in.Select = types.SelectCount
	}
	for requests := 1; ; requests++ {
		out, err := t.Query(ctx, &in)
		if err != nil {
			return 0, false, err
		}
		if keep == nil {
			n += int(out.Count)
		}
		for _, item := range out.Items {
			t, err := decodeItem(item, convert)
			if err != nil {
				return 0, false, err
			}
			if keep(t) {
				n++
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return n, true, nil
		}
		if maxRequests > 0 && requests >= maxRequests {
			return n, false, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func pickKey(item map[string]types.AttributeValue, names []string) map[string]types.AttributeValue {
	k := make(map[string]types.AttributeValue, len(names))
	for _, n := range names {
		k[n] = item[n]
	}
	return k
}

// ShardedListing is one listing of a collection spread over several index partitions
// (the write shards of package keys) that order it by the same sort key, unique
// within the collection. A page reads every shard after the position's sort key and
// merges what they return in sort-key order, so the listing is what one partition
// would give.
type ShardedListing struct {
	PKs []string
	// query is the Query of partition pk after the sort key after ("": from the start).
	Query      func(pk, after string) ListQuery
	SKAttr     string
	Descending bool
	// MaxRequests bounds each shard's Queries of one page; 0 reads until it is full.
	MaxRequests int
}

// ShardedIndex lists the partitions pks of GSI1 or GSI2 as one collection; each Query
// is adjust(IndexListing(...)) (nil: as is), with the position as a key condition.
func ShardedIndex(index string, pks []string, forward bool, adjust func(*ListQuery)) ShardedListing {
	skAttr := keys.GSI1SK
	if index == keys.GSI2 {
		skAttr = keys.GSI2SK
	}
	return ShardedListing{PKs: pks, SKAttr: skAttr, Descending: !forward,
		Query: func(pk, after string) ListQuery {
			q := IndexListing(index, pk, forward)
			if after != "" {
				op := " > "
				if !forward {
					op = " < "
				}
				q.In.KeyConditionExpression = aws.String(*q.In.KeyConditionExpression + " AND " + skAttr + op + ":after")
				q.In.ExpressionAttributeValues[":after"] = SAttr(after)
			}
			if adjust != nil {
				adjust(&q)
			}
			return q
		}}
}

// position is the sort key a token of l continues after ("" for the first page).
func (l ShardedListing) position(t store.PageToken) (string, error) {
	if t == nil {
		return "", nil
	}
	after, ok := t[l.SKAttr]
	if len(t) != 1 || !ok || after == "" {
		return "", store.ErrInvalidToken
	}
	return after, nil
}

// precedes reports whether sort key a comes before b in the listing's order.
func (l ShardedListing) precedes(a, b string) bool {
	if l.Descending {
		return a > b
	}
	return a < b
}

// shardedEntry is one item of a shard's page: its sort key and the item converted.
type shardedEntry[T any] struct {
	sk   string
	item T
}

// ShardedPage is ListPage over every shard of l. A shard that has more than it returned
// has been read up to its frontier (its last item returned, or where its Query
// stopped); only items up to the nearest frontier are known to be in order. A large
// unfiltered page reads each shard for its share of the page first (the page's size
// over the shards, and a few more: write shards spread a collection evenly, so the
// shards' reads together come to about one page), then, while the items up to the
// nearest frontier do not fill the page, the shards at that frontier further. Any
// other page reads the page's size from every shard, once, and stops at the nearest
// frontier. The token is the sort key of the page's end.
func ShardedPage[I, T any](ctx context.Context, t *Table, l ShardedListing, limit int, start store.PageToken,
	convert func(I) T, keep func(T) bool) (store.Page[T], error) {
	after, err := l.position(start)
	if err != nil {
		return store.Page[T]{}, err
	}
	limit = max(limit, 1)
	shards := make([]shardRead[T], len(l.PKs))
	read := func(which []int, size int) error {
		parallel.For(len(which), len(which), func(k int) {
			sh := &shards[which[k]]
			pos := after
			if sh.read {
				pos = sh.frontier
			}
			q := l.Query(l.PKs[which[k]], pos)
			q.MaxRequests = l.MaxRequests
			entries, frontier, more, err := readShard(ctx, t, l, q, size, convert, keep)
			sh.entries, sh.frontier, sh.more, sh.err, sh.read = append(sh.entries, entries...), frontier, more, err, true
		})
		for _, i := range which {
			if shards[i].err != nil {
				return shards[i].err
			}
		}
		return nil
	}
	all := make([]int, len(shards))
	for i := range all {
		all[i] = i
	}
	// Large unfiltered pages read shares; a small page or a filtered or bounded listing
	// reads the whole page from each shard once, as before: a page that stops at a
	// shard's frontier comes back short, with has_more.
	first, shares := limit, false
	if len(shards) > 1 && keep == nil && l.MaxRequests == 0 && l.Query(l.PKs[0], after).In.FilterExpression == nil &&
		limit >= minSharedPage*len(shards) {
		first, shares = shareOf(limit+1, len(shards)), true
	}
	if err := read(all, first); err != nil {
		return store.Page[T]{}, err
	}
	var entries []shardedEntry[T]
	var bound string
	var bounded bool
	for {
		bound, bounded = "", false
		for _, sh := range shards {
			if sh.more && (!bounded || l.precedes(sh.frontier, bound)) {
				bound, bounded = sh.frontier, true
			}
		}
		entries = entries[:0]
		for _, sh := range shards {
			for _, e := range sh.entries {
				if !bounded || !l.precedes(bound, e.sk) {
					entries = append(entries, e)
				}
			}
		}
		if !shares || !bounded || len(entries) >= limit {
			break
		}
		var behind []int
		for i, sh := range shards {
			if sh.more && sh.frontier == bound {
				behind = append(behind, i)
			}
		}
		if err := read(behind, shareOf(limit-len(entries), len(behind))); err != nil {
			return store.Page[T]{}, err
		}
	}
	slices.SortFunc(entries, func(a, b shardedEntry[T]) int {
		if l.Descending {
			return strings.Compare(b.sk, a.sk)
		}
		return strings.Compare(a.sk, b.sk)
	})
	out := store.Page[T]{HasMore: bounded || len(entries) > limit, Items: make([]T, 0, min(limit, len(entries)))}
	for _, e := range entries[:min(limit, len(entries))] {
		out.Items = append(out.Items, e.item)
	}
	switch {
	case len(entries) >= limit:
		out.Next = store.PageToken{l.SKAttr: entries[limit-1].sk}
	case bounded:
		out.Next = store.PageToken{l.SKAttr: bound} // every shard was read up to here
	case len(entries) > 0:
		out.Next = store.PageToken{l.SKAttr: entries[len(entries)-1].sk}
	}
	return out, nil
}

// shardRead is what a ShardedPage has read of one shard.
type shardRead[T any] struct {
	entries  []shardedEntry[T]
	frontier string
	more     bool
	read     bool
	err      error
}

// minSharedPage is the share of each shard from which a page is read in shares.
const minSharedPage = 16

// shareOf is how many items each of n shards is asked for when together they must
// give want: an even share and a little more, for a spread that is not quite even
// (write shards by integer id interleave exactly until customers are deleted).
func shareOf(want, n int) int {
	even := (want + n - 1) / n
	return even + 1 + even/32
}

// readShard is one shard's part of a ShardedPage: its items (converted, those keep
// accepts) with their sort keys, and, when it has more, how far it was read.
func readShard[I, T any](ctx context.Context, t *Table, l ShardedListing, q ListQuery, limit int,
	convert func(I) T, keep func(T) bool) (entries []shardedEntry[T], frontier string, more bool, err error) {
	test, kept := decodedFilter(convert, keep)
	raw, err := t.queryPage(ctx, q, limit, nil, test)
	if err != nil {
		return nil, "", false, err
	}
	entries = make([]shardedEntry[T], len(raw.items))
	for i, item := range raw.items {
		entries[i].sk = StringAttr(item, l.SKAttr)
		if keep != nil {
			entries[i].item = (*kept)[i]
		} else if entries[i].item, err = decodeItem(item, convert); err != nil {
			return nil, "", false, err
		}
	}
	if raw.hasMore {
		frontier = StringAttr(raw.lastKey, l.SKAttr)
	}
	return entries, frontier, raw.hasMore, nil
}

// CountSharded is CountMatching over every shard of l (from the start), each read for
// at most maxRequests responses; complete is false when any shard stopped early.
func CountSharded[I, T any](ctx context.Context, t *Table, l ShardedListing, maxRequests int, convert func(I) T,
	keep func(T) bool) (n int, complete bool, err error) {
	complete = true
	for _, pk := range l.PKs {
		k, done, err := CountMatching(ctx, t, l.Query(pk, ""), maxRequests, convert, keep)
		if err != nil {
			return 0, false, err
		}
		n += k
		complete = complete && done
	}
	return n, complete, nil
}
