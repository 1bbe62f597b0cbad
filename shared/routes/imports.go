package routes

import "github.com/subsight/subsight/shared/api/jsonimports"

// importOperations are a data source's json_imports: the intake validates the payload,
// writes the customers' parts and their messages under imports/ of the bucket, puts
// the import in its account's lane and asks the feeder to feed it (docs/architecture.md,
// "Lanes").
var importOperations = []Operation{
	// The intake parses and splits up to 5 MB of JSON: a whole vCPU (1,769 MB) keeps a
	// request of 250 customers around a third of a second (docs/benchmarks.md, "One
	// account at scale"); its route has a throttle of its own, below the stage's
	// default, as it fans out to the bulk lanes (docs/architecture.md, "Guard rails").
	op("CreateJsonImport", post("/v1/data_sources/{data_source_uuid}/json_imports"), jsonimports.CreateJSONImport, jsonImportIntake).
		memory(1769).throttled("Import"),
	op("GetJsonImport", get("/v1/data_sources/{data_source_uuid}/json_imports/{import_id}"), jsonimports.GetJSONImport, tableRead),
	op("ListJsonImports", get("/v1/data_sources/{data_source_uuid}/json_imports"), jsonimports.ListJSONImports, table("GetItem", "Query")),
}

// jsonImportIntake is the intake's access: the data source, the payload's plans (a new
// one in a transaction that checks its data source), the quotas, the import record,
// its parts under imports/, and the account's feed.
var jsonImportIntake = access(table("GetItem", "Query", "PutItem", "UpdateItem", "ConditionCheckItem"), objects("imports/", "PutObject"), sendFeeds,
	because("the markers of finished imports are deleted only at the account's limit of imports in flight", table("DeleteItem")))
