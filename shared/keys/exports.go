package keys

// TypeActivitiesExport is the entity type of an activities export request.
const TypeActivitiesExport = "activities_export"

// ActivitiesExport is one activities export of an account, by its id.
func ActivitiesExport(accountID, exportID string) Key {
	return Key{PK: Partition(accountID, "EXPORT", exportID), SK: "ACTIVITIES_EXPORT"}
}
