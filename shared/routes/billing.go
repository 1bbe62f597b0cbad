package routes

import "github.com/subsight/subsight/shared/api/billing"

// billingOperations are the billing records: plans and plan groups, invoices with their
// line items and transactions, subscription events and the Import-API subscriptions.
// A by-uuid operation marked andByExternalID also has its by-external-id twin. Every change
// that the metrics read enqueues the customer's recomputation on the jobs queue.
var billingOperations = []Operation{
	op("CreatePlan", post("/v1/plans"), billing.CreatePlan, table("GetItem", "PutItem", "ConditionCheckItem")),
	op("ImportPlan", post("/v1/import/plans"), billing.ImportPlan, table("GetItem", "PutItem", "ConditionCheckItem")),
	op("ListPlans", get("/v1/plans"), billing.ListPlans, tableRead),
	op("ListImportPlans", get("/v1/import/plans"), billing.ListPlans, tableRead),
	op("GetPlan", get("/v1/plans/{plan_uuid}"), billing.GetPlan, tableRead),
	op("UpdatePlan", patch("/v1/plans/{plan_uuid}"), billing.UpdatePlan, table("GetItem", "UpdateItem")),
	op("DeletePlan", delete("/v1/plans/{plan_uuid}"), billing.DeletePlan, table("GetItem", "DeleteItem")),
	op("CreatePlanGroup", post("/v1/plan_groups"), billing.CreatePlanGroup, table("BatchGetItem", "PutItem")),
	op("ListPlanGroups", get("/v1/plan_groups"), billing.ListPlanGroups, tableRead),
	op("GetPlanGroup", get("/v1/plan_groups/{plan_group_uuid}"), billing.GetPlanGroup, table("GetItem")),
	op("UpdatePlanGroup", patch("/v1/plan_groups/{plan_group_uuid}"), billing.UpdatePlanGroup, table("GetItem", "BatchGetItem", "PutItem")),
	op("DeletePlanGroup", delete("/v1/plan_groups/{plan_group_uuid}"), billing.DeletePlanGroup, table("GetItem", "DeleteItem")),
	op("ListPlanGroupPlans", get("/v1/plan_groups/{plan_group_uuid}/plans"), billing.ListPlanGroupPlans, table("GetItem", "BatchGetItem")),
	op("ListImportInvoices", get("/v1/import/customers/{customer_uuid}/invoices"), billing.ListImportInvoices, tableRead),
	op("ListImportSubscriptions", get("/v1/import/customers/{customer_uuid}/subscriptions"), billing.ListImportSubscriptions, tableRead),
	op("UpdateImportSubscription", patch("/v1/import/subscriptions/{subscription_uuid}"), billing.UpdateSubscription, access(table("GetItem", "UpdateItem"), sendJobs)),
	op("GetInvoice", get("/v1/invoices/{invoice_uuid}"), billing.GetInvoice, tableRead),
	op("DeleteInvoice", delete("/v1/invoices/{invoice_uuid}"), billing.DeleteInvoice, access(table("GetItem", "BatchGetItem", "Query", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem"), sendJobs)).andByExternalID(),
	op("UpdateInvoiceStatus", put("/v1/data_sources/{data_source_uuid}/invoices/{invoice_external_id}/status"), billing.UpdateInvoiceStatus, access(table("GetItem", "Query", "PutItem"), sendJobs)),
	op("PatchInvoiceStatus", patch("/v1/data_sources/{data_source_uuid}/invoices/{invoice_external_id}/status"), billing.UpdateInvoiceStatus, access(table("GetItem", "Query", "PutItem"), sendJobs)),
	op("CreateSubscriptionEvent", post("/v1/subscription_events"), billing.CreateSubscriptionEvent, access(recordWrites, index("GSI2", "Query"), sendJobs)),
	op("ListSubscriptionEvents", get("/v1/subscription_events"), billing.ListSubscriptionEvents, tableRead),
	op("UpdateSubscriptionEvent", patch("/v1/subscription_events"), billing.UpdateSubscriptionEvent, access(recordWrites, index("GSI2", "Query"), sendJobs)),
	op("DeleteSubscriptionEvent", delete("/v1/subscription_events"), billing.DeleteSubscriptionEvent, access(recordWrites, index("GSI2", "Query"), sendJobs)),
	op("ImportCustomerInvoices", post("/v1/import/customers/{customer_uuid}/invoices"), billing.ImportCustomerInvoices, access(recordWrites, index("GSI2", "Query"), sendJobs)),
	op("UpdateCustomerInvoices", put("/v1/import/customers/{customer_uuid}/invoices"), billing.UpdateCustomerInvoices, access(recordWrites, index("GSI2", "Query"), sendJobs)),
	op("ListInvoices", get("/v1/invoices"), billing.ListInvoices, tableRead),
	op("CreateInvoiceTransaction", post("/v1/import/invoices/{invoice_uuid}/transactions"), billing.CreateInvoiceTransaction, access(recordWrites, index("GSI2", "Query"), sendJobs)),
	op("CreateInvoiceLineItem", post("/v1/import/invoices/{invoice_uuid}/line_items"), billing.CreateInvoiceLineItem, access(table("GetItem", "BatchGetItem", "Query", "PutItem", "UpdateItem", "BatchWriteItem"), sendJobs)),
	op("GetLineItem", get("/v1/line_items/{line_item_uuid}"), billing.GetLineItem, table("GetItem")).andByExternalID(),
	op("UpdateLineItem", patch("/v1/line_items/{line_item_uuid}"), billing.UpdateLineItem, access(table("GetItem", "BatchGetItem", "Query", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem"), sendJobs)).andByExternalID(),
	op("DeleteLineItem", delete("/v1/line_items/{line_item_uuid}"), billing.DeleteLineItem, access(table("GetItem", "BatchGetItem", "Query", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem"), sendJobs)).andByExternalID(),
	op("SetLineItemDisabled", patch("/v1/line_items/{line_item_uuid}/disabled_state"), billing.SetLineItemDisabled, access(table("GetItem", "Query", "PutItem"), sendJobs)).andByExternalID(),
	op("GetTransaction", get("/v1/transactions/{transaction_uuid}"), billing.GetTransaction, table("GetItem")).andByExternalID(),
	op("UpdateTransaction", patch("/v1/transactions/{transaction_uuid}"), billing.UpdateTransaction, access(table("GetItem", "BatchGetItem", "Query", "PutItem", "UpdateItem", "BatchWriteItem"), sendJobs)).andByExternalID(),
	op("DeleteTransaction", delete("/v1/transactions/{transaction_uuid}"), billing.DeleteTransaction, access(table("GetItem", "PutItem", "BatchWriteItem"), sendJobs)).andByExternalID(),
	op("SetTransactionDisabled", patch("/v1/transactions/{transaction_uuid}/disabled_state"), billing.SetTransactionDisabled, access(table("GetItem", "Query", "PutItem"), sendJobs)).andByExternalID(),
	op("SetInvoiceDisabled", patch("/v1/invoices/{invoice_uuid}/disabled_state"), billing.SetInvoiceDisabled, access(table("GetItem", "Query", "PutItem"), sendJobs)).andByExternalID(),
	op("UpdateInvoice", patch("/v1/invoices/{invoice_uuid}"), billing.UpdateInvoice, access(table("GetItem", "BatchGetItem", "Query", "PutItem", "UpdateItem", "BatchWriteItem"), sendJobs)).andByExternalID(),
	op("DeleteCustomerInvoices", delete("/v1/data_sources/{data_source_uuid}/customers/{customer_uuid}/invoices"), billing.DeleteCustomerInvoices, access(table("GetItem", "BatchGetItem", "Query", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem"), sendJobs)),
	op("SetSubscriptionEventDisabled", patch("/v1/subscription_events/{id}/disabled_state"), billing.SetSubscriptionEventDisabled, access(table("GetItem", "Query", "PutItem"), sendJobs)).andByExternalID(),
	op("PutPlan", put("/v1/plans/{plan_uuid}"), billing.UpdatePlan, table("GetItem", "UpdateItem")),
}
