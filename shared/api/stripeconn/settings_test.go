package stripeconn_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/workers"
)

// defaultSettings are ChartMogul's defaults as the API shows them, changed by change.
func defaultSettings(change func(s map[string]any)) map[string]any {
	rules := func() map[string]any {
		return map[string]any{"create_subscription_when_invoice_is": "paid", "update_subscription_when_invoice_is": "open",
			"prevent_subscription_for_invoice_voided": true, "prevent_subscription_for_invoice_written_off": true}
	}
	s := map[string]any{"deleted_customers": "keep_anonymised", "metered_usage": "exclude", "churn_recognition": nil,
		"refund_handling": nil, "invoice_handling": map[string]any{"automatic": rules(), "manual": rules()}}
	if change != nil {
		change(s)
	}
	return s
}

// rules is one collection method's rules in want.
func rules(s map[string]any, method string) map[string]any {
	return s["invoice_handling"].(map[string]any)[method].(map[string]any)
}

// connected is a data source of a new account connected to Stripe, with the jobs
// queue emptied of the connection's own job.
func connected(t *testing.T, env *testenv.Env) (accountID, dsUUID string) {
	t.Helper()
	acc := env.NewAccount(t, "Stripe user")
	ds := env.NewDataSource(t, acc.ID, "Stripe")
	if status, body := connection(t, env.API, "PutStripeConnection", acc.ID, ds.UUID, map[string]any{"webhook_secret": webhookSecret}); status != http.StatusOK {
		t.Fatalf("PUT: %d %v", status, body)
	}
	if got := sourceJobs(t, env, acc.ID, ds.UUID); got != 1 {
		t.Fatalf("a first connection queued %d recomputations of its source, want 1", got)
	}
	return acc.ID, ds.UUID
}

// sourceJobs receives the jobs queue and counts the recomputations of the data source.
func sourceJobs(t *testing.T, env *testenv.Env, accountID, dsUUID string) int {
	t.Helper()
	n := 0
	for _, m := range env.ReceiveJobs(t) {
		if m.Type == jobs.RecomputeDataSourceCustomers && m.AccountID == accountID && m.DataSourceUUID == dsUUID {
			n++
		}
	}
	return n
}

// storedSettings reads the settings back through GET.
func storedSettings(t *testing.T, env *testenv.Env, accountID, dsUUID string) map[string]any {
	t.Helper()
	status, body := connection(t, env.API, "GetStripeSettings", accountID, dsUUID, nil)
	if status != http.StatusOK {
		t.Fatalf("GET settings: %d %v", status, body)
	}
	return body
}

// TestSettingsAccepted: every key of the settings, through PATCH (the settings object)
// and PUT (its settings), each on a fresh connection: the answer and GET show the
// settings with only what was sent changed, and a change of churn recognition, refund
// handling or invoice handling queues the recomputation of the source, nothing else
// does.
func TestSettingsAccepted(t *testing.T) {
	env := testenv.New(t)
	tests := []struct {
		name string
		sent map[string]any
		want map[string]any
		job  bool
	}{
		{"nothing", map[string]any{}, defaultSettings(nil), false},
		{"deleted customers", map[string]any{"deleted_customers": "delete"},
			defaultSettings(func(s map[string]any) { s["deleted_customers"] = "delete" }), false},
		{"metered usage as it is", map[string]any{"metered_usage": "exclude"}, defaultSettings(nil), false},
		{"churn recognition", map[string]any{"churn_recognition": "churn_at_period_end"},
			defaultSettings(func(s map[string]any) { s["churn_recognition"] = "churn_at_period_end" }), true},
		{"churn recognition at click", map[string]any{"churn_recognition": "churn_at_click"},
			defaultSettings(func(s map[string]any) { s["churn_recognition"] = "churn_at_click" }), true},
		{"churn recognition null, as it is", map[string]any{"churn_recognition": nil}, defaultSettings(nil), false},
		{"refund handling", map[string]any{"refund_handling": "refund_full_only"},
			defaultSettings(func(s map[string]any) { s["refund_handling"] = "refund_full_only" }), true},
		{"refund handling, the account's default set here", map[string]any{"refund_handling": "refund_ignore"},
			defaultSettings(func(s map[string]any) { s["refund_handling"] = "refund_ignore" }), true},
		{"manual invoices created when issued", map[string]any{"invoice_handling": map[string]any{
			"manual": map[string]any{"create_subscription_when_invoice_is": "open"}}},
			defaultSettings(func(s map[string]any) { rules(s, "manual")["create_subscription_when_invoice_is"] = "open" }), true},
		{"automatic invoices updated when paid", map[string]any{"invoice_handling": map[string]any{
			"automatic": map[string]any{"update_subscription_when_invoice_is": "paid"}}},
			defaultSettings(func(s map[string]any) { rules(s, "automatic")["update_subscription_when_invoice_is"] = "paid" }), true},
		{"partially paid", map[string]any{"invoice_handling": map[string]any{
			"automatic": map[string]any{"create_subscription_when_invoice_is": "partially_paid"}}},
			defaultSettings(func(s map[string]any) {
				rules(s, "automatic")["create_subscription_when_invoice_is"] = "partially_paid"
			}), true},
		{"voided invoices counted", map[string]any{"invoice_handling": map[string]any{
			"manual": map[string]any{"prevent_subscription_for_invoice_voided": false}}},
			defaultSettings(func(s map[string]any) { rules(s, "manual")["prevent_subscription_for_invoice_voided"] = false }), true},
		{"written-off invoices counted", map[string]any{"invoice_handling": map[string]any{
			"automatic": map[string]any{"prevent_subscription_for_invoice_written_off": false}}},
			defaultSettings(func(s map[string]any) { rules(s, "automatic")["prevent_subscription_for_invoice_written_off"] = false }), true},
		{"invoice handling as it is", map[string]any{"invoice_handling": map[string]any{"automatic": map[string]any{},
			"manual": map[string]any{"create_subscription_when_invoice_is": "paid"}}}, defaultSettings(nil), false},
		{"everything at once", map[string]any{"deleted_customers": "delete", "churn_recognition": "churn_at_click",
			"refund_handling": "refund_full_only", "invoice_handling": map[string]any{
				"automatic": map[string]any{"create_subscription_when_invoice_is": "open", "prevent_subscription_for_invoice_voided": false},
				"manual":    map[string]any{"update_subscription_when_invoice_is": "paid", "prevent_subscription_for_invoice_written_off": false}}},
			defaultSettings(func(s map[string]any) {
				s["deleted_customers"], s["churn_recognition"], s["refund_handling"] = "delete", "churn_at_click", "refund_full_only"
				rules(s, "automatic")["create_subscription_when_invoice_is"] = "open"
				rules(s, "automatic")["prevent_subscription_for_invoice_voided"] = false
				rules(s, "manual")["update_subscription_when_invoice_is"] = "paid"
				rules(s, "manual")["prevent_subscription_for_invoice_written_off"] = false
			}), true},
	}
	for _, via := range []string{"UpdateStripeSettings", "PutStripeConnection"} {
		for _, tt := range tests {
			t.Run(via+"/"+tt.name, func(t *testing.T) {
				acc, ds := connected(t, env)
				var body any = tt.sent
				if via == "PutStripeConnection" {
					body = map[string]any{"webhook_secret": webhookSecret, "settings": tt.sent}
				}
				status, got := connection(t, env.API, via, acc, ds, body)
				if status != http.StatusOK {
					t.Fatalf("%d %v", status, got)
				}
				if via == "PutStripeConnection" {
					got, _ = got["settings"].(map[string]any)
				}
				if !equalJSON(got, tt.want) {
					t.Errorf("answer %v\nwant %v", got, tt.want)
				}
				if stored := storedSettings(t, env, acc, ds); !equalJSON(stored, tt.want) {
					t.Errorf("stored %v\nwant %v", stored, tt.want)
				}
				if n := sourceJobs(t, env, acc, ds); n != map[bool]int{true: 1}[tt.job] {
					t.Errorf("%d recomputations of the source queued, want a job %v", n, tt.job)
				}
			})
		}
	}
}

// TestSettingsRefused: each unknown key or wrong value is a 422 in the data sources'
// family naming its path (below settings. for PUT, from the body for PATCH), and
// changes nothing: neither the settings nor the jobs queue.
func TestSettingsRefused(t *testing.T) {
	env := testenv.New(t)
	acc, ds := connected(t, env)
	manual := func(k string, v any) map[string]any {
		return map[string]any{"invoice_handling": map[string]any{"manual": map[string]any{k: v}}}
	}
	tests := []struct {
		name  string
		sent  map[string]any
		param string
	}{
		{"an unknown key", map[string]any{"colour": "blue"}, "colour"},
		{"an unknown deleted customers", map[string]any{"deleted_customers": "forget"}, "deleted_customers"},
		{"a null deleted customers", map[string]any{"deleted_customers": nil}, "deleted_customers"},
		{"metered usage included", map[string]any{"metered_usage": "include"}, "metered_usage"},
		{"metered usage a number", map[string]any{"metered_usage": 1}, "metered_usage"},
		{"an unknown churn recognition", map[string]any{"churn_recognition": "never"}, "churn_recognition"},
		{"a churn recognition not a string", map[string]any{"churn_recognition": true}, "churn_recognition"},
		{"an unknown refund handling", map[string]any{"refund_handling": "refund_all"}, "refund_handling"},
		{"an empty refund handling", map[string]any{"refund_handling": ""}, "refund_handling"},
		{"a null invoice handling", map[string]any{"invoice_handling": nil}, "invoice_handling"},
		{"an invoice handling not an object", map[string]any{"invoice_handling": "paid"}, "invoice_handling"},
		{"an unknown collection method", map[string]any{"invoice_handling": map[string]any{"weekly": map[string]any{}}}, "invoice_handling.weekly"},
		{"rules not an object", map[string]any{"invoice_handling": map[string]any{"automatic": []any{}}}, "invoice_handling.automatic"},
		{"null rules", map[string]any{"invoice_handling": map[string]any{"manual": nil}}, "invoice_handling.manual"},
		{"created when draft", manual("create_subscription_when_invoice_is", "draft"), "invoice_handling.manual.create_subscription_when_invoice_is"},
		{"updated when null", manual("update_subscription_when_invoice_is", nil), "invoice_handling.manual.update_subscription_when_invoice_is"},
		{"a prevent not a boolean", manual("prevent_subscription_for_invoice_voided", "yes"), "invoice_handling.manual.prevent_subscription_for_invoice_voided"},
		{"a null prevent", manual("prevent_subscription_for_invoice_written_off", nil), "invoice_handling.manual.prevent_subscription_for_invoice_written_off"},
		{"refunds per method", manual("prevent_subscription_for_invoice_refunded", true), "invoice_handling.manual.prevent_subscription_for_invoice_refunded"},
		{"an unknown rule", manual("create_when", "paid"), "invoice_handling.manual.create_when"},
		{"a good key beside a wrong one", map[string]any{"churn_recognition": "churn_at_click", "refund_handling": "x"}, "refund_handling"},
	}
	for _, via := range []string{"UpdateStripeSettings", "PutStripeConnection"} {
		for _, tt := range tests {
			t.Run(via+"/"+tt.name, func(t *testing.T) {
				var body any = tt.sent
				param := tt.param
				if via == "PutStripeConnection" {
					body, param = map[string]any{"webhook_secret": webhookSecret, "settings": tt.sent}, "settings."+tt.param
				}
				resp := apitest.Raw(t, env.API, via, apigwtest.Call{PathParams: map[string]string{"data_source_uuid": ds},
					Body: body, AccountID: acc})
				if resp.StatusCode != http.StatusUnprocessableEntity {
					t.Fatalf("%d %s, want 422", resp.StatusCode, resp.Body)
				}
				var got struct {
					Error   string `json:"error"`
					Details []struct {
						Param, Code, Message string
					} `json:"error_details"`
				}
				if err := json.Unmarshal([]byte(resp.Body), &got); err != nil || len(got.Details) != 1 {
					t.Fatalf("not the data sources' error family: %s", resp.Body)
				}
				if d := got.Details[0]; d.Param != param || !strings.HasPrefix(d.Message, param+" ") || got.Error != d.Message {
					t.Errorf("error %s, want it to name %s", resp.Body, param)
				}
				if stored := storedSettings(t, env, acc, ds); !equalJSON(stored, defaultSettings(nil)) {
					t.Errorf("the settings changed: %v", stored)
				}
				if n := sourceJobs(t, env, acc, ds); n != 0 {
					t.Errorf("%d recomputations queued", n)
				}
			})
		}
	}
	for _, bad := range []any{"not json", []any{"churn_recognition"}} {
		resp := apitest.Raw(t, env.API, "UpdateStripeSettings", apigwtest.Call{PathParams: map[string]string{"data_source_uuid": ds},
			Body: bad, AccountID: acc})
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("PATCH %v: %d %s, want 400", bad, resp.StatusCode, resp.Body)
		}
	}
}

// TestSettingsPartialUpdates: one connection through a series of PATCHes: each keeps
// what it does not send, nested rules included; null churn recognition and refund
// handling return to the account's; PUT without settings keeps them all.
func TestSettingsPartialUpdates(t *testing.T) {
	env := testenv.New(t)
	acc, ds := connected(t, env)
	want := defaultSettings(nil)
	steps := []struct {
		name   string
		op     string
		sent   map[string]any
		change func(s map[string]any)
		job    bool
	}{
		{"churn at click", "UpdateStripeSettings", map[string]any{"churn_recognition": "churn_at_click"},
			func(s map[string]any) { s["churn_recognition"] = "churn_at_click" }, true},
		{"refunds, churn kept", "UpdateStripeSettings", map[string]any{"refund_handling": "refund_full_only"},
			func(s map[string]any) { s["refund_handling"] = "refund_full_only" }, true},
		{"one manual rule", "UpdateStripeSettings", map[string]any{"invoice_handling": map[string]any{"manual": map[string]any{
			"create_subscription_when_invoice_is": "open"}}},
			func(s map[string]any) { rules(s, "manual")["create_subscription_when_invoice_is"] = "open" }, true},
		{"another manual rule, the first kept", "UpdateStripeSettings", map[string]any{"invoice_handling": map[string]any{"manual": map[string]any{
			"prevent_subscription_for_invoice_voided": false}}},
			func(s map[string]any) { rules(s, "manual")["prevent_subscription_for_invoice_voided"] = false }, true},
		{"deleted customers alone", "UpdateStripeSettings", map[string]any{"deleted_customers": "delete"},
			func(s map[string]any) { s["deleted_customers"] = "delete" }, false},
		{"PUT without settings keeps them", "PutStripeConnection", nil, func(map[string]any) {}, false},
		{"churn back to the account's", "UpdateStripeSettings", map[string]any{"churn_recognition": nil},
			func(s map[string]any) { s["churn_recognition"] = nil }, true},
		{"refunds back to the account's through PUT", "PutStripeConnection", map[string]any{"refund_handling": nil},
			func(s map[string]any) { s["refund_handling"] = nil }, true},
		{"the same again", "UpdateStripeSettings", map[string]any{"churn_recognition": nil, "refund_handling": nil},
			func(map[string]any) {}, false},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			var body any = s.sent
			if s.op == "PutStripeConnection" {
				put := map[string]any{"webhook_secret": webhookSecret}
				if s.sent != nil {
					put["settings"] = s.sent
				}
				body = put
			}
			if status, got := connection(t, env.API, s.op, acc, ds, body); status != http.StatusOK {
				t.Fatalf("%d %v", status, got)
			}
			s.change(want)
			if stored := storedSettings(t, env, acc, ds); !equalJSON(stored, want) {
				t.Errorf("stored %v\nwant %v", stored, want)
			}
			if n := sourceJobs(t, env, acc, ds); n != map[bool]int{true: 1}[s.job] {
				t.Errorf("%d recomputations of the source queued, want a job %v", n, s.job)
			}
		})
	}
}

// TestSettingsOfOtherDataSources: GET and PATCH answer as GET of the connection does
// for an unknown data source, another account's, one being deleted and one not
// connected; account B holding A's uuid changes nothing of A's and queues nothing.
func TestSettingsOfOtherDataSources(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	a, dsA := connected(t, env)
	_, deleting := connected(t, env)
	deletingAcc := ""
	if conn, err := env.Deps.Store.GetStripeConnection(ctx, deleting); err == nil {
		deletingAcc = conn.AccountID
	}
	if err := env.Deps.Store.MarkDataSourceDeleting(ctx, deletingAcc, deleting); err != nil {
		t.Fatal(err)
	}
	b := env.NewAccount(t, "B")
	dsB := env.NewDataSource(t, b.ID, "B's own")
	notConnected := env.NewDataSource(t, a, "Not connected")
	before, err := env.Deps.Store.GetStripeConnection(ctx, dsA)
	if err != nil {
		t.Fatal(err)
	}
	patch := map[string]any{"churn_recognition": "churn_at_click"}
	tests := []struct {
		name, account, ds, error string
	}{
		{"B with A's uuid", b.ID, dsA, "Data source not found"},
		{"A with B's unconnected uuid", a, dsB.UUID, "Data source not found"},
		{"an unknown data source", a, "ds_00000000-0000-0000-0000-000000000000", "Data source not found"},
		{"a malformed uuid", a, "nonsense", "Data source not found"},
		{"one being deleted", deletingAcc, deleting, "Data source not found"},
		{"one not connected", a, notConnected.UUID, "Stripe connection not found"},
	}
	for _, tt := range tests {
		for _, op := range []string{"GetStripeSettings", "UpdateStripeSettings"} {
			t.Run(op+"/"+tt.name, func(t *testing.T) {
				status, body := connection(t, env.API, op, tt.account, tt.ds, patch)
				if status != http.StatusNotFound || body["error"] != tt.error {
					t.Fatalf("%d %v, want 404 %q", status, body, tt.error)
				}
			})
		}
	}
	after, err := env.Deps.Store.GetStripeConnection(ctx, dsA)
	if err != nil || after.Settings != before.Settings || !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Fatalf("A's connection changed: %+v, %v", after.Settings, err)
	}
	if jobs := env.ReceiveJobs(t); len(jobs) != 0 {
		t.Fatalf("jobs queued: %+v", jobs)
	}
}

// TestSettingsChangeRecomputesTheSourcesCustomers: through the jobs worker, a PATCH
// that moves metrics ends in one recompute job per customer of the source (in the
// bulk lane), none for another source's customer; a PATCH of deleted_customers alone
// queues nothing.
func TestSettingsChangeRecomputesTheSourcesCustomers(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	acc, ds := connected(t, env)
	other := env.NewDataSource(t, acc, "Other")
	newCustomer := func(dsUUID, xid string) string {
		id, err := env.Deps.Store.NextCustomerID(ctx, acc)
		if err != nil {
			t.Fatal(err)
		}
		c := model.Customer{AccountID: acc, UUID: ids.New(ids.Customer), ID: id, DataSourceUUID: dsUUID,
			DataSourceUUIDs: []string{dsUUID}, ExternalID: xid, ExternalIDs: []string{xid}, Name: xid,
			Status: model.StatusNewLead, CreatedAt: env.Deps.Now()}
		if err := env.Deps.Store.CreateCustomer(ctx, c); err != nil {
			t.Fatal(err)
		}
		return c.UUID
	}
	want := map[string]bool{newCustomer(ds, "cus_A"): true, newCustomer(ds, "cus_B"): true, newCustomer(ds, "cus_C"): true}
	newCustomer(other.UUID, "cus_elsewhere")

	tests := []struct {
		name string
		sent map[string]any
		want map[string]bool
	}{
		{"refund handling", map[string]any{"refund_handling": "refund_full_only"}, want},
		{"deleted customers alone", map[string]any{"deleted_customers": "delete"}, nil},
		{"invoice handling", map[string]any{"invoice_handling": map[string]any{"automatic": map[string]any{
			"create_subscription_when_invoice_is": "open"}}}, want},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if status, body := connection(t, env.API, "UpdateStripeSettings", acc, ds, tt.sent); status != http.StatusOK {
				t.Fatalf("PATCH: %d %v", status, body)
			}
			testenv.Drain(t, env.Deps, env.JobsQueueURL, workers.Jobs(env.Workers))
			got := map[string]bool{}
			for _, m := range env.ReceiveJobsFrom(t, env.RecomputeQueueURL) {
				if m.Type != jobs.RecomputeCustomer || got[m.CustomerUUID] {
					t.Errorf("unexpected job %+v", m)
				}
				got[m.CustomerUUID] = true
			}
			if len(got) != len(tt.want) {
				t.Errorf("recomputations of %v, want %v", got, tt.want)
			}
			for uuid := range tt.want {
				if !got[uuid] {
					t.Errorf("customer %s not recomputed", uuid)
				}
			}
		})
	}
}
