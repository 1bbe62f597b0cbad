package apitest

import (
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/routes"
)

// Operation is the HTTP operation the registry declares under name (its function's
// name without "Function", e.g. "GetCustomer"); a name the registry does not hold, or
// one of a function without a route, fails the test.
func Operation(t testing.TB, name string) routes.Function {
	t.Helper()
	f, ok := routes.Lookup(name + "Function")
	if !ok || f.API == nil {
		t.Fatalf("the registry declares no HTTP operation %q", name)
	}
	return f
}

// addressed is c addressed to the operation named: the method and route are the registry's,
// so a test cannot call a handler on a route it is not declared on.
func addressed(t testing.TB, name string, c apigwtest.Call) apigwtest.Call {
	t.Helper()
	if c.Method != "" || c.Route != "" {
		t.Fatalf("%s: the call names method and route %s %s; the registry gives them", name, c.Method, c.Route)
	}
	route := Operation(t, name).Routes[0]
	c.Method, c.Route = route.Method, route.Path
	return c
}

// Do calls the operation named through apigw as Lambda would (its registered handler
// built on d), with c's path parameters, query, body and account, and returns the
// status and the decoded JSON body.
func Do(t testing.TB, d *api.Deps, name string, c apigwtest.Call) (int, map[string]any) {
	t.Helper()
	return apigwtest.Do(t, Operation(t, name).API(d), addressed(t, name, c))
}

// Raw is Do returning the response as is.
func Raw(t testing.TB, d *api.Deps, name string, c apigwtest.Call) events.APIGatewayV2HTTPResponse {
	t.Helper()
	return apigwtest.Raw(t, Operation(t, name).API(d), addressed(t, name, c))
}
