package keys

import "fmt"

// An account's import lane (docs/architecture.md, "Lanes"): the imports whose customer
// messages are still to be sent to the import queue, oldest first, and the account's
// counts of messages sent and applied. One partition per account: the feeder reads the
// whole lane with one Query.

// Entity types of the import lane.
const (
	TypeLaneState  = "import_lane"
	TypeLaneImport = "import_lane_import"
)

// LanePartition holds one account's import lane.
func LanePartition(accountID string) string { return Partition(accountID, "LANE") }

// LaneState counts the account's customer messages sent to the import queue and applied.
func LaneState(accountID string) Key { return Key{PK: LanePartition(accountID), SK: "STATE"} }

// LaneImportPrefix selects the lane's imports (within LanePartition), in feeding order.
const LaneImportPrefix = "IMP" + sep

// LaneImport is one import of the lane. seq orders the account's imports as their
// intakes reserved their customer ids (an atomic counter of the account), so an import
// accepted after another is fed after it.
func LaneImport(accountID string, seq int64, importID string) Key {
	return Key{PK: LanePartition(accountID), SK: fmt.Sprintf("%s%020d%s%s", LaneImportPrefix, seq, sep, importID)}
}
