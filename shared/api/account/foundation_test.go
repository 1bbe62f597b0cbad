package account_test

import (
	"context"
	"net/url"
	"regexp"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/model"
)

var msZ = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

func TestPing(t *testing.T) {
	env := testenv.New(t)
	status, body := apitest.Do(t, env.API, "Ping", apigwtest.Call{AccountID: "acc_x"})
	if status != 200 || body["data"] != "pong!" {
		t.Fatalf("got %d %v", status, body)
	}
}

func TestGetAccount(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Acme Inc")
	all := "churn_recognition,churn_when_zero_mrr,auto_churn_subscription,refund_handling,proximate_movement_reclassification"
	tests := []struct {
		name       string
		include    string
		wantStatus int
		want       map[string]any
	}{
		{"plain", "", 200, map[string]any{"id": acc.ID, "name": "Acme Inc", "currency": "USD", "time_zone": "UTC", "week_start_on": "monday"}},
		{"all settings", all, 200, map[string]any{"id": acc.ID, "name": "Acme Inc", "currency": "USD", "time_zone": "UTC",
			"week_start_on": "monday", "churn_recognition": "churn_at_time_of_cancelation", "churn_when_zero_mrr": false,
			"auto_churn_subscription": false, "refund_handling": "refund_ignore", "proximate_movement_reclassification": "reclassification_off"}},
		{"one setting", "refund_handling", 200, map[string]any{"id": acc.ID, "name": "Acme Inc", "currency": "USD",
			"time_zone": "UTC", "week_start_on": "monday", "refund_handling": "refund_ignore"}},
		{"unknown include", "refund_handling,color", 400, map[string]any{"code": float64(400),
			"message": "Invalid include parameter: color", "param": "include"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := url.Values{}
			if tt.include != "" {
				q.Set("include", tt.include)
			}
			status, body := apitest.Do(t, env.API, "GetAccount", apigwtest.Call{Query: q, AccountID: acc.ID})
			if status != tt.wantStatus || len(body) != len(tt.want) {
				t.Fatalf("got %d %v", status, body)
			}
			for k, v := range tt.want {
				if body[k] != v {
					t.Errorf("%s = %v, want %v", k, body[k], v)
				}
			}
		})
	}
}

func TestAccountSettingsComeFromTheStore(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Acme Inc")
	st := acc.Settings
	if err := st.Set("churn_when_zero_mrr", "true"); err != nil {
		t.Fatal(err)
	}
	if err := env.Deps.Store.UpdateSettings(context.Background(), acc.ID, st); err != nil {
		t.Fatal(err)
	}
	_, body := apitest.Do(t, env.API, "GetAccount", apigwtest.Call{
		Query: url.Values{"include": {"churn_when_zero_mrr"}}, AccountID: acc.ID})
	if body["churn_when_zero_mrr"] != true {
		t.Fatalf("setting not applied: %v", body)
	}
}

func TestDataSourceLifecycle(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Acme Inc")
	other := env.NewAccount(t, "Other Co")
	d := env.API
	call := func(op string, params map[string]string, q url.Values, body any, accountID string) (int, map[string]any) {
		return apitest.Do(t, d, op, apigwtest.Call{PathParams: params, Query: q, Body: body, AccountID: accountID})
	}

	status, created := call("CreateDataSource", nil, nil, map[string]any{"name": "Billing"}, acc.ID)
	if status != 201 || created["name"] != "Billing" || created["system"] != model.SystemImportAPI || created["status"] != "idle" {
		t.Fatalf("create: %d %v", status, created)
	}
	uuid, _ := created["uuid"].(string)
	if !regexp.MustCompile(`^ds_[0-9a-f-]{36}$`).MatchString(uuid) || !msZ.MatchString(created["created_at"].(string)) {
		t.Fatalf("create shape: %v", created)
	}
	call("CreateDataSource", nil, nil, map[string]any{"name": "Stripe copy"}, acc.ID)

	status, got := call("GetDataSource", map[string]string{"uuid": uuid}, nil, nil, acc.ID)
	if status != 200 || got["uuid"] != uuid || len(got) != 5 {
		t.Fatalf("retrieve: %d %v", status, got)
	}

	lists := []struct {
		name    string
		query   url.Values
		account string
		want    int
	}{
		{"all", nil, acc.ID, 2},
		{"by name", url.Values{"name": {"Billing"}}, acc.ID, 1},
		{"by system", url.Values{"system": {"Import API"}}, acc.ID, 2},
		{"other system", url.Values{"system": {"Stripe"}}, acc.ID, 0},
		{"other account sees nothing", nil, other.ID, 0},
	}
	for _, l := range lists {
		status, body := call("ListDataSources", nil, l.query, nil, l.account)
		items, _ := body["data_sources"].([]any)
		if status != 200 || len(items) != l.want || len(body) != 1 {
			t.Errorf("list %s: %d %v", l.name, status, body)
		}
	}

	notFound := map[string]any{"error": "Data source not found"}
	for _, c := range []struct {
		name, op, uuid, account string
	}{
		{"other account retrieve", "GetDataSource", uuid, other.ID},
		{"other account delete", "DeleteDataSource", uuid, other.ID},
		{"malformed uuid", "GetDataSource", "ds_nope", acc.ID},
		{"unknown uuid", "GetDataSource", "ds_00000000-0000-0000-0000-000000000000", acc.ID},
	} {
		status, body := call(c.op, map[string]string{"uuid": c.uuid}, nil, nil, c.account)
		if status != 404 || body["error"] != notFound["error"] {
			t.Errorf("%s: %d %v", c.name, status, body)
		}
	}

	status, body := call("DeleteDataSource", map[string]string{"uuid": uuid}, nil, nil, acc.ID)
	if status != 204 || body != nil {
		t.Fatalf("delete: %d %v", status, body)
	}
	if status, _ := call("GetDataSource", map[string]string{"uuid": uuid}, nil, nil, acc.ID); status != 404 {
		t.Fatalf("deleted source still readable: %d", status)
	}
	if _, body := call("ListDataSources", nil, nil, nil, acc.ID); len(body["data_sources"].([]any)) != 1 {
		t.Fatalf("deleted source still listed: %v", body)
	}
	if queued := env.ReceiveJobs(t); len(queued) != 1 || queued[0].Type != jobs.PurgeDataSource {
		t.Fatalf("purge job not queued: %v", queued)
	}
}

func TestCreateDataSourceValidation(t *testing.T) {
	env := testenv.New(t)
	acc := env.NewAccount(t, "Acme Inc")
	long := make([]byte, 256)
	for i := range long {
		long[i] = 'a'
	}
	tests := []struct {
		name       string
		body       any
		wantStatus int
		wantBody   string
	}{
		{"missing name", map[string]any{}, 400, `{"code":400,"message":"Parameter \"name\" is missing","param":"name"}`},
		{"empty body", "", 400, `{"code":400,"message":"Parameter \"name\" is missing","param":"name"}`},
		{"null name", map[string]any{"name": nil}, 422, `{"errors":{"name":"A name is required for each data source."}}`},
		{"blank name", map[string]any{"name": "  "}, 422, `{"errors":{"name":"A name is required for each data source."}}`},
		{"name not a string", map[string]any{"name": 5}, 400, ""},
		{"name too long", map[string]any{"name": string(long)}, 422, ""},
		{"malformed JSON", `{"name":`, 400, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := apitest.Raw(t, env.API, "CreateDataSource", apigwtest.Call{Body: tt.body, AccountID: acc.ID})
			if resp.StatusCode != tt.wantStatus || (tt.wantBody != "" && resp.Body != tt.wantBody) {
				t.Fatalf("got %d %s", resp.StatusCode, resp.Body)
			}
		})
	}
	if _, body := apitest.Do(t, env.API, "ListDataSources", apigwtest.Call{AccountID: acc.ID}); len(body["data_sources"].([]any)) != 0 {
		t.Fatalf("a refused create stored something: %v", body)
	}
}
