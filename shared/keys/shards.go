package keys

import (
	"hash/fnv"
	"strconv"
)

// Write shards. DynamoDB gives one partition key value, of the table and of each
// index, at most 1,000 write units per second. Whatever every customer of an account
// writes to the same key value (its external-id reservation, its place in the
// account-wide listings, its share of the account series) is therefore spread over
// several key values, the shards of that collection; a reader of the whole collection
// reads every shard. Shard 0 is the collection's unsharded key, so items written
// before a collection was sharded stay where shard 0's readers find them.
// docs/data-model.md, "Write shards", lists the collections and their counts.

// ReservationShards is how many partitions hold a data source's customer external-id
// reservations and subscription-event external-id claims.
const ReservationShards = 16

// ImportShards is how many partitions hold the customer status items of one import.
const ImportShards = 4

// ListingShards is how many index partitions hold each account-wide listing written
// once per customer or record: the customers, the activities (all and per type) and
// the subscription events. A page of such a listing reads every shard.
const ListingShards = 4

// shardKey is the key value of one shard of a collection whose unsharded key is base.
func shardKey(base string, shard int) string {
	if shard == 0 {
		return base
	}
	return base + sep + "S" + strconv.Itoa(shard)
}

// shardKeys is every shard's key value of a collection of n shards.
func shardKeys(base string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = shardKey(base, i)
	}
	return out
}

// hashShard spreads string identifiers (external ids, uuids) over n shards.
func hashShard(id string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32() % uint32(n))
}

// idShard spreads integer ids over n shards: ids are drawn in sequence, so
// consecutive ones fill the shards in turn, evenly by construction.
func idShard(id int64, n int) int {
	if id < 0 {
		id = -id
	}
	return int(id % int64(n))
}
