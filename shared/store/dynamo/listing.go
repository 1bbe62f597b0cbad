package dynamo

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

// listQuery is one listing: a Query (partition, index, order, filter) and the
// attributes that identify an item in what it reads (the table key, plus the index
// key when it reads an index), which is what ExclusiveStartKey needs. The key
// condition names the partition ":pk"; keyNames[2], when there is one, is the index's
// partition attribute.
type listQuery struct {
	in       dynamodb.QueryInput
	keyNames []string
	// maxRequests bounds the Queries of one page; 0 reads until the page is full.
	maxRequests int
}

// partitionAttr is the attribute that holds the partition q reads.
func (q listQuery) partitionAttr() string {
	if len(q.keyNames) > 2 {
		return q.keyNames[2]
	}
	return keys.PK
}

// partition is the partition key value q reads.
func (q listQuery) partition() string {
	sv, _ := q.in.ExpressionAttributeValues[":pk"].(*types.AttributeValueMemberS)
	if sv == nil {
		return ""
	}
	return sv.Value
}

// indexListing lists one partition of GSI1 or GSI2.
func indexListing(index, pk string, forward bool) listQuery {
	pkAttr, skAttr := keys.GSI1PK, keys.GSI1SK
	if index == keys.GSI2 {
		pkAttr, skAttr = keys.GSI2PK, keys.GSI2SK
	}
	return listQuery{
		in: dynamodb.QueryInput{IndexName: aws.String(index), KeyConditionExpression: aws.String(pkAttr + " = :pk"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": sAttr(pk)}, ScanIndexForward: aws.Bool(forward)},
		keyNames: []string{keys.PK, keys.SK, pkAttr, skAttr},
	}
}

// prefixListing lists the items of a table partition whose sort key starts with
// prefix, with consistent reads.
func prefixListing(pk, prefix string) listQuery {
	return listQuery{
		in: dynamodb.QueryInput{KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :prefix)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": sAttr(pk), ":prefix": sAttr(prefix)},
			ConsistentRead:            aws.Bool(true)},
		keyNames: []string{keys.PK, keys.SK},
	}
}

// where adds a filter condition (ANDed with the others) with the attribute names and
// values it uses.
func (q *listQuery) where(cond string, names map[string]string, values map[string]types.AttributeValue) {
	if q.in.FilterExpression == nil {
		q.in.FilterExpression = aws.String(cond)
	} else {
		q.in.FilterExpression = aws.String(*q.in.FilterExpression + " AND " + cond)
	}
	if len(names) > 0 && q.in.ExpressionAttributeNames == nil {
		q.in.ExpressionAttributeNames = map[string]string{}
	}
	for k, v := range names {
		q.in.ExpressionAttributeNames[k] = v
	}
	for k, v := range values {
		q.in.ExpressionAttributeValues[k] = v
	}
}

// maxEvaluated caps how many items one follow-up query of a filtered listing reads.
const maxEvaluated = 1000

// queryPage reads up to limit items of q after start, those keep accepts (nil: all).
// Without a filter it is one Query with Limit limit+1: the extra item only tells
// whether more exist. A FilterExpression or keep makes DynamoDB's Limit count items
// before the filter, so it reads on, a larger slice each time (up to maxEvaluated),
// until the page is full, the query is exhausted or q.maxRequests is reached.
// lastKey is the key of the last item returned, never a LastEvaluatedKey beyond it, so
// no match is skipped; only a page cut short by maxRequests ends at the
// LastEvaluatedKey, as nothing before it is left unread.
func (s *Store) queryPage(ctx context.Context, q listQuery, limit int, start map[string]types.AttributeValue,
	keep func(map[string]types.AttributeValue) (bool, error)) (rawPage, error) {
	limit = max(limit, 1) // a page holds at least one item
	in := q.in
	in.TableName, in.ExclusiveStartKey = &s.table, start
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	filtered := in.FilterExpression != nil || keep != nil
	evaluate := limit + 1
	var got []map[string]types.AttributeValue
	for requests := 1; ; requests++ {
		in.Limit = aws.Int32(int32(limit + 1 - len(got)))
		if filtered {
			in.Limit = aws.Int32(int32(evaluate))
		}
		out, err := s.db.Query(ctx, &in)
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
				return rawPage{items: got, lastKey: pickKey(got[limit-1], q.keyNames), hasMore: true}, nil
			}
			got = append(got, item)
		}
		if len(out.LastEvaluatedKey) == 0 {
			p := rawPage{items: got}
			if len(got) > 0 {
				p.lastKey = pickKey(got[len(got)-1], q.keyNames)
			}
			return p, nil
		}
		if q.maxRequests > 0 && requests >= q.maxRequests {
			return rawPage{items: got, lastKey: pickKey(out.LastEvaluatedKey, q.keyNames), hasMore: true}, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
		// A selective filter would otherwise cost one small query per few matches.
		evaluate = min(evaluate*4, maxEvaluated)
	}
}

// listPage is queryPage from a token, with the items decoded (I, the stored struct)
// and converted (T); keep, when not nil, filters the converted items.
func listPage[I, T any](ctx context.Context, s *Store, q listQuery, limit int, start store.PageToken,
	convert func(I) T, keep func(T) bool) (store.Page[T], error) {
	startKey, err := q.startKey(start)
	if err != nil {
		return store.Page[T]{}, err
	}
	test, kept := decodedFilter(convert, keep)
	raw, err := s.queryPage(ctx, q, limit, startKey, test)
	if err != nil {
		return store.Page[T]{}, err
	}
	next, err := tokenOf(raw.lastKey)
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

// countMatching counts the items of q that keep accepts (nil: every item, counted by
// DynamoDB with Select COUNT), reading at most maxRequests responses (0: all);
// complete is false when it stopped before the end.
func countMatching[I, T any](ctx context.Context, s *Store, q listQuery, maxRequests int, convert func(I) T,
	keep func(T) bool) (n int, complete bool, err error) {
	in := q.in
	in.TableName = &s.table
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	if keep == nil {
		in.Select = types.SelectCount
	}
	for requests := 1; ; requests++ {
		out, err := s.db.Query(ctx, &in)
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

func sAttr(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// shardedListing is one listing of a collection spread over several index partitions
// (the write shards of package keys) that order it by the same sort key, unique
// within the collection. A page reads every shard after the position's sort key and
// merges what they return in sort-key order, so the listing is what one partition
// would give.
type shardedListing struct {
	pks []string
	// query is the Query of partition pk after the sort key after ("": from the start).
	query      func(pk, after string) listQuery
	skAttr     string
	descending bool
	// maxRequests bounds each shard's Queries of one page; 0 reads until it is full.
	maxRequests int
}

// shardedIndex lists the partitions pks of GSI1 or GSI2 as one collection; each Query
// is adjust(indexListing(...)) (nil: as is), with the position as a key condition.
func shardedIndex(index string, pks []string, forward bool, adjust func(*listQuery)) shardedListing {
	skAttr := keys.GSI1SK
	if index == keys.GSI2 {
		skAttr = keys.GSI2SK
	}
	return shardedListing{pks: pks, skAttr: skAttr, descending: !forward,
		query: func(pk, after string) listQuery {
			q := indexListing(index, pk, forward)
			if after != "" {
				op := " > "
				if !forward {
					op = " < "
				}
				q.in.KeyConditionExpression = aws.String(*q.in.KeyConditionExpression + " AND " + skAttr + op + ":after")
				q.in.ExpressionAttributeValues[":after"] = sAttr(after)
			}
			if adjust != nil {
				adjust(&q)
			}
			return q
		}}
}

// position is the sort key a token of l continues after ("" for the first page).
func (l shardedListing) position(t store.PageToken) (string, error) {
	if t == nil {
		return "", nil
	}
	after, ok := t[l.skAttr]
	if len(t) != 1 || !ok || after == "" {
		return "", store.ErrInvalidToken
	}
	return after, nil
}

// precedes reports whether sort key a comes before b in the listing's order.
func (l shardedListing) precedes(a, b string) bool {
	if l.descending {
		return a > b
	}
	return a < b
}

// shardedEntry is one item of a shard's page: its sort key and the item converted.
type shardedEntry[T any] struct {
	sk   string
	item T
}

// shardedPage is listPage over every shard of l. A shard that has more than it returned
// has been read up to its frontier (its last item returned, or where its Query
// stopped); only items up to the nearest frontier are known to be in order. A large
// unfiltered page reads each shard for its share of the page first (the page's size
// over the shards, and a few more: write shards spread a collection evenly, so the
// shards' reads together come to about one page), then, while the items up to the
// nearest frontier do not fill the page, the shards at that frontier further. Any
// other page reads the page's size from every shard, once, and stops at the nearest
// frontier. The token is the sort key of the page's end.
func shardedPage[I, T any](ctx context.Context, s *Store, l shardedListing, limit int, start store.PageToken,
	convert func(I) T, keep func(T) bool) (store.Page[T], error) {
	after, err := l.position(start)
	if err != nil {
		return store.Page[T]{}, err
	}
	limit = max(limit, 1)
	shards := make([]shardRead[T], len(l.pks))
	read := func(which []int, size int) error {
		parallel.For(len(which), len(which), func(k int) {
			sh := &shards[which[k]]
			pos := after
			if sh.read {
				pos = sh.frontier
			}
			q := l.query(l.pks[which[k]], pos)
			q.maxRequests = l.maxRequests
			entries, frontier, more, err := readShard(ctx, s, l, q, size, convert, keep)
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
	if len(shards) > 1 && keep == nil && l.maxRequests == 0 && l.query(l.pks[0], after).in.FilterExpression == nil &&
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
		if l.descending {
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
		out.Next = store.PageToken{l.skAttr: entries[limit-1].sk}
	case bounded:
		out.Next = store.PageToken{l.skAttr: bound} // every shard was read up to here
	case len(entries) > 0:
		out.Next = store.PageToken{l.skAttr: entries[len(entries)-1].sk}
	}
	return out, nil
}

// shardRead is what a shardedPage has read of one shard.
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

// readShard is one shard's part of a shardedPage: its items (converted, those keep
// accepts) with their sort keys, and, when it has more, how far it was read.
func readShard[I, T any](ctx context.Context, s *Store, l shardedListing, q listQuery, limit int,
	convert func(I) T, keep func(T) bool) (entries []shardedEntry[T], frontier string, more bool, err error) {
	test, kept := decodedFilter(convert, keep)
	raw, err := s.queryPage(ctx, q, limit, nil, test)
	if err != nil {
		return nil, "", false, err
	}
	entries = make([]shardedEntry[T], len(raw.items))
	for i, item := range raw.items {
		entries[i].sk = stringAttr(item, l.skAttr)
		if keep != nil {
			entries[i].item = (*kept)[i]
		} else if entries[i].item, err = decodeItem(item, convert); err != nil {
			return nil, "", false, err
		}
	}
	if raw.hasMore {
		frontier = stringAttr(raw.lastKey, l.skAttr)
	}
	return entries, frontier, raw.hasMore, nil
}

// countSharded is countMatching over every shard of l (from the start), each read for
// at most maxRequests responses; complete is false when any shard stopped early.
func countSharded[I, T any](ctx context.Context, s *Store, l shardedListing, maxRequests int, convert func(I) T,
	keep func(T) bool) (n int, complete bool, err error) {
	complete = true
	for _, pk := range l.pks {
		k, done, err := countMatching(ctx, s, l.query(pk, ""), maxRequests, convert, keep)
		if err != nil {
			return 0, false, err
		}
		n += k
		complete = complete && done
	}
	return n, complete, nil
}

// stringAttr is a string attribute of an item ("" when absent or not a string).
func stringAttr(item map[string]types.AttributeValue, name string) string {
	if sv, ok := item[name].(*types.AttributeValueMemberS); ok {
		return sv.Value
	}
	return ""
}
