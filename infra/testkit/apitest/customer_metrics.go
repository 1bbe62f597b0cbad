package apitest

import (
	"net/url"
	"testing"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
)

// Call calls the operation named as account, on the customer when it is not empty.
func Call(t *testing.T, d *api.Deps, operation, account, customer string, q url.Values, body any) (int, map[string]any) {
	t.Helper()
	c := apigwtest.Call{Query: q, Body: body, AccountID: account}
	if customer != "" {
		c.PathParams = map[string]string{"customer_uuid": customer}
	}
	return Do(t, d, operation, c)
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
