package routes

import "github.com/subsight/subsight/shared/api/jsonimports"

// importOperations are a data source's json_imports: the intake validates the payload,
// writes the customers' parts and their messages under imports/ of the bucket, puts
// the import in its account's lane and asks the feeder to feed it (docs/architecture.md,
// "Lanes").
var importOperations = []Operation{
	{"CreateJsonImport", post("/v1/data_sources/{data_source_uuid}/json_imports"), jsonimports.CreateJSONImport, jsonImportIntake},
	{"GetJsonImport", get("/v1/data_sources/{data_source_uuid}/json_imports/{import_id}"), jsonimports.GetJSONImport, tableRead},
	{"ListJsonImports", get("/v1/data_sources/{data_source_uuid}/json_imports"), jsonimports.ListJSONImports, table("GetItem", "Query")},
}

// jsonImportIntake is the intake's access: the data source, the payload's plans (a new
// one in a transaction that checks its data source), the quotas, the import record,
// its parts under imports/, and the account's feed.
var jsonImportIntake = access(table("GetItem", "Query", "PutItem", "UpdateItem", "ConditionCheckItem"), objects("imports/", "PutObject"), sendFeeds,
	because("the markers of finished imports are deleted only at the account's limit of imports in flight", table("DeleteItem")))

// operationMemory are the operations whose MemorySize (MB) is not the template's Globals'.
// The json_imports intake parses and splits up to 5 MB of JSON: a whole vCPU (1,769 MB)
// keeps a request of 250 customers around a third of a second (docs/benchmarks.md, "One
// account at scale").
var operationMemory = map[string]int{"CreateJsonImport": 1769}

// operationThrottle are the operations with a route-level throttle of their own, below
// the stage's default: the json_imports intake parses up to 5 MB a request and fans
// out to the bulk lanes (docs/architecture.md, "Guard rails").
var operationThrottle = map[string]string{"CreateJsonImport": "Import"}
