// Package routes maps each function of template.yaml (by LogicalId) to the handler
// constructor its main.go starts, so that the local stack and the tests run exactly
// the code that the Lambda runs. Each resource family keeps its entries in its own
// file; APIs merges them.
package routes

import (
	"fmt"
	"maps"
	"regexp"
	"strings"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/api/account"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/auth"
	"github.com/subsight/subsight/shared/sqsworker"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/workers"
)

// API builds an HTTP operation.
type API = func(*api.Deps) apigw.Endpoint

var foundationAPIs = map[string]API{
	"PingFunction":             account.Ping,
	"GetAccountFunction":       account.GetAccount,
	"CreateDataSourceFunction": account.CreateDataSource,
	"ListDataSourcesFunction":  account.ListDataSources,
	"GetDataSourceFunction":    account.GetDataSource,
	"DeleteDataSourceFunction": account.DeleteDataSource,
}

// APIs are the HTTP API operations.
var APIs = merge(foundationAPIs, customerAPIs, resourceAPIs, metricsAPIs, customerMetricsAPIs, importAPIs, crmAPIs, recordAPIs)

// Workers are the SQS queue consumers.
var Workers = map[string]func(*workers.Deps) sqsworker.Handler{
	"ImportWorkerFunction": workers.Import,
	"JobsWorkerFunction":   workers.Jobs,
}

// Authorizers are the HTTP API Lambda authorizers.
var Authorizers = map[string]func(store.KeyResolver) auth.AuthorizerHandler{
	"AuthorizerFunction": auth.Authorizer,
}

func merge(parts ...map[string]API) map[string]API {
	out := map[string]API{}
	for _, p := range parts {
		for id := range p {
			if _, dup := out[id]; dup {
				panic(fmt.Sprintf("routes: %s registered twice", id))
			}
		}
		maps.Copy(out, p)
	}
	return out
}

var (
	upperRun   = regexp.MustCompile(`([A-Z]+)([A-Z][a-z])`)
	lowerUpper = regexp.MustCompile(`([a-z0-9])([A-Z])`)
)

// Folder is the folder under functions/ (and under the build output) of a function:
// its LogicalId without "Function", in kebab case (GetAccountFunction -> get-account,
// CreateCSVImportFunction -> create-csv-import). The Makefile's build-%Function rule
// applies the same rule.
func Folder(logicalID string) string {
	stem := strings.TrimSuffix(logicalID, "Function")
	stem = upperRun.ReplaceAllString(stem, "$1-$2")
	stem = lowerUpper.ReplaceAllString(stem, "$1-$2")
	return strings.ToLower(stem)
}
