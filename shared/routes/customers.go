package routes

import "github.com/subsight/subsight/shared/api/customers"

// customerOperations are the customers, their contacts, tags and custom attributes, and
// the merges and unmerges of customer records (recorded here, run by the jobs worker).
// An edit that changes what the metrics read enqueues the customer's recomputation.
var customerOperations = []Operation{
	{"CreateCustomer", post("/v1/customers"), customers.CreateCustomer, customerWrites},
	{"ListCustomers", get("/v1/customers"), customers.ListCustomers, tableRead},
	{"SearchCustomers", get("/v1/customers/search"), customers.SearchCustomers, tableRead},
	{"GetCustomer", get("/v1/customers/{customer_uuid}"), customers.GetCustomer, tableRead},
	{"UpdateCustomer", patch("/v1/customers/{customer_uuid}"), customers.UpdateCustomer, access(recordWrites, index("GSI2", "Query"), sendJobs)},
	{"PutCustomer", put("/v1/customers/{customer_uuid}"), customers.UpdateCustomer, access(recordWrites, index("GSI2", "Query"), sendJobs)},
	{"DeleteCustomer", delete("/v1/customers/{customer_uuid}"), customers.DeleteCustomer, customerWrites},
	{"GetCustomerAttributes", get("/v1/customers/{customer_uuid}/attributes"), customers.GetCustomerAttributes, tableRead},
	{"AddCustomerTags", post("/v1/customers/{customer_uuid}/attributes/tags"), customers.AddTags, customerWrites},
	{"RemoveCustomerTags", delete("/v1/customers/{customer_uuid}/attributes/tags"), customers.RemoveTags, customerWrites},
	{"AddCustomerTagsByEmail", post("/v1/customers/attributes/tags"), customers.AddTagsByEmail, customerWrites},
	{"AddCustomAttributes", post("/v1/customers/{customer_uuid}/attributes/custom"), customers.AddCustomAttributes, customerWrites},
	{"AddCustomAttributesByEmail", post("/v1/customers/attributes/custom"), customers.AddCustomAttributesByEmail, customerWrites},
	{"UpdateCustomAttributes", put("/v1/customers/{customer_uuid}/attributes/custom"), customers.UpdateCustomAttributes, customerWrites},
	{"RemoveCustomAttributes", delete("/v1/customers/{customer_uuid}/attributes/custom"), customers.RemoveCustomAttributes, customerWrites},
	{"GetCustomAttributes", get("/v1/customers/{customer_uuid}/attributes/custom"), customers.GetCustomAttributes, tableRead},
	{"CreateContact", post("/v1/contacts"), customers.CreateContact, customerWrites},
	{"CreateCustomerContact", post("/v1/customers/{customer_uuid}/contacts"), customers.CreateCustomerContact, customerWrites},
	{"ListContacts", get("/v1/contacts"), customers.ListContacts, tableRead},
	{"ListCustomerContacts", get("/v1/customers/{customer_uuid}/contacts"), customers.ListCustomerContacts, tableRead},
	{"GetContact", get("/v1/contacts/{contact_uuid}"), customers.GetContact, tableRead},
	{"UpdateContact", patch("/v1/contacts/{contact_uuid}"), customers.UpdateContact, customerWrites},
	{"DeleteContact", delete("/v1/contacts/{contact_uuid}"), customers.DeleteContact, customerWrites},
	{"MergeContacts", post("/v1/contacts/{contact_uuid}/merge/{from_uuid}"), customers.MergeContacts, customerWrites},
	{"MergeCustomers", post("/v1/customers/merges"), customers.MergeCustomers, access(table("GetItem", "PutItem"), sendJobs)},
	{"UnmergeCustomers", post("/v1/customers/unmerges"), customers.UnmergeCustomers, access(table("GetItem", "PutItem"), sendJobs)},
}
