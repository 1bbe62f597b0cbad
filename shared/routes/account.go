package routes

import "github.com/subsight/subsight/shared/api/account"

// accountOperations are the connectivity check, the account and its data sources. A
// data source's deletion, and its emptying, purge its records on the jobs queue.
var accountOperations = []Operation{
	op("Ping", get("/v1/ping"), account.Ping, none),
	op("GetAccount", get("/v1/account"), account.GetAccount, tableRead),
	op("CreateDataSource", post("/v1/data_sources"), account.CreateDataSource, customerWrites),
	op("ListDataSources", get("/v1/data_sources"), account.ListDataSources, tableRead),
	op("GetDataSource", get("/v1/data_sources/{uuid}"), account.GetDataSource, tableRead),
	op("DeleteDataSource", delete("/v1/data_sources/{uuid}"), account.DeleteDataSource, access(recordWrites, index("GSI2", "Query"), sendJobs)),
	op("EmptyDataSource", delete("/v1/data_sources/{uuid}/all"), account.EmptyDataSource, access(table("GetItem"), sendJobs)),
	op("PurgeDataSourceDependents", delete("/v1/data_sources/{uuid}/dependent"), account.PurgeDataSourceDependents, access(table("GetItem"), sendJobs)),
}
