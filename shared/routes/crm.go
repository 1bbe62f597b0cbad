package routes

import "github.com/subsight/subsight/shared/api/crm"

// crmOperations are a customer's CRM records: notes and call logs (/v1/customer_notes
// and /v1/notes, the same items), opportunities and tasks. They live in their
// customer's partition with a locator; creates are transactions (PutItem and
// ConditionCheckItem on the customer; IAM checks each item action of a transaction),
// updates conditional PutItems, listings Queries of the account's or the customer's
// index.
var crmOperations = []Operation{
	op("CreateCustomerNote", post("/v1/customer_notes"), crm.CreateCustomerNote, table("GetItem", "Query", "PutItem", "ConditionCheckItem")),
	op("ListCustomerNotes", get("/v1/customer_notes"), crm.ListCustomerNotes, tableRead),
	op("GetCustomerNote", get("/v1/customer_notes/{note_uuid}"), crm.GetCustomerNote, tableRead),
	op("UpdateCustomerNote", patch("/v1/customer_notes/{note_uuid}"), crm.UpdateCustomerNote, table("GetItem", "PutItem")),
	op("DeleteCustomerNote", delete("/v1/customer_notes/{note_uuid}"), crm.DeleteCustomerNote, table("GetItem", "DeleteItem")),
	op("CreateNote", post("/v1/notes"), crm.CreateNote, table("GetItem", "Query", "PutItem", "ConditionCheckItem")),
	op("ListNotes", get("/v1/notes"), crm.ListNotes, tableRead),
	op("GetNote", get("/v1/notes/{note_uuid}"), crm.GetNote, table("GetItem")),
	op("UpdateNote", patch("/v1/notes/{note_uuid}"), crm.UpdateNote, table("GetItem", "PutItem")),
	op("DeleteNote", delete("/v1/notes/{note_uuid}"), crm.DeleteNote, table("GetItem", "DeleteItem")),
	op("CreateOpportunity", post("/v1/opportunities"), crm.CreateOpportunity, table("GetItem", "PutItem", "ConditionCheckItem")),
	op("ListOpportunities", get("/v1/opportunities"), crm.ListOpportunities, tableRead),
	op("GetOpportunity", get("/v1/opportunities/{opportunity_uuid}"), crm.GetOpportunity, table("GetItem")),
	op("UpdateOpportunity", patch("/v1/opportunities/{opportunity_uuid}"), crm.UpdateOpportunity, table("GetItem", "PutItem")),
	op("DeleteOpportunity", delete("/v1/opportunities/{opportunity_uuid}"), crm.DeleteOpportunity, table("GetItem", "DeleteItem")),
	op("CreateTask", post("/v1/tasks"), crm.CreateTask, table("GetItem", "PutItem", "ConditionCheckItem")),
	op("ListTasks", get("/v1/tasks"), crm.ListTasks, tableRead),
	op("GetTask", get("/v1/tasks/{task_uuid}"), crm.GetTask, table("GetItem")),
	op("UpdateTask", patch("/v1/tasks/{task_uuid}"), crm.UpdateTask, table("GetItem", "PutItem")),
	op("DeleteTask", delete("/v1/tasks/{task_uuid}"), crm.DeleteTask, table("GetItem", "DeleteItem")),
}
