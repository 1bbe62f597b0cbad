package routes

import "github.com/subsight/subsight/shared/api/jsonimports"

// importOperations are a data source's json_imports: the intake validates the payload,
// writes the customers' parts under imports/ of the bucket and sends one message per
// customer to the import queue.
var importOperations = []Operation{
	{"CreateJsonImport", post("/v1/data_sources/{data_source_uuid}/json_imports"), jsonimports.CreateJSONImport, access(table("GetItem", "BatchGetItem", "PutItem", "UpdateItem", "ConditionCheckItem"), objects("imports/", "PutObject"), sendImports)},
	{"GetJsonImport", get("/v1/data_sources/{data_source_uuid}/json_imports/{import_id}"), jsonimports.GetJSONImport, tableRead},
	{"ListJsonImports", get("/v1/data_sources/{data_source_uuid}/json_imports"), jsonimports.ListJSONImports, table("GetItem", "Query")},
}
