package routes

import "github.com/subsight/subsight/shared/api/customers"

// customerOperations are the customers, their contacts, tags and custom attributes, and
// the merges and unmerges of customer records (recorded here, run by the jobs worker).
// An edit that changes what the metrics read enqueues the customer's recomputation.
var customerOperations = []Operation{
	{"CreateCustomer", post("/v1/customers"), customers.CreateCustomer, tableCrud},
	{"ListCustomers", get("/v1/customers"), customers.ListCustomers, tableRead},
	{"SearchCustomers", get("/v1/customers/search"), customers.SearchCustomers, tableRead},
	{"GetCustomer", get("/v1/customers/{customer_uuid}"), customers.GetCustomer, tableRead},
	{"UpdateCustomer", patch("/v1/customers/{customer_uuid}"), customers.UpdateCustomer, access(tableCrud, sendJobs)},
	{"PutCustomer", put("/v1/customers/{customer_uuid}"), customers.UpdateCustomer, access(tableCrud, sendJobs)},
	{"DeleteCustomer", delete("/v1/customers/{customer_uuid}"), customers.DeleteCustomer, access(tableCrud, sendJobs)},
	{"GetCustomerAttributes", get("/v1/customers/{customer_uuid}/attributes"), customers.GetCustomerAttributes, tableRead},
	{"AddCustomerTags", post("/v1/customers/{customer_uuid}/attributes/tags"), customers.AddTags, tableCrud},
	{"RemoveCustomerTags", delete("/v1/customers/{customer_uuid}/attributes/tags"), customers.RemoveTags, tableCrud},
	{"AddCustomerTagsByEmail", post("/v1/customers/attributes/tags"), customers.AddTagsByEmail, tableCrud},
	{"AddCustomAttributes", post("/v1/customers/{customer_uuid}/attributes/custom"), customers.AddCustomAttributes, tableCrud},
	{"AddCustomAttributesByEmail", post("/v1/customers/attributes/custom"), customers.AddCustomAttributesByEmail, tableCrud},
	{"UpdateCustomAttributes", put("/v1/customers/{customer_uuid}/attributes/custom"), customers.UpdateCustomAttributes, tableCrud},
	{"RemoveCustomAttributes", delete("/v1/customers/{customer_uuid}/attributes/custom"), customers.RemoveCustomAttributes, tableCrud},
	{"GetCustomAttributes", get("/v1/customers/{customer_uuid}/attributes/custom"), customers.GetCustomAttributes, tableRead},
	{"CreateContact", post("/v1/contacts"), customers.CreateContact, tableCrud},
	{"CreateCustomerContact", post("/v1/customers/{customer_uuid}/contacts"), customers.CreateCustomerContact, tableCrud},
	{"ListContacts", get("/v1/contacts"), customers.ListContacts, tableRead},
	{"ListCustomerContacts", get("/v1/customers/{customer_uuid}/contacts"), customers.ListCustomerContacts, tableRead},
	{"GetContact", get("/v1/contacts/{contact_uuid}"), customers.GetContact, tableRead},
	{"UpdateContact", patch("/v1/contacts/{contact_uuid}"), customers.UpdateContact, tableCrud},
	{"DeleteContact", delete("/v1/contacts/{contact_uuid}"), customers.DeleteContact, tableCrud},
	{"MergeContacts", post("/v1/contacts/{contact_uuid}/merge/{from_uuid}"), customers.MergeContacts, tableCrud},
	{"MergeCustomers", post("/v1/customers/merges"), customers.MergeCustomers, access(table("GetItem", "PutItem"), sendJobs)},
	{"UnmergeCustomers", post("/v1/customers/unmerges"), customers.UnmergeCustomers, access(table("GetItem", "PutItem"), sendJobs)},
}
