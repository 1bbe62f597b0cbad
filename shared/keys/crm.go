package keys

import "strings"

// Notes, opportunities, tasks, plan groups and customer unmerges. See docs/data-model.md,
// "Customer notes", "Opportunities and tasks", "Plan groups" and "Unmerge".

// Entity types of the CRM records and plan groups.
const (
	TypeOpportunity        = "opportunity"
	TypeOpportunityLocator = "opportunity_locator"
	TypeTask               = "task"
	TypeTaskLocator        = "task_locator"
	TypePlanGroup          = "plan_group"
	TypeUnmergeRequest     = "unmerge_request"
)

// Record is where a kind of CRM record lives: each record in its customer's partition
// (deleting the customer deletes it), a locator that finds the customer from the
// record's uuid alone, and two index partitions, the account's (GSI1) and the
// customer's (GSI2), both sorted by RecordOrder.
type Record struct {
	Type, LocatorType string
	// name is the record's part of key strings: the sort-key prefix in the customer
	// partition, the locator partition and the index partitions.
	name string
}

// The CRM record kinds kept this way.
var (
	Notes         = Record{Type: TypeNote, LocatorType: TypeNoteLocator, name: "NOTE"}
	Opportunities = Record{Type: TypeOpportunity, LocatorType: TypeOpportunityLocator, name: "OPP"}
	Tasks         = Record{Type: TypeTask, LocatorType: TypeTaskLocator, name: "TASK"}
)

// Prefix selects the records of this kind within a customer's partition.
func (r Record) Prefix() string { return r.name + sep }

// Item is the record item, in its customer's partition.
func (r Record) Item(accountID, customerUUID, uuid string) Key {
	return Key{PK: CustomerPartition(accountID, customerUUID), SK: r.Prefix() + uuid}
}

// Locator finds a record's customer from its uuid, with a consistent read.
func (r Record) Locator(accountID, uuid string) Key {
	return Key{PK: Partition(accountID, r.name, uuid), SK: "LOCATOR"}
}

// ByAccount is the GSI1 partition of every record of this kind of the account.
func (r Record) ByAccount(accountID string) string { return Partition(accountID, r.name+"S") }

// ByCustomer is the GSI2 partition of one customer's records of this kind.
func (r Record) ByCustomer(accountID, customerUUID string) string {
	return Partition(accountID, r.name+"S", customerUUID)
}

// RecordOrder sorts records by creation time, then uuid; createdAt must be a
// fixed-width UTC timestamp so that string order is time order.
func RecordOrder(createdAt, uuid string) string { return createdAt + sep + uuid }

// PlanGroup is a plan group item: its name and the plans it holds.
func PlanGroup(accountID, planGroupUUID string) Key {
	return Key{PK: Partition(accountID, "PLG", planGroupUUID), SK: "PLANGROUP"}
}

// PlanGroupsByAccount is the GSI1 partition of the account's plan groups (GSI1SK: the
// uuid, time-ordered).
func PlanGroupsByAccount(accountID string) string { return Partition(accountID, "PLANGROUPS") }

// UnmergeRequestPrefix selects the unmerges pending out of a customer.
const UnmergeRequestPrefix = "UNMERGE" + sep

// UnmergeRequest is a pending unmerge of one (data source, external id) pair out of a
// customer; it lives in that customer's partition.
func UnmergeRequest(accountID, customerUUID, dsUUID, externalID string) Key {
	return Key{PK: CustomerPartition(accountID, customerUUID), SK: UnmergeRequestPrefix + dsUUID + sep + externalID}
}

// RecordLocatorOf is the locator of the CRM record whose item in a customer's partition
// has sort key sk; false for the partition's other items.
func RecordLocatorOf(accountID, sk string) (Key, bool) {
	for _, r := range []Record{Notes, Opportunities, Tasks} {
		if uuid, ok := strings.CutPrefix(sk, r.Prefix()); ok {
			return r.Locator(accountID, uuid), true
		}
	}
	return Key{}, false
}
