package keys

// Imports, invoices, subscriptions and subscription events. See docs/data-model.md,
// "Imports, invoices and subscriptions".

// Entity types of the import area.
const (
	TypeImport             = "json_import"
	TypeImportLocator      = "json_import_locator"
	TypeImportCustomer     = "json_import_customer"
	TypeInvoice            = "invoice"
	TypeBillingIndex       = "billing_index"
	TypeSubscription       = "subscription"
	TypeSubscriptionEvent  = "subscription_event"
	TypeSubscriptionEvtExt = "subscription_event_external_id"
)

// ImportPrefix selects the imports of a data source (within DataSourcePartition).
const ImportPrefix = "IMPORT" + sep

// Import is a json_imports record, keyed by its external id in its data source: the
// conditional put of this key is what refuses an external id used twice.
func Import(accountID, dsUUID, externalID string) Key {
	return Key{PK: DataSourcePartition(accountID, dsUUID), SK: ImportPrefix + externalID}
}

// ImportLocatorPrefix selects the import locators of a data source (within
// DataSourcePartition); the rest of each sort key is an import id.
const ImportLocatorPrefix = "IMPORTID" + sep

// ImportLocator finds an import's external id from the id the API returned.
func ImportLocator(accountID, dsUUID, importID string) Key {
	return Key{PK: DataSourcePartition(accountID, dsUUID), SK: ImportLocatorPrefix + importID}
}

// ImportCustomersPartitions hold one status item per customer of an import, so that
// workers of different customers never write the same item; they are the import's
// ImportShards write shards (by hash of the customer external id), as one import's
// customers are applied at the account's full rate.
func ImportCustomersPartitions(accountID, importID string) []string {
	return shardKeys(importCustomers(accountID, importID), ImportShards)
}

// ImportCustomer is the status of one customer's records in an import.
func ImportCustomer(accountID, importID, customerExternalID string) Key {
	pk := shardKey(importCustomers(accountID, importID), hashShard(customerExternalID, ImportShards))
	return Key{PK: pk, SK: "CUS" + sep + customerExternalID}
}

func importCustomers(accountID, importID string) string { return Partition(accountID, "IMP", importID) }

// Invoice is an invoice with its line items and transactions embedded. The uuid is
// derived from the data source and external id (model.InvoiceUUID), so the same key
// serves lookups by uuid and by external id and makes the external id unique in its
// data source without a second item.
func Invoice(accountID, invoiceUUID string) Key {
	return Key{PK: Partition(accountID, "INV", invoiceUUID), SK: "INVOICE"}
}

// BillingIndex lists one customer's invoices, subscriptions and referenced plans; it
// lives in the customer partition, which deleting the customer removes.
func BillingIndex(accountID, customerUUID string) Key {
	return Key{PK: CustomerPartition(accountID, customerUUID), SK: "BILLING"}
}

// Subscription is a subscription generated from line items; its uuid is derived from
// the data source and subscription external id (model.SubscriptionUUID).
func Subscription(accountID, subscriptionUUID string) Key {
	return Key{PK: Partition(accountID, "SUB", subscriptionUUID), SK: "SUBSCRIPTION"}
}

// SubscriptionEvent is one subscription event, by its integer id.
func SubscriptionEvent(accountID, id string) Key {
	return Key{PK: Partition(accountID, "SEV", id), SK: "EVENT"}
}

// SubscriptionEventExternalID reserves a subscription event external id in its data
// source and finds the event from it.
func SubscriptionEventExternalID(accountID, dsUUID, externalID string) Key {
	return Key{PK: DataSourceReservations(accountID, dsUUID, externalID), SK: SubscriptionEventExternalIDPrefix + externalID}
}

// SubscriptionEventExternalIDPrefix starts the sort key of every subscription-event
// external-id claim; the rest is the external id.
const SubscriptionEventExternalIDPrefix = "SEVEXT" + sep

// SubscriptionEvents is the GSI1 partition, among ListingShards, that lists the
// subscription event of integer id id in the account-wide listing (GSI1SK:
// SubscriptionEventOrder).
func SubscriptionEvents(accountID string, id int64) string {
	return shardKey(subscriptionEvents(accountID), idShard(id, ListingShards))
}

// SubscriptionEventsShards is every GSI1 partition of the account's event listing.
func SubscriptionEventsShards(accountID string) []string {
	return shardKeys(subscriptionEvents(accountID), ListingShards)
}

func subscriptionEvents(accountID string) string { return Partition(accountID, "SEVS") }

// SubscriptionEventOrder sorts events by id (fixed width, so string order is numeric).
func SubscriptionEventOrder(id int64) string { return padID(id) }

func padID(id int64) string {
	const width = 16
	b := []byte("0000000000000000")
	for i := width - 1; i >= 0 && id > 0; i-- {
		b[i] = byte('0' + id%10)
		id /= 10
	}
	return string(b)
}

// ErasedImportCustomerPrefix begins the stand-in external id under which an import keeps
// the status of a customer erased since (docs/data-model.md, "Erasure").
const ErasedImportCustomerPrefix = "erased_"
