package apitest

import (
	"net/url"
	"testing"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
)

const (
	CustSubsRoute   = "/v1/customers/{customer_uuid}/subscriptions"
	CustActsRoute   = "/v1/customers/{customer_uuid}/activities"
	ConnectRoute    = "/v1/customers/{customer_uuid}/connect_subscriptions"
	DisconnectRoute = "/v1/customers/{customer_uuid}/disconnect_subscriptions"
	MergesRoute     = "/v1/customers/merges"
)

func Call(t *testing.T, d *api.Deps, build func(*api.Deps) apigw.Endpoint, method, route, account, customer string,
	q url.Values, body any) (int, map[string]any) {
	t.Helper()
	c := apigwtest.Call{Method: method, Route: route, Query: q, Body: body, AccountID: account}
	if customer != "" {
		c.PathParams = map[string]string{"customer_uuid": customer}
	}
	return apigwtest.Do(t, build(d), c)
}

func Entries(t *testing.T, body map[string]any) []map[string]any {
	t.Helper()
	raw, _ := body["entries"].([]any)
	out := make([]map[string]any, len(raw))
	for i, e := range raw {
		out[i] = e.(map[string]any)
	}
	return out
}
