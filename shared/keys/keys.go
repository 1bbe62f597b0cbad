// Package keys is the only place where DynamoDB key strings are built. Every item of
// an account lives under a partition key that starts with the account id, so a
// handler holding one account's id cannot address another account's items.
package keys

import "strings"

// Attribute names of the single table.
const (
	PK     = "PK"
	SK     = "SK"
	GSI1PK = "GSI1PK"
	GSI1SK = "GSI1SK"
	GSI2PK = "GSI2PK"
	GSI2SK = "GSI2SK"
	// EntityType is the discriminator carried by every item.
	EntityType = "et"
)

// Index names, as declared in template.yaml.
const (
	GSI1 = "GSI1"
	GSI2 = "GSI2"
)

// Entity types (values of the "et" attribute).
const (
	TypeAccount      = "account"
	TypeAPIKey       = "api_key"
	TypeAPIKeyLookup = "api_key_lookup"
	TypeMember       = "member"
	TypeDataSource   = "data_source"
	TypeCounter      = "counter"
)

const sep = "#"

// Key is a primary key.
type Key struct{ PK, SK string }

// Account is the account's root partition; it also holds keys, members, data sources
// and counters, which are few per account.
func Account(accountID string) Key { return Key{PK: accountID, SK: "ACCOUNT"} }

// AccountPartition is the partition that holds the account's small items.
func AccountPartition(accountID string) string { return accountID }

// APIKey is one API key of an account.
func APIKey(accountID, keyID string) Key { return Key{PK: accountID, SK: "APIKEY" + sep + keyID} }

// APIKeyPrefix selects all API keys of an account (within AccountPartition).
const APIKeyPrefix = "APIKEY" + sep

// APIKeyByHash is the item that finds a key by its hash (one GetItem per request of
// the authorizer); it is removed when the key is revoked, so a revoked key cannot be
// found.
func APIKeyByHash(hash string) Key { return Key{PK: "APIKEYHASH" + sep + hash, SK: "APIKEY"} }

// Member is a team member, by e-mail (case-insensitive).
func Member(accountID, email string) Key {
	return Key{PK: accountID, SK: MemberPrefix + strings.ToLower(email)}
}

// MemberPrefix selects all members of an account.
const MemberPrefix = "MEMBER" + sep

// DataSource is one data source.
func DataSource(accountID, dsUUID string) Key {
	return Key{PK: accountID, SK: DataSourcePrefix + dsUUID}
}

// DataSourcePrefix selects all data sources of an account.
const DataSourcePrefix = "DS" + sep

// DataSourcePartition holds what is imported into one data source that must be
// found by external id and is few (plans, imports); purging the data source deletes
// it. It is also shard 0 of the data source's reservations.
func DataSourcePartition(accountID, dsUUID string) string { return Partition(accountID, "DS", dsUUID) }

// DataSourceReservations is the partition, among ReservationShards, that holds the
// external-id reservations (customers, subscription events) of externalID in a data
// source: a hash of the external id, so the id alone finds it.
func DataSourceReservations(accountID, dsUUID, externalID string) string {
	return shardKey(DataSourcePartition(accountID, dsUUID), hashShard(externalID, ReservationShards))
}

// DataSourcePartitions is every partition of a data source: DataSourcePartition and
// the reservation shards.
func DataSourcePartitions(accountID, dsUUID string) []string {
	return shardKeys(DataSourcePartition(accountID, dsUUID), ReservationShards)
}

// Counter is an atomic sequence of the account (e.g. customer integer ids).
func Counter(accountID, name string) Key { return Key{PK: accountID, SK: "SEQ" + sep + name} }

// OwnedBy reports whether a partition key value belongs to the account.
func OwnedBy(pk, accountID string) bool {
	return pk == accountID || strings.HasPrefix(pk, accountID+sep)
}

// PositionOwnedBy reports whether every partition a listing position names (the
// values of its key attributes named like a partition key: PK, GSI1PK, c.PK, …)
// belongs to the account.
func PositionOwnedBy(position map[string]string, accountID string) bool {
	for name, v := range position {
		if strings.HasSuffix(name, PK) && !OwnedBy(v, accountID) {
			return false
		}
	}
	return true
}

// Partition builds an account-scoped partition key from parts: acc#part1#part2.
func Partition(accountID string, parts ...string) string {
	return accountID + sep + strings.Join(parts, sep)
}
