//go:build linux

package rie

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/routes"
)

// fixture is the shared account that the API parity cases read and change. It is made
// in-process through the same handlers the bootstraps run (routes.APIs), so a parity
// case sends one request and finds what it needs. A case that deletes or rewrites an
// object has an object of its own here.
type fixture struct {
	t   *testing.T
	env *testenv.Env
	acc model.Account

	ds, dsDel string
	plan      string // the gold plan's uuid; its external id is "gold"
	planUpd   string
	planDel   string

	// cust has everything: invoices with two subscriptions (sub2 cancelled), tags,
	// custom attributes, contacts, notes, subscription events; its metrics are
	// computed. invoice is its first invoice.
	cust, custEmail  string
	invoice          string
	sub1, sub2       string
	custUpd, custPut string
	custDel          string
	custFrom         string // merged into custInto
	custInto         string
	// custConnected has two subscriptions connected to each other.
	custConnected string
	connected     [2]string

	contact, contactDel, contactFrom string
	note, noteDel                    string
	invDel, invDelExt, invStatusExt  string
	invPatchExt                      string
	// dsEmpty and dsPurge each hold one customer with an invoice (custEmpty,
	// custPurge): the emptying of the source deletes it, or keeps it without records.
	dsEmpty, dsPurge     string
	custEmpty, custPurge string
	event, eventDel      float64 // subscription event ids
	importID             string

	crm *crmFixture
}

const (
	fixtureFrom = "2025-01-01"
	fixtureTo   = "2025-03-31"
)

func newFixture(t *testing.T, env *testenv.Env) *fixture {
	t.Helper()
	f := &fixture{t: t, env: env, acc: env.NewAccount(t, "Parity Inc"), custEmail: "main@parity.example"}
	f.ds = f.create("CreateDataSourceFunction", nil, map[string]any{"name": "Parity billing"})["uuid"].(string)
	f.dsDel = f.create("CreateDataSourceFunction", nil, map[string]any{"name": "Parity to delete"})["uuid"].(string)
	for _, p := range []struct {
		ext string
		dst *string
	}{{"gold", &f.plan}, {"silver", &f.planUpd}, {"bronze", &f.planDel}} {
		body := f.create("CreatePlanFunction", nil, map[string]any{"data_source_uuid": f.ds, "name": p.ext,
			"external_id": p.ext, "interval_count": 1, "interval_unit": "month"})
		*p.dst = body["uuid"].(string)
	}

	f.cust = f.customer("cus-main", "Main Customer", f.custEmail)
	subs := f.invoices(f.cust, "inv-main", "sub-main")
	f.invoice, f.sub1, f.sub2 = subs.invoice, subs.subs[0], subs.subs[1]
	f.cancel(f.sub2)
	f.invDel = f.invoices(f.cust, "inv-del", "sub-del").invoice
	f.invoices(f.cust, "inv-del-ext", "sub-del-ext")
	f.invDelExt = "inv-del-ext"
	f.invoices(f.cust, "inv-status", "sub-status")
	f.invStatusExt = "inv-status"
	f.invoices(f.cust, "inv-status-patch", "sub-status-patch")
	f.invPatchExt = "inv-status-patch"
	f.dsEmpty, f.custEmpty = f.sourceWithInvoice("Parity to empty", "cus-empty")
	f.dsPurge, f.custPurge = f.sourceWithInvoice("Parity to purge", "cus-purge")
	f.call(200, "AddCustomerTagsFunction", map[string]string{"customer_uuid": f.cust}, nil, map[string]any{"tags": []string{"parity"}})
	f.call(200, "AddCustomAttributesFunction", map[string]string{"customer_uuid": f.cust}, nil,
		map[string]any{"custom": []map[string]any{{"type": "String", "key": "channel", "value": "web"}}})
	f.contact = f.newContact(f.cust, "Ada", "ada@parity.example")
	f.contactDel = f.newContact(f.cust, "Bob", "bob@parity.example")
	f.contactFrom = f.newContact(f.cust, "Cy", "cy@parity.example")
	f.note = f.newNote(f.cust, "first call went well")
	f.noteDel = f.newNote(f.cust, "to be deleted")
	f.event = f.newEvent("ev-upd")
	f.eventDel = f.newEvent("ev-del")

	f.custUpd = f.customer("cus-upd", "To Update", "upd@parity.example")
	f.custPut = f.customer("cus-put", "To Put", "put@parity.example")
	f.custDel = f.customer("cus-del", "To Delete", "del@parity.example")
	f.custFrom = f.customer("cus-from", "Merged Away", "from@parity.example")
	f.custInto = f.customer("cus-into", "Merged Into", "into@parity.example")
	f.custConnected = f.customer("cus-conn", "Connected", "conn@parity.example")
	c := f.invoices(f.custConnected, "inv-conn", "sub-conn")
	f.cancel(c.subs[1])
	f.connected = [2]string{c.subs[0], c.subs[1]}
	f.call(202, "ConnectSubscriptionsFunction", map[string]string{"customer_uuid": f.custConnected}, nil,
		connectBody(f.ds, f.connected[0], f.connected[1]))

	imp := f.call(200, "CreateJsonImportFunction", map[string]string{"data_source_uuid": f.ds}, nil, map[string]any{
		"external_id": "parity-batch-1",
		"customers":   []map[string]any{{"external_id": "cus-imported", "name": "Imported Customer", "email": "imported@parity.example"}},
	})
	f.importID = imp["id"].(string)

	f.crm = newCRMFixture(f)

	// What the workers would do on AWS: apply the import, recompute the metrics.
	testenv.Drain(t, env.Deps, env.ImportQueueURL, routes.Workers["ImportWorkerFunction"](env.Workers))
	f.runJobs(t)
	return f
}

// runJobs runs what the jobs queue holds, as the jobs worker does on AWS.
func (f *fixture) runJobs(t testing.TB) {
	t.Helper()
	f.env.DrainJobs(t, routes.Workers["JobsWorkerFunction"](f.env.Workers))
}

// sourceWithInvoice creates a data source holding one customer (external id cust) with
// a one-time invoice ("inv-"+cust), and returns their uuids.
func (f *fixture) sourceWithInvoice(name, cust string) (ds, custUUID string) {
	f.t.Helper()
	ds = f.create("CreateDataSourceFunction", nil, map[string]any{"name": name})["uuid"].(string)
	custUUID = f.create("CreateCustomerFunction", nil, map[string]any{"data_source_uuid": ds, "external_id": cust,
		"name": cust})["uuid"].(string)
	f.create("ImportCustomerInvoicesFunction", map[string]string{"customer_uuid": custUUID}, map[string]any{"invoices": []map[string]any{{
		"external_id": "inv-" + cust, "date": "2025-01-01T00:00:00Z", "currency": "USD",
		"line_items": []map[string]any{{"type": "one_time", "description": "setup", "amount_in_cents": 2500}},
	}}})
	return ds, custUUID
}

// sourceWithUnpaidSubscription creates a data source holding one customer (external id
// cust) with one unpaid invoice of a $10 monthly subscription, and returns their uuids.
func (f *fixture) sourceWithUnpaidSubscription(name, cust string) (ds, custUUID string) {
	f.t.Helper()
	ds = f.create("CreateDataSourceFunction", nil, map[string]any{"name": name})["uuid"].(string)
	plan := f.create("CreatePlanFunction", nil, map[string]any{"data_source_uuid": ds, "name": "monthly",
		"external_id": "monthly", "interval_count": 1, "interval_unit": "month"})["uuid"].(string)
	custUUID = f.create("CreateCustomerFunction", nil, map[string]any{"data_source_uuid": ds, "external_id": cust,
		"name": cust})["uuid"].(string)
	f.create("ImportCustomerInvoicesFunction", map[string]string{"customer_uuid": custUUID}, map[string]any{"invoices": []map[string]any{{
		"external_id": "inv-" + cust, "date": "2025-01-01T00:00:00Z", "currency": "USD",
		"line_items": []map[string]any{{"type": "subscription", "subscription_external_id": "sub-" + cust, "plan_uuid": plan,
			"service_period_start": "2025-01-01T00:00:00Z", "service_period_end": "2025-02-01T00:00:00Z", "amount_in_cents": 1000}},
	}}})
	return ds, custUUID
}

// call runs an operation in-process, as its bootstrap would, and fails the test
// unless it answers status.
func (f *fixture) call(status int, id string, params map[string]string, q url.Values, body any) map[string]any {
	f.t.Helper()
	got, resp := f.try(id, params, q, body)
	if got != status {
		f.t.Fatalf("fixture: %s %v: status %d, want %d: %v", id, params, got, status, resp)
	}
	return resp
}

// try runs an operation in-process and returns its status and body.
func (f *fixture) try(id string, params map[string]string, q url.Values, body any) (int, map[string]any) {
	f.t.Helper()
	build, ok := routes.APIs[id]
	if !ok {
		f.t.Fatalf("fixture: %s is not in routes.APIs", id)
	}
	route := f.env.Template.Functions[id].HttpEvents[0]
	return apigwtest.Do(f.t, build(f.env.API), apigwtest.Call{Method: route.Method, Route: route.Path,
		PathParams: params, Query: q, Body: body, AccountID: f.acc.ID})
}

func (f *fixture) create(id string, params map[string]string, body any) map[string]any {
	f.t.Helper()
	return f.call(201, id, params, nil, body)
}

func (f *fixture) customer(ext, name, email string) string {
	f.t.Helper()
	return f.create("CreateCustomerFunction", nil, map[string]any{"data_source_uuid": f.ds, "external_id": ext,
		"name": name, "email": email, "country": "US", "city": "Boston"})["uuid"].(string)
}

type imported struct {
	invoice string
	subs    []string
}

// invoices imports one invoice with two monthly subscriptions (subPrefix-1 and -2) of
// the gold plan for January 2025, paid.
func (f *fixture) invoices(cust, ext, subPrefix string) imported {
	f.t.Helper()
	line := func(n int) map[string]any {
		return map[string]any{"type": "subscription", "subscription_external_id": fmt.Sprintf("%s-%d", subPrefix, n),
			"plan_uuid": f.plan, "service_period_start": "2025-01-01T00:00:00Z", "service_period_end": "2025-02-01T00:00:00Z",
			"amount_in_cents": 5000 * n, "quantity": 1}
	}
	body := f.create("ImportCustomerInvoicesFunction", map[string]string{"customer_uuid": cust}, map[string]any{"invoices": []map[string]any{{
		"external_id": ext, "date": "2025-01-01T00:00:00Z", "currency": "USD",
		"line_items":   []map[string]any{line(1), line(2)},
		"transactions": []map[string]any{{"date": "2025-01-01T00:00:00Z", "type": "payment", "result": "successful"}},
	}}})
	inv := body["invoices"].([]any)[0].(map[string]any)
	out := imported{invoice: inv["uuid"].(string)}
	for _, li := range inv["line_items"].([]any) {
		out.subs = append(out.subs, li.(map[string]any)["subscription_uuid"].(string))
	}
	return out
}

func (f *fixture) cancel(sub string) {
	f.t.Helper()
	f.call(202, "UpdateImportSubscriptionFunction", map[string]string{"subscription_uuid": sub}, nil,
		map[string]any{"cancelled_at": "2025-01-20T00:00:00Z"})
}

func (f *fixture) newContact(cust, first, email string) string {
	f.t.Helper()
	return f.create("CreateContactFunction", nil, map[string]any{"customer_uuid": cust, "data_source_uuid": f.ds,
		"first_name": first, "last_name": "Parity", "email": email})["uuid"].(string)
}

func (f *fixture) newNote(cust, text string) string {
	f.t.Helper()
	return f.create("CreateCustomerNoteFunction", nil, map[string]any{"customer_uuid": cust, "type": "note", "text": text})["uuid"].(string)
}

func (f *fixture) newEvent(ext string) float64 {
	f.t.Helper()
	return f.create("CreateSubscriptionEventFunction", nil, map[string]any{"subscription_event": eventBody(f.ds, ext)})["id"].(float64)
}

func eventBody(ds, ext string) map[string]any {
	return map[string]any{"data_source_uuid": ds, "customer_external_id": "cus-main", "external_id": ext,
		"event_type": "subscription_start_scheduled", "event_date": "2025-02-01", "effective_date": "2025-03-01",
		"subscription_external_id": "sub-" + ext, "plan_external_id": "gold", "currency": "USD",
		"amount_in_cents": 1000, "quantity": 1}
}

func connectBody(ds string, subs ...string) map[string]any {
	var refs []map[string]any
	for _, s := range subs {
		refs = append(refs, map[string]any{"data_source_uuid": ds, "uuid": s})
	}
	return map[string]any{"subscriptions": refs}
}

// get reads through an operation in-process and fails unless it answers 200.
func (f *fixture) get(t *testing.T, id string, params map[string]string, q url.Values) map[string]any {
	t.Helper()
	saved := f.t
	f.t = t
	defer func() { f.t = saved }()
	return f.call(200, id, params, q, nil)
}

// status is what an in-process read of an operation answers.
func (f *fixture) status(t *testing.T, id string, params map[string]string) int {
	t.Helper()
	saved := f.t
	f.t = t
	defer func() { f.t = saved }()
	s, _ := f.try(id, params, nil, nil)
	return s
}

// has checks fields of a JSON object (numbers as float64).
func has(t *testing.T, what string, body map[string]any, want map[string]any) {
	t.Helper()
	for k, v := range want {
		if fmt.Sprint(body[k]) != fmt.Sprint(v) {
			t.Errorf("%s: %s = %v, want %v (in %v)", what, k, body[k], v, body)
		}
	}
}

// list returns the objects of a list answer under key.
func list(t *testing.T, body map[string]any, key string) []map[string]any {
	t.Helper()
	raw, ok := body[key].([]any)
	if !ok {
		t.Fatalf("no %s list in %v", key, body)
	}
	out := make([]map[string]any, len(raw))
	for i, r := range raw {
		out[i], _ = r.(map[string]any)
	}
	return out
}

// anyWith reports whether some object has field k equal to v.
func anyWith(objs []map[string]any, k string, v any) bool {
	for _, o := range objs {
		if fmt.Sprint(o[k]) == fmt.Sprint(v) {
			return true
		}
	}
	return false
}

// contains reports whether a JSON list holds v.
func contains(list any, v string) bool {
	l, _ := list.([]any)
	for _, x := range l {
		if fmt.Sprint(x) == v {
			return true
		}
	}
	return false
}

// authorizerEvent is the payload-2.0 REQUEST event API Gateway sends to the
// authorizer for a request with the given Authorization header.
func authorizerEvent(header string) events.APIGatewayV2CustomAuthorizerV2Request {
	ev := events.APIGatewayV2CustomAuthorizerV2Request{
		Version: "2.0", Type: "REQUEST",
		RouteArn:       "arn:aws:execute-api:us-east-1:123456789012:abc123/$default/GET/v1/ping",
		IdentitySource: []string{header},
		RouteKey:       "GET /v1/ping",
		RawPath:        "/v1/ping",
		Headers:        map[string]string{"authorization": header, "host": "abc123.execute-api.us-east-1.amazonaws.com"},
	}
	ev.RequestContext.AccountID = "123456789012"
	ev.RequestContext.APIID = "abc123"
	ev.RequestContext.Stage = "$default"
	ev.RequestContext.RequestID = "parity-authorizer"
	ev.RequestContext.HTTP.Method = "GET"
	ev.RequestContext.HTTP.Path = "/v1/ping"
	return ev
}
