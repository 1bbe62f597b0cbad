package keys

// Plans and customer notes. See docs/data-model.md, "Plans and notes"; notes are laid out
// as the CRM records (keys.Notes, crm.go).

// Entity types of plans and notes.
const (
	TypePlan           = "plan"
	TypePlanExternalID = "plan_external_id"
	TypePlanLocator    = "plan_locator"
	TypeNote           = "note"
	TypeNoteLocator    = "note_locator"
)

// PlanPrefix selects the plans of a data source (within DataSourcePartition).
const PlanPrefix = "PLAN" + sep

// Plan is the plan item. It lives in its data source's partition so that purging the
// data source removes it.
func Plan(accountID, dsUUID, planUUID string) Key {
	return Key{PK: DataSourcePartition(accountID, dsUUID), SK: PlanPrefix + planUUID}
}

// PlanExternalID is the item that makes a plan's external id unique in its data source.
func PlanExternalID(accountID, dsUUID, externalID string) Key {
	return Key{PK: DataSourcePartition(accountID, dsUUID), SK: "PLANEXT" + sep + externalID}
}

// PlanLocator finds a plan's data source from its uuid alone, with a consistent read.
func PlanLocator(accountID, planUUID string) Key {
	return Key{PK: Partition(accountID, "PLAN", planUUID), SK: "LOCATOR"}
}

// PlansByAccount is the GSI1 partition of every plan of the account (GSI1SK: the plan
// uuid, time-ordered, so the index reads in creation order).
func PlansByAccount(accountID string) string { return Partition(accountID, "PLANS") }

// PlansByExternalID is the GSI2 partition of the account's plans with one external id
// (across data sources; GSI2SK: the plan uuid).
func PlansByExternalID(accountID, externalID string) string {
	return Partition(accountID, "PLANEXT", externalID)
}
