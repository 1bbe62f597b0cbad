//go:build linux

package rie

import (
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/dashboard"
)

// dashboardCase: the dashboard's function, which API Gateway calls without the
// authorizer, serves the page the build embedded, with its security headers, and every
// asset the page names (gzipped when asked), from the read-only task directory with no
// AWS service.
func dashboardCase(t *testing.T, fn *function) {
	call := func(route, file string, headers map[string]string) events.APIGatewayV2HTTPResponse {
		t.Helper()
		c := apigwtest.Call{Method: "GET", Route: route}
		if file != "" {
			c.PathParams = map[string]string{"file": file}
		}
		ev := c.Event()
		ev.RequestContext.Authorizer = nil // no authorizer on these routes
		for k, v := range headers {
			ev.Headers[k] = v
		}
		var res events.APIGatewayV2HTTPResponse
		if raw := fn.invoke(t, ev); json.Unmarshal(raw, &res) != nil || res.StatusCode == 0 {
			t.Fatalf("GET %s: not an API Gateway answer: %s", ev.RawPath, raw)
		}
		return res
	}
	page := call("/", "", nil)
	if page.StatusCode != 200 || !strings.HasPrefix(page.Headers["Content-Type"], "text/html") ||
		page.Headers["Content-Security-Policy"] != dashboard.ContentSecurityPolicy || page.Headers["X-Content-Type-Options"] != "nosniff" {
		t.Fatalf("page: %d %v\n%.300s", page.StatusCode, page.Headers, page.Body)
	}
	refs := regexp.MustCompile(`(?:src|href)="/assets/([^"]+)"`).FindAllStringSubmatch(page.Body, -1)
	if len(refs) < 2 {
		t.Fatalf("the page names %d assets: %.500s", len(refs), page.Body)
	}
	for _, ref := range refs {
		a := call("/assets/{file}", ref[1], map[string]string{"accept-encoding": "gzip"})
		if a.StatusCode != 200 || !strings.Contains(a.Headers["Cache-Control"], "immutable") {
			t.Errorf("%s: %d %v", ref[1], a.StatusCode, a.Headers)
		}
		if strings.HasSuffix(ref[1], ".js") {
			if raw, err := base64.StdEncoding.DecodeString(a.Body); err != nil || !a.IsBase64Encoded ||
				a.Headers["Content-Encoding"] != "gzip" || len(raw) < 2 || raw[0] != 0x1f || raw[1] != 0x8b {
				t.Errorf("%s: not gzipped (%v, encoding %q)", ref[1], err, a.Headers["Content-Encoding"])
			}
		}
	}
	if nf := call("/assets/{file}", "missing-0000.js", nil); nf.StatusCode != 404 {
		t.Errorf("unknown asset: %d", nf.StatusCode)
	}
}
