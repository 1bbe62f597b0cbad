// Package api is the core of the HTTP operations, shared by their families (the
// subpackages: account, customers, crm, billing, metricsapi, jsonimports): the
// dependencies every operation is built with (Deps, Storage), the one reader of a
// listing's paging parameters and the page renderers (paging.go), the loaders that
// turn a path id into the account's object or ChartMogul's 404 (load.go), and the
// readers of query and body values (params.go). Each operation's constructor, in its
// family, takes *Deps and returns the apigw.Endpoint that functions/<name>/main.go
// starts.
package api
