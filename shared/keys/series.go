package keys

// Account-level metric series and the account activity log. See docs/metrics-api.md.

// Entity types of the series and activity items.
const (
	TypeSeriesMonth   = "series_month"   // one calendar month of one segment: per-day sums
	TypeSeriesYear    = "series_year"    // one year of one segment: per-month net changes
	TypeSeriesIndex   = "series_index"   // one segment: per-year net changes
	TypeSeriesApplied = "series_applied" // what one customer has added to the series
	TypeSeriesCombo   = "series_combo"   // registry entry of one plan-combination segment
	TypeActivity      = "activity"
)

// SeriesPartition holds every bucket of one segment ("all", "geo:US", "plan:pl_…",
// "geo:US:plan:pl_…", "plans:pl_…+pl_…", "geo:US:plans:pl_…+pl_…"): SeriesIndexSK,
// SeriesYearSK(y) and SeriesMonthSK(y, m) items.
func SeriesPartition(accountID, segment string) string {
	return Partition(accountID, "SERIES", segment)
}

// SeriesShards is how many partitions hold one segment's buckets. Shard 0 is the read
// copy, which metrics requests read alone; the recomputations of imports add to the
// bulk shards 1 … SeriesShards−1, one per batch, and a fold moves what those hold into
// the copy soon after. One item takes a few dozen transactions per second, so a single
// partition per segment would cap an account at about 40 batches recomputed per second
// (docs/benchmarks.md, "One account at scale").
const SeriesShards = 32

// SeriesShardPartition is the partition of one shard of a segment; shard 0 is
// SeriesPartition itself.
func SeriesShardPartition(accountID, segment string, shard int) string {
	return shardKey(SeriesPartition(accountID, segment), shard)
}

// BulkSeriesShard is the bulk shard the n-th batch of recomputations adds to: the bulk
// shards 1 … SeriesShards−1 in turn. Any of them is correct; the choice only spreads the
// writes.
func BulkSeriesShard(n int) int { return 1 + idShard(int64(n), SeriesShards-1) }

// SeriesWritesAttr counts, on a bulk shard's bucket item, the writes that added to it:
// a fold deletes the item only if that count is still the one it read.
const SeriesWritesAttr = "w"

// SeriesIndexSK is the item with the segment's net change per year.
const SeriesIndexSK = "I"

// SeriesMonthPrefix starts every month item's sort key; "M#2024-01" sorts by date.
const SeriesMonthPrefix = "M" + sep

// SeriesMonthSK is the sort key of a month item; yearMonth is "2006-01".
func SeriesMonthSK(yearMonth string) string { return SeriesMonthPrefix + yearMonth }

// SeriesYearSK is the sort key of a year item; year is "2006".
func SeriesYearSK(year string) string { return "Y" + sep + year }

// SeriesComboPrefix starts the sort keys of the plan-combination registry, kept in the
// "all" segment's partition (outside the month items' key range).
const SeriesComboPrefix = "P" + sep

// SeriesComboSK is the registry entry of the combination segment of some plans (plan
// uuids joined by "+", sorted).
func SeriesComboSK(plans string) string { return SeriesComboPrefix + plans }

// SeriesApplied is the item recording one customer's applied contribution (its own
// partition, so deleting the customer's partition never loses it).
func SeriesApplied(accountID, customerUUID string) Key {
	return Key{PK: Partition(accountID, "SERIESCUS", customerUUID), SK: "APPLIED"}
}

// ActivityPartition holds one customer's activities (movements).
func ActivityPartition(accountID, customerUUID string) string {
	return Partition(accountID, "ACT", customerUUID)
}

// ActivityPrefix starts every activity's sort key.
const ActivityPrefix = "ACT" + sep

// Activity is one activity item; order is ActivityOrder(...).
func Activity(accountID, customerUUID, order string) Key {
	return Key{PK: ActivityPartition(accountID, customerUUID), SK: ActivityPrefix + order}
}

// ActivityOrder sorts activities by time, then id; at must be a fixed-width UTC
// timestamp so that string order is time order.
func ActivityOrder(at, activityUUID string) string { return at + sep + activityUUID }

// ActivitiesByAccount is the GSI1 partition, among ListingShards, that lists an
// activity of the account (GSI1SK: ActivityOrder); the shard is a hash of the
// activity's uuid, so a uuid alone finds it.
func ActivitiesByAccount(accountID, activityUUID string) string {
	return shardKey(activities(accountID), hashShard(activityUUID, ListingShards))
}

// ActivitiesByAccountShards is every GSI1 partition of the account's activity log.
func ActivitiesByAccountShards(accountID string) []string {
	return shardKeys(activities(accountID), ListingShards)
}

// ActivitiesByType is the GSI2 partition, among ListingShards, that lists an activity
// of one type (GSI2SK: ActivityOrder), sharded as ActivitiesByAccount.
func ActivitiesByType(accountID, activityType, activityUUID string) string {
	return shardKey(activities(accountID, activityType), hashShard(activityUUID, ListingShards))
}

// ActivitiesByTypeShards is every GSI2 partition of the account's activities of one type.
func ActivitiesByTypeShards(accountID, activityType string) []string {
	return shardKeys(activities(accountID, activityType), ListingShards)
}

// activities is the unsharded key of the activity log, or of one type's part of it.
func activities(accountID string, activityType ...string) string {
	return Partition(accountID, append([]string{"ACTIVITIES"}, activityType...)...)
}
