package keys

// TypeRecordLocator is the entity type of a line item's or transaction's locator.
const TypeRecordLocator = "record_locator"

// RecordLocator finds the invoice that holds a line item or transaction (which live
// packed inside their invoice item) from the record's uuid. Records with an external id
// have a uuid derived from their data source and external id, so the same key serves
// the lookups by data_source_uuid and external_id.
func RecordLocator(accountID, recordUUID string) Key {
	return Key{PK: Partition(accountID, "REC", recordUUID), SK: "LOCATOR"}
}
