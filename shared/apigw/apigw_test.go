package apigw_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/apperr"
)

func endpoint(f apperr.Family, h apigw.Handler) apigw.Endpoint {
	return apigw.Endpoint{Family: f, Handler: h}
}

func TestWrapRendersOutcomes(t *testing.T) {
	tests := []struct {
		name       string
		family     apperr.Family
		account    string
		handler    apigw.Handler
		wantStatus int
		wantBody   string
	}{
		{"no account is ChartMogul's 401", apperr.FamilyB, "", nil, 401,
			`{"code":401,"message":"No valid API key provided","param":null}`},
		{"success", apperr.FamilyA, "acc_1", func(context.Context, *apigw.Request) (apigw.Response, error) {
			return apigw.JSON(200, map[string]string{"data": "pong!"})
		}, 200, `{"data":"pong!"}`},
		{"no content", apperr.FamilyA, "acc_1", func(context.Context, *apigw.Request) (apigw.Response, error) {
			return apigw.NoContent()
		}, 204, ``},
		{"client error in the endpoint's family", apperr.FamilyB, "acc_1", func(context.Context, *apigw.Request) (apigw.Response, error) {
			return apigw.Response{}, apperr.NotFound("plan_uuid", "Plan not found")
		}, 404, `{"error":"Plan not found","error_details":[{"param":"plan_uuid","code":"invalid","message":"Plan not found"}]}`},
		{"internal error hides its detail", apperr.FamilyA, "acc_1", func(context.Context, *apigw.Request) (apigw.Response, error) {
			return apigw.Response{}, errors.New("dynamodb: secret table name leaked")
		}, 500, `{"code":500,"message":"Internal server error","param":null}`},
		{"panic is a 500", apperr.FamilyA, "acc_1", func(context.Context, *apigw.Request) (apigw.Response, error) {
			panic("boom")
		}, 500, `{"code":500,"message":"Internal server error","param":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			called := false
			h := tt.handler
			ep := endpoint(tt.family, func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
				called = true
				return h(ctx, r)
			})
			resp := apigwtest.Raw(t, ep, apigwtest.Call{Method: "GET", Route: "/v1/x", AccountID: tt.account})
			if resp.StatusCode != tt.wantStatus || resp.Body != tt.wantBody {
				t.Fatalf("got %d %s, want %d %s", resp.StatusCode, resp.Body, tt.wantStatus, tt.wantBody)
			}
			if tt.account == "" && called {
				t.Fatal("handler ran without an account")
			}
			if tt.wantBody != "" && !strings.HasPrefix(resp.Headers["Content-Type"], "application/json") {
				t.Fatalf("content type %q", resp.Headers["Content-Type"])
			}
		})
	}
}

func TestDecode(t *testing.T) {
	type body struct {
		Name  string `json:"name"`
		Count int    `json:"count"`
	}
	tests := []struct {
		name    string
		raw     string
		wantErr int
	}{
		{"empty body is {}", "", 0},
		{"unknown fields are accepted", `{"name":"a","extra":1}`, 0},
		{"malformed JSON", `{"name":`, http.StatusBadRequest},
		{"wrong type", `{"count":"x"}`, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got error
			ep := endpoint(apperr.FamilyA, func(_ context.Context, r *apigw.Request) (apigw.Response, error) {
				var b body
				got = r.Decode(&b)
				return apigw.NoContent()
			})
			apigwtest.Raw(t, ep, apigwtest.Call{Method: "POST", Route: "/v1/x", AccountID: "acc_1", Body: tt.raw})
			if tt.wantErr == 0 && got != nil {
				t.Fatalf("unexpected error %v", got)
			}
			if tt.wantErr != 0 {
				e, ok := apperr.As(got)
				if !ok || e.Status != tt.wantErr {
					t.Fatalf("got %v, want status %d", got, tt.wantErr)
				}
			}
		})
	}
}

func TestPerPage(t *testing.T) {
	tests := []struct {
		raw  string
		want int
		bad  bool
	}{
		{"", 200, false}, {"1", 1, false}, {"50", 50, false}, {"200", 200, false}, {"201", 200, false},
		{"100000", 200, false}, {"0", 0, true}, {"-1", 0, true}, {"abc", 0, true}, {"1.5", 0, true},
	}
	for _, tt := range tests {
		var got int
		var err error
		ep := endpoint(apperr.FamilyA, func(_ context.Context, r *apigw.Request) (apigw.Response, error) {
			got, err = r.PerPage()
			return apigw.NoContent()
		})
		q := url.Values{}
		if tt.raw != "" {
			q.Set("per_page", tt.raw)
		}
		apigwtest.Raw(t, ep, apigwtest.Call{Method: "GET", Route: "/v1/x", AccountID: "acc_1", Query: q})
		if tt.bad != (err != nil) || (!tt.bad && got != tt.want) {
			t.Errorf("per_page=%q: got %d, %v", tt.raw, got, err)
		}
	}
}
