package routes

import "github.com/subsight/subsight/shared/api/account"

// accountOperations are the connectivity check, the account and its data sources. A
// data source's deletion, and its emptying, purge its records on the jobs queue.
var accountOperations = []Operation{
	{"Ping", get("/v1/ping"), account.Ping, none},
	{"GetAccount", get("/v1/account"), account.GetAccount, tableRead},
	{"CreateDataSource", post("/v1/data_sources"), account.CreateDataSource, customerWrites},
	{"ListDataSources", get("/v1/data_sources"), account.ListDataSources, tableRead},
	{"GetDataSource", get("/v1/data_sources/{uuid}"), account.GetDataSource, tableRead},
	{"DeleteDataSource", delete("/v1/data_sources/{uuid}"), account.DeleteDataSource, access(recordWrites, index("GSI2", "Query"), sendJobs)},
	{"EmptyDataSource", delete("/v1/data_sources/{uuid}/all"), account.EmptyDataSource, access(table("GetItem"), sendJobs)},
	{"PurgeDataSourceDependents", delete("/v1/data_sources/{uuid}/dependent"), account.PurgeDataSourceDependents, access(table("GetItem"), sendJobs)},
}
