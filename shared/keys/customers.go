package keys

import (
	"fmt"
	"strings"
)

// Entity types of the customer area.
const (
	TypeCustomer           = "customer"
	TypeCustomerExternalID = "customer_external_id"
	TypeCustomerEmailIndex = "customer_email_index"
	TypeContact            = "contact"
	TypeContactEmail       = "contact_email"
	TypeAttrDefinition     = "custom_attribute"
)

// CustomerIDCounter names the account's sequence of integer customer ids.
const CustomerIDCounter = "customer_id"

// CustomerPartition holds one customer, its e-mail index item and the e-mail
// uniqueness items of its contacts; deleting the customer deletes the partition.
func CustomerPartition(accountID, customerUUID string) string {
	return Partition(accountID, "CUS", customerUUID)
}

// Customer is the customer item.
func Customer(accountID, customerUUID string) Key {
	return Key{PK: CustomerPartition(accountID, customerUUID), SK: "CUSTOMER"}
}

// CustomerEmailIndex is the small item that makes a customer findable by e-mail
// (GSI2 = CustomerByEmail); it exists only while the customer has an e-mail.
func CustomerEmailIndex(accountID, customerUUID string) Key {
	return Key{PK: CustomerPartition(accountID, customerUUID), SK: "EMAILIDX"}
}

// CustomerList is the GSI1 partition, among ListingShards, that lists the customer of
// integer id id (GSI1SK: CustomerOrder).
func CustomerList(accountID string, id int64) string {
	return shardKey(customerList(accountID), idShard(id, ListingShards))
}

// CustomerListShards is every GSI1 partition of the account's customer listing.
func CustomerListShards(accountID string) []string {
	return shardKeys(customerList(accountID), ListingShards)
}

func customerList(accountID string) string { return Partition(accountID, "CUSTOMERS") }

// CustomerOrder is the sort key of a customer in its listings: the integer id,
// zero-padded so that string order is numeric order.
func CustomerOrder(id int64) string { return fmt.Sprintf("%015d", id) }

// CustomerByExternalID is the GSI2 partition of the customers with one (primary)
// external id, across data sources.
func CustomerByExternalID(accountID, externalID string) string {
	return Partition(accountID, "CUSEXT", externalID)
}

// CustomerByEmail is the GSI2 partition of the e-mail index items of one address.
func CustomerByEmail(accountID, email string) string {
	return Partition(accountID, "CUSEMAIL", strings.ToLower(email))
}

// CustomerExternalID is the uniqueness item of a customer external id in a data
// source; it lives in one of the data source's reservation partitions, which a purge
// deletes.
func CustomerExternalID(accountID, dsUUID, externalID string) Key {
	return Key{PK: DataSourceReservations(accountID, dsUUID, externalID), SK: CustomerExternalIDPrefix + externalID}
}

// CustomerExternalIDPrefix starts the sort key of every customer external-id
// reservation; the rest is the external id.
const CustomerExternalIDPrefix = "CUSTOMER" + sep

// Contact is the contact item.
func Contact(accountID, contactUUID string) Key {
	return Key{PK: Partition(accountID, "CON", contactUUID), SK: "CONTACT"}
}

// ContactList is the GSI1 partition of every contact of the account, sorted by uuid
// (time-ordered).
func ContactList(accountID string) string { return Partition(accountID, "CONTACTS") }

// CustomerContacts is the GSI2 partition of one customer's contacts.
func CustomerContacts(accountID, customerUUID string) string {
	return Partition(accountID, "CUS", customerUUID, "CONTACTS")
}

// ContactEmail is the item that keeps a contact e-mail unique within its customer.
func ContactEmail(accountID, customerUUID, email string) Key {
	return Key{PK: CustomerPartition(accountID, customerUUID), SK: "CONEMAIL" + sep + strings.ToLower(email)}
}

// ContactsByEmail is the GSI2 partition of the contact e-mail items of one address
// (customers "with associated e-mails").
func ContactsByEmail(accountID, email string) string {
	return Partition(accountID, "CONEMAIL", strings.ToLower(email))
}

// AttrDefinition is the definition of a custom attribute key for an object type
// ("customer" or "contact"); an account has few, so they live in its root partition.
func AttrDefinition(accountID, object, key string) Key {
	return Key{PK: AccountPartition(accountID), SK: AttrDefinitionPrefix(object) + key}
}

// AttrDefinitionPrefix selects the definitions of one object type.
func AttrDefinitionPrefix(object string) string { return "ATTR" + sep + object + sep }
