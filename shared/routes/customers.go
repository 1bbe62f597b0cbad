package routes

import "github.com/subsight/subsight/shared/api/customers"

// customerOperations are the customers, their contacts, tags and custom attributes, and
// the merges and unmerges of customer records (recorded here, run by the jobs worker).
// An edit that changes what the metrics read enqueues the customer's recomputation.
var customerOperations = []Operation{
	op("CreateCustomer", post("/v1/customers"), customers.CreateCustomer, customerWrites),
	op("ListCustomers", get("/v1/customers"), customers.ListCustomers, tableRead),
	op("SearchCustomers", get("/v1/customers/search"), customers.SearchCustomers, tableRead),
	op("GetCustomer", get("/v1/customers/{customer_uuid}"), customers.GetCustomer, tableRead),
	op("UpdateCustomer", patch("/v1/customers/{customer_uuid}"), customers.UpdateCustomer, access(recordWrites, index("GSI2", "Query"), sendJobs)),
	op("PutCustomer", put("/v1/customers/{customer_uuid}"), customers.UpdateCustomer, access(recordWrites, index("GSI2", "Query"), sendJobs)),
	op("DeleteCustomer", delete("/v1/customers/{customer_uuid}"), customers.DeleteCustomer,
		access(table("GetItem", "BatchGetItem", "Query", "UpdateItem", "DeleteItem", "BatchWriteItem"), index("GSI2", "Query"), sendJobs)),
	op("GetCustomerAttributes", get("/v1/customers/{customer_uuid}/attributes"), customers.GetCustomerAttributes, tableRead),
	op("AddCustomerTags", post("/v1/customers/{customer_uuid}/attributes/tags"), customers.AddTags, customerWrites),
	op("RemoveCustomerTags", delete("/v1/customers/{customer_uuid}/attributes/tags"), customers.RemoveTags, customerWrites),
	op("AddCustomerTagsByEmail", post("/v1/customers/attributes/tags"), customers.AddTagsByEmail, customerWrites),
	op("AddCustomAttributes", post("/v1/customers/{customer_uuid}/attributes/custom"), customers.AddCustomAttributes, customerWrites),
	op("AddCustomAttributesByEmail", post("/v1/customers/attributes/custom"), customers.AddCustomAttributesByEmail, customerWrites),
	op("UpdateCustomAttributes", put("/v1/customers/{customer_uuid}/attributes/custom"), customers.UpdateCustomAttributes, customerWrites),
	op("RemoveCustomAttributes", delete("/v1/customers/{customer_uuid}/attributes/custom"), customers.RemoveCustomAttributes, customerWrites),
	op("GetCustomAttributes", get("/v1/customers/{customer_uuid}/attributes/custom"), customers.GetCustomAttributes, tableRead),
	op("CreateContact", post("/v1/contacts"), customers.CreateContact, customerWrites),
	op("CreateCustomerContact", post("/v1/customers/{customer_uuid}/contacts"), customers.CreateCustomerContact, customerWrites),
	op("ListContacts", get("/v1/contacts"), customers.ListContacts, tableRead),
	op("ListCustomerContacts", get("/v1/customers/{customer_uuid}/contacts"), customers.ListCustomerContacts, tableRead),
	op("GetContact", get("/v1/contacts/{contact_uuid}"), customers.GetContact, tableRead),
	op("UpdateContact", patch("/v1/contacts/{contact_uuid}"), customers.UpdateContact, customerWrites),
	op("DeleteContact", delete("/v1/contacts/{contact_uuid}"), customers.DeleteContact, customerWrites),
	op("MergeContacts", post("/v1/contacts/{contact_uuid}/merge/{from_uuid}"), customers.MergeContacts, customerWrites),
	op("MergeCustomers", post("/v1/customers/merges"), customers.MergeCustomers, access(table("GetItem", "PutItem"), sendJobs)),
	op("UnmergeCustomers", post("/v1/customers/unmerges"), customers.UnmergeCustomers, access(table("GetItem", "PutItem"), sendJobs)),
}
