//go:build linux

package rie

import (
	"net/url"
	"testing"
)

// parityCases are the functions' own parity cases, keyed by LogicalId. A function that
// is no operation must have one; an operation without one gets the generic case
// (runGeneric). An API operation's entry is an apiCase on the shared fixture: path
// parameters, query, body, the status, and a check of the answer and of what the
// request stored (read back in-process through the handlers), with an object added to
// the fixture if the case deletes or rewrites one.
var parityCases = map[string]parityCase{
	"AuthorizerFunction":     {run: authorizerCase},
	"DashboardFunction":      {run: dashboardCase},
	"ImportFeederFunction":   {run: importFeederCase, ownResources: true},
	"ImportWorkerFunction":   {run: importWorkerCase, ownResources: true},
	"JobsWorkerFunction":     {run: jobsWorkerCase, ownResources: true},
	"MetricsSweeperFunction": {run: sweeperCase, ownResources: true},
	"PingFunction":           {run: pingCase},

	// ------------------------------------------------------------ account, data sources
	"GetAccountFunction": {api: func(f *fixture) apiCase {
		return apiCase{Query: url.Values{"include": {"refund_handling"}}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				has(t, "account", b, map[string]any{"id": f.acc.ID, "name": "Parity Inc", "refund_handling": "refund_ignore"})
			}}
	}},
	"CreateDataSourceFunction": {api: func(f *fixture) apiCase {
		return apiCase{Body: map[string]any{"name": "Created by parity"}, Status: 201,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				got := f.get(t, "GetDataSourceFunction", map[string]string{"uuid": b["uuid"].(string)}, nil)
				has(t, "stored data source", got, map[string]any{"name": "Created by parity"})
			}}
	}},
	"ListDataSourcesFunction": {api: func(f *fixture) apiCase {
		return apiCase{Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if !anyWith(list(t, b, "data_sources"), "uuid", f.ds) {
				t.Errorf("the fixture's data source is not listed: %v", b)
			}
		}}
	}},
	"GetDataSourceFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"uuid": f.ds}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			has(t, "data source", b, map[string]any{"uuid": f.ds, "name": "Parity billing"})
		}}
	}},
	"DeleteDataSourceFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"uuid": f.dsDel}, Status: 204, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if got := f.get(t, "ListDataSourcesFunction", nil, nil); anyWith(list(t, got, "data_sources"), "uuid", f.dsDel) {
				t.Errorf("the deleted data source is still listed")
			}
		}}
	}},
	"EmptyDataSourceFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"uuid": f.dsEmpty}, Status: 204, Check: func(t *testing.T, f *fixture, b map[string]any) {
			f.runJobs(t)
			has(t, "emptied data source", f.get(t, "GetDataSourceFunction", map[string]string{"uuid": f.dsEmpty}, nil),
				map[string]any{"uuid": f.dsEmpty, "status": "idle"})
			if s := f.status(t, "GetCustomerFunction", map[string]string{"customer_uuid": f.custEmpty}); s != 404 {
				t.Errorf("the emptied source's customer: GET answers %d", s)
			}
		}}
	}},
	"PurgeDataSourceDependentsFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"uuid": f.dsPurge}, Status: 204, Check: func(t *testing.T, f *fixture, b map[string]any) {
			f.runJobs(t)
			has(t, "kept customer", f.get(t, "GetCustomerFunction", map[string]string{"customer_uuid": f.custPurge}, nil),
				map[string]any{"external_id": "cus-purge"})
			got := f.get(t, "ListInvoicesFunction", nil, url.Values{"customer_uuid": {f.custPurge}})
			if inv := list(t, got, "invoices"); len(inv) != 0 {
				t.Errorf("the kept customer's invoices: %v", got)
			}
		}}
	}},

	// ------------------------------------------------------------ Stripe connection
	"PutStripeConnectionFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"data_source_uuid": f.ds}, Body: map[string]any{"webhook_secret": "whsec_parity",
			"api_key": "rk_test_parity"}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			has(t, "connection", b, map[string]any{"data_source_uuid": f.ds, "api_key_last4": "rity",
				"webhook_url": "https://abc123.execute-api.us-east-1.amazonaws.com/stripe/webhooks/" + f.ds})
			has(t, "stored connection", f.get(t, "GetStripeConnectionFunction", map[string]string{"data_source_uuid": f.ds}, nil),
				map[string]any{"data_source_uuid": f.ds, "api_key_last4": "rity"})
		}}
	}},
	"GetStripeConnectionFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"data_source_uuid": f.ds}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			has(t, "connection", b, map[string]any{"data_source_uuid": f.ds, "api_key_last4": "rity"})
		}}
	}},
	"DeleteStripeConnectionFunction": {api: func(f *fixture) apiCase {
		// A customer whose only invoice is unpaid: a lead under the connected source's
		// default settings; disconnected, the function queues the source's recomputation,
		// and the invoice counts once issued.
		ds, cust := f.sourceWithUnpaidSubscription("Parity Stripe disconnect", "cus-disconnect")
		f.call(200, "PutStripeConnectionFunction", map[string]string{"data_source_uuid": ds}, nil,
			map[string]any{"webhook_secret": "whsec_parity"})
		f.runJobs(f.t)
		has(f.t, "connected source's customer", f.call(200, "GetCustomerFunction", map[string]string{"customer_uuid": cust}, nil, nil),
			map[string]any{"mrr": 0})
		return apiCase{Params: map[string]string{"data_source_uuid": ds}, Status: 204, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if s := f.status(t, "GetStripeConnectionFunction", map[string]string{"data_source_uuid": ds}); s != 404 {
				t.Errorf("the disconnected source: GET answers %d", s)
			}
			f.runJobs(t)
			has(t, "disconnected source's customer", f.get(t, "GetCustomerFunction", map[string]string{"customer_uuid": cust}, nil),
				map[string]any{"mrr": 1000})
		}}
	}},

	// ------------------------------------------------------------ customers
	"CreateCustomerFunction": {api: func(f *fixture) apiCase {
		return apiCase{Body: map[string]any{"data_source_uuid": f.ds, "external_id": "cus-created", "name": "Created",
			"email": "created@parity.example"}, Status: 201, Check: func(t *testing.T, f *fixture, b map[string]any) {
			got := f.get(t, "GetCustomerFunction", map[string]string{"customer_uuid": b["uuid"].(string)}, nil)
			has(t, "stored customer", got, map[string]any{"external_id": "cus-created", "name": "Created"})
		}}
	}},
	"ListCustomersFunction": {api: func(f *fixture) apiCase {
		// One per page: the cursor of the first page must lead to the second.
		return apiCase{Query: url.Values{"data_source_uuid": {f.ds}, "per_page": {"1"}}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				if len(list(t, b, "entries")) != 1 || b["has_more"] != true || b["cursor"] == nil {
					t.Fatalf("first page: %v", b)
				}
				next := f.get(t, "ListCustomersFunction", nil, url.Values{"data_source_uuid": {f.ds}, "per_page": {"1"},
					"cursor": {b["cursor"].(string)}})
				if len(list(t, next, "entries")) != 1 {
					t.Errorf("second page: %v", next)
				}
			}}
	}},
	"SearchCustomersFunction": {api: func(f *fixture) apiCase {
		return apiCase{Query: url.Values{"email": {f.custEmail}}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if e := list(t, b, "entries"); len(e) != 1 || e[0]["uuid"] != f.cust {
				t.Errorf("search: %v", b)
			}
		}}
	}},
	"GetCustomerFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"customer_uuid": f.cust}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			has(t, "customer", b, map[string]any{"uuid": f.cust, "external_id": "cus-main", "email": f.custEmail})
		}}
	}},
	"UpdateCustomerFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"customer_uuid": f.custUpd}, Body: map[string]any{"company": "Patched Co",
			"primary_contact": map[string]any{"first_name": "Pat", "email": "pat@parity.example"}}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				has(t, "answer", b, map[string]any{"company": "Patched Co"})
				has(t, "stored customer", f.get(t, "GetCustomerFunction", map[string]string{"customer_uuid": f.custUpd}, nil),
					map[string]any{"company": "Patched Co", "name": "To Update"})
			}}
	}},
	"PutCustomerFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"customer_uuid": f.custPut}, Body: map[string]any{"name": "Put Name"}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				has(t, "stored customer", f.get(t, "GetCustomerFunction", map[string]string{"customer_uuid": f.custPut}, nil),
					map[string]any{"name": "Put Name"})
			}}
	}},
	"DeleteCustomerFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"customer_uuid": f.custDel}, Status: 204, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if s := f.status(t, "GetCustomerFunction", map[string]string{"customer_uuid": f.custDel}); s != 404 {
				t.Errorf("deleted customer: GET answers %d", s)
			}
		}}
	}},
	"MergeCustomersFunction": {api: func(f *fixture) apiCase {
		return apiCase{Body: map[string]any{"from": map[string]any{"customer_uuid": f.custFrom}, "into": map[string]any{"customer_uuid": f.custInto}},
			Status: 202, Check: func(t *testing.T, f *fixture, b map[string]any) {
				// The merge itself is the jobs worker's: run the queued jobs.
				f.runJobs(t)
				into := f.get(t, "GetCustomerFunction", map[string]string{"customer_uuid": f.custInto}, nil)
				if !contains(into["external_ids"], "cus-from") {
					t.Errorf("merged customer: %v", into)
				}
			}}
	}},

	// ------------------------------------------------------------ tags and custom attributes
	"GetCustomerAttributesFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"customer_uuid": f.cust}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			custom, _ := b["custom"].(map[string]any)
			if !contains(b["tags"], "parity") || custom["channel"] != "web" {
				t.Errorf("attributes: %v", b)
			}
		}}
	}},
	"AddCustomerTagsFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"customer_uuid": f.custUpd}, Body: map[string]any{"tags": []string{"added"}}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				if !contains(b["tags"], "added") || !contains(storedTags(t, f, f.custUpd), "added") {
					t.Errorf("tags: %v", b)
				}
			}}
	}},
	"RemoveCustomerTagsFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"customer_uuid": f.cust}, Body: map[string]any{"tags": []string{"parity"}}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				if contains(storedTags(t, f, f.cust), "parity") {
					t.Errorf("the removed tag is still stored")
				}
			}}
	}},
	"AddCustomerTagsByEmailFunction": {api: func(f *fixture) apiCase {
		return apiCase{Body: map[string]any{"email": "put@parity.example", "tags": []string{"by-email"}}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				if len(list(t, b, "entries")) != 1 || !contains(storedTags(t, f, f.custPut), "by-email") {
					t.Errorf("tags by email: %v", b)
				}
			}}
	}},
	"AddCustomAttributesFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"customer_uuid": f.custUpd},
			Body: map[string]any{"custom": []map[string]any{{"type": "Integer", "key": "seats", "value": 12}}}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				if got := storedCustom(t, f, f.custUpd); got["seats"] != float64(12) {
					t.Errorf("stored custom attributes: %v", got)
				}
			}}
	}},
	"AddCustomAttributesByEmailFunction": {api: func(f *fixture) apiCase {
		return apiCase{Body: map[string]any{"email": "put@parity.example",
			"custom": []map[string]any{{"type": "String", "key": "region", "value": "emea"}}}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				if got := storedCustom(t, f, f.custPut); got["region"] != "emea" {
					t.Errorf("stored custom attributes: %v", got)
				}
			}}
	}},
	"UpdateCustomAttributesFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"customer_uuid": f.cust}, Body: map[string]any{"custom": map[string]any{"channel": "partner"}},
			Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
				if got := storedCustom(t, f, f.cust); got["channel"] != "partner" {
					t.Errorf("stored custom attributes: %v", got)
				}
			}}
	}},
	"RemoveCustomAttributesFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"customer_uuid": f.custPut}, Body: map[string]any{"custom": []string{"region"}},
			Status: 204, Check: func(t *testing.T, f *fixture, b map[string]any) {
				if got := storedCustom(t, f, f.custPut); got["region"] != nil {
					t.Errorf("the removed attribute is still stored: %v", got)
				}
			}}
	}},
	"GetCustomAttributesFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"customer_uuid": f.custConnected}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				if _, ok := b["custom"].(map[string]any); !ok {
					t.Errorf("custom attributes: %v", b)
				}
			}}
	}},

	// ------------------------------------------------------------ contacts
	"CreateContactFunction": {api: func(f *fixture) apiCase {
		return apiCase{Body: map[string]any{"customer_uuid": f.custUpd, "data_source_uuid": f.ds, "first_name": "New",
			"email": "new.contact@parity.example"}, Status: 201, Check: func(t *testing.T, f *fixture, b map[string]any) {
			has(t, "stored contact", f.get(t, "GetContactFunction", map[string]string{"contact_uuid": b["uuid"].(string)}, nil),
				map[string]any{"first_name": "New", "customer_uuid": f.custUpd})
		}}
	}},
	"CreateCustomerContactFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"customer_uuid": f.custPut}, Body: map[string]any{"data_source_uuid": f.ds,
			"first_name": "Nested", "email": "nested@parity.example"}, Status: 201, Check: func(t *testing.T, f *fixture, b map[string]any) {
			has(t, "stored contact", f.get(t, "GetContactFunction", map[string]string{"contact_uuid": b["uuid"].(string)}, nil),
				map[string]any{"first_name": "Nested", "customer_uuid": f.custPut})
		}}
	}},
	"ListContactsFunction": {api: func(f *fixture) apiCase {
		return apiCase{Query: url.Values{"email": {"ada@parity.example"}}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if e := list(t, b, "entries"); len(e) != 1 || e[0]["uuid"] != f.contact {
				t.Errorf("contacts: %v", b)
			}
		}}
	}},
	"ListCustomerContactsFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"customer_uuid": f.cust}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if !anyWith(list(t, b, "entries"), "uuid", f.contact) {
				t.Errorf("customer contacts: %v", b)
			}
		}}
	}},
	"GetContactFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"contact_uuid": f.contact}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			has(t, "contact", b, map[string]any{"uuid": f.contact, "first_name": "Ada", "customer_uuid": f.cust})
		}}
	}},
	"UpdateContactFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"contact_uuid": f.contact}, Body: map[string]any{"title": "CTO"}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				has(t, "stored contact", f.get(t, "GetContactFunction", map[string]string{"contact_uuid": f.contact}, nil),
					map[string]any{"title": "CTO", "first_name": "Ada"})
			}}
	}},
	"DeleteContactFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"contact_uuid": f.contactDel}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if s := f.status(t, "GetContactFunction", map[string]string{"contact_uuid": f.contactDel}); s != 404 {
				t.Errorf("deleted contact: GET answers %d", s)
			}
		}}
	}},
	"MergeContactsFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"contact_uuid": f.contact, "from_uuid": f.contactFrom}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				if s := f.status(t, "GetContactFunction", map[string]string{"contact_uuid": f.contactFrom}); s != 404 {
					t.Errorf("merged contact: GET answers %d", s)
				}
			}}
	}},

	// ------------------------------------------------------------ notes
	"CreateCustomerNoteFunction": {api: func(f *fixture) apiCase {
		return apiCase{Body: map[string]any{"customer_uuid": f.custUpd, "type": "call", "text": "parity call", "call_duration": 120},
			Status: 201, Check: func(t *testing.T, f *fixture, b map[string]any) {
				has(t, "stored note", f.get(t, "GetCustomerNoteFunction", map[string]string{"note_uuid": b["uuid"].(string)}, nil),
					map[string]any{"type": "call", "text": "parity call", "call_duration": 120})
			}}
	}},
	"ListCustomerNotesFunction": {api: func(f *fixture) apiCase {
		return apiCase{Query: url.Values{"customer_uuid": {f.cust}}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if !anyWith(list(t, b, "entries"), "uuid", f.note) {
				t.Errorf("notes: %v", b)
			}
		}}
	}},
	"GetCustomerNoteFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"note_uuid": f.note}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			has(t, "note", b, map[string]any{"uuid": f.note, "customer_uuid": f.cust})
		}}
	}},
	"UpdateCustomerNoteFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"note_uuid": f.note}, Body: map[string]any{"text": "edited"}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				has(t, "stored note", f.get(t, "GetCustomerNoteFunction", map[string]string{"note_uuid": f.note}, nil),
					map[string]any{"text": "edited"})
			}}
	}},
	"DeleteCustomerNoteFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"note_uuid": f.noteDel}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if s := f.status(t, "GetCustomerNoteFunction", map[string]string{"note_uuid": f.noteDel}); s != 404 {
				t.Errorf("deleted note: GET answers %d", s)
			}
		}}
	}},

	// ------------------------------------------------------------ plans
	"CreatePlanFunction": {api: func(f *fixture) apiCase {
		return apiCase{Body: map[string]any{"data_source_uuid": f.ds, "name": "Platinum", "interval_count": 1, "interval_unit": "year"},
			Status: 201, Check: func(t *testing.T, f *fixture, b map[string]any) {
				has(t, "stored plan", f.get(t, "GetPlanFunction", map[string]string{"plan_uuid": b["uuid"].(string)}, nil),
					map[string]any{"name": "Platinum", "interval_unit": "year"})
			}}
	}},
	"ImportPlanFunction": {api: func(f *fixture) apiCase {
		return apiCase{Body: map[string]any{"data_source_uuid": f.ds, "name": "Legacy", "interval_count": 7, "interval_unit": "day",
			"external_id": "legacy"}, Status: 201, Check: func(t *testing.T, f *fixture, b map[string]any) {
			has(t, "stored plan", f.get(t, "GetPlanFunction", map[string]string{"plan_uuid": b["uuid"].(string)}, nil),
				map[string]any{"external_id": "legacy", "interval_count": 7})
		}}
	}},
	"ListPlansFunction": {api: func(f *fixture) apiCase {
		return apiCase{Query: url.Values{"data_source_uuid": {f.ds}}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if !anyWith(list(t, b, "plans"), "uuid", f.plan) {
				t.Errorf("plans: %v", b)
			}
		}}
	}},
	"ListImportPlansFunction": {api: func(f *fixture) apiCase {
		return apiCase{Query: url.Values{"data_source_uuid": {f.ds}}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if !anyWith(list(t, b, "plans"), "uuid", f.plan) {
				t.Errorf("plans: %v", b)
			}
		}}
	}},
	"GetPlanFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"plan_uuid": f.plan}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			has(t, "plan", b, map[string]any{"uuid": f.plan, "external_id": "gold"})
		}}
	}},
	"UpdatePlanFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"plan_uuid": f.planUpd}, Body: map[string]any{"name": "Silver Plus"}, Status: 202,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				has(t, "stored plan", f.get(t, "GetPlanFunction", map[string]string{"plan_uuid": f.planUpd}, nil),
					map[string]any{"name": "Silver Plus"})
			}}
	}},
	"DeletePlanFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"plan_uuid": f.planDel}, Status: 204, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if s := f.status(t, "GetPlanFunction", map[string]string{"plan_uuid": f.planDel}); s != 404 {
				t.Errorf("deleted plan: GET answers %d", s)
			}
		}}
	}},

	// ------------------------------------------------------------ invoices, transactions, import subscriptions
	"ImportCustomerInvoicesFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"customer_uuid": f.custUpd}, Body: map[string]any{"invoices": []map[string]any{{
			"external_id": "inv-created", "date": "2025-02-01T00:00:00Z", "currency": "USD",
			"line_items": []map[string]any{{"type": "one_time", "description": "setup", "amount_in_cents": 2500}},
		}}}, Status: 201, Check: func(t *testing.T, f *fixture, b map[string]any) {
			inv := list(t, b, "invoices")
			if len(inv) != 1 {
				t.Fatalf("answer: %v", b)
			}
			has(t, "stored invoice", f.get(t, "GetInvoiceFunction", map[string]string{"invoice_uuid": inv[0]["uuid"].(string)}, nil),
				map[string]any{"external_id": "inv-created"})
		}}
	}},
	"ListImportInvoicesFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"customer_uuid": f.cust}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if !anyWith(list(t, b, "invoices"), "uuid", f.invoice) {
				t.Errorf("invoices: %v", b)
			}
		}}
	}},
	"ListInvoicesFunction": {api: func(f *fixture) apiCase {
		return apiCase{Query: url.Values{"customer_uuid": {f.cust}}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if !anyWith(list(t, b, "invoices"), "uuid", f.invoice) {
				t.Errorf("invoices: %v", b)
			}
		}}
	}},
	"GetInvoiceFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"invoice_uuid": f.invoice}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			has(t, "invoice", b, map[string]any{"uuid": f.invoice, "external_id": "inv-main", "customer_uuid": f.cust})
		}}
	}},
	"DeleteInvoiceFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"invoice_uuid": f.invDel}, Status: 204, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if s := f.status(t, "GetInvoiceFunction", map[string]string{"invoice_uuid": f.invDel}); s != 404 {
				t.Errorf("deleted invoice: GET answers %d", s)
			}
		}}
	}},
	"DeleteInvoiceByExternalIdFunction": {api: func(f *fixture) apiCase {
		return apiCase{Query: url.Values{"data_source_uuid": {f.ds}, "external_id": {f.invDelExt}}, Status: 204,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				got := f.get(t, "ListInvoicesFunction", nil, url.Values{"data_source_uuid": {f.ds}, "external_id": {f.invDelExt}})
				if len(list(t, got, "invoices")) != 0 {
					t.Errorf("the deleted invoice is still listed: %v", got)
				}
			}}
	}},
	"UpdateInvoiceStatusFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"data_source_uuid": f.ds, "invoice_external_id": f.invStatusExt},
			Body: map[string]any{"status": "voided"}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
				has(t, "answer", b, map[string]any{"external_id": f.invStatusExt, "status": "voided"})
				got := f.get(t, "ListInvoicesFunction", nil, url.Values{"data_source_uuid": {f.ds}, "external_id": {f.invStatusExt}})
				if inv := list(t, got, "invoices"); len(inv) != 1 || inv[0]["status"] != "voided" {
					t.Errorf("stored invoice: %v", got)
				}
			}}
	}},
	"PatchInvoiceStatusFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"data_source_uuid": f.ds, "invoice_external_id": f.invPatchExt},
			Body: map[string]any{"status": "written_off"}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
				has(t, "answer", b, map[string]any{"external_id": f.invPatchExt, "status": "written_off"})
				got := f.get(t, "ListInvoicesFunction", nil, url.Values{"data_source_uuid": {f.ds}, "external_id": {f.invPatchExt}})
				if inv := list(t, got, "invoices"); len(inv) != 1 || inv[0]["status"] != "written_off" {
					t.Errorf("stored invoice: %v", got)
				}
			}}
	}},
	"UpdateCustomerInvoicesFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"customer_uuid": f.custUpd}, Query: url.Values{"handle_as_user_edit": {"true"}},
			Body: map[string]any{"invoices": []map[string]any{{
				"external_id": "inv-put", "date": "2025-02-01T00:00:00Z", "currency": "USD",
				"line_items": []map[string]any{{"type": "one_time", "description": "extra", "amount_in_cents": 700}},
			}}}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
				got := f.get(t, "ListInvoicesFunction", nil, url.Values{"data_source_uuid": {f.ds}, "external_id": {"inv-put"}})
				if inv := list(t, got, "invoices"); len(inv) != 1 || inv[0]["user_created"] != true {
					t.Errorf("stored invoice: %v", got)
				}
			}}
	}},
	"CreateInvoiceTransactionFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"invoice_uuid": f.invoice}, Body: map[string]any{"type": "refund",
			"date": "2025-01-10T00:00:00Z", "result": "successful", "external_id": "tr-refund", "amount_in_cents": 500},
			Status: 201, Check: func(t *testing.T, f *fixture, b map[string]any) {
				inv := f.get(t, "GetInvoiceFunction", map[string]string{"invoice_uuid": f.invoice}, nil)
				if !anyWith(list(t, inv, "transactions"), "external_id", "tr-refund") {
					t.Errorf("stored invoice: %v", inv)
				}
			}}
	}},
	"ListImportSubscriptionsFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"customer_uuid": f.cust}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if !anyWith(list(t, b, "subscriptions"), "uuid", f.sub1) {
				t.Errorf("subscriptions: %v", b)
			}
		}}
	}},
	"UpdateImportSubscriptionFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"subscription_uuid": f.sub1}, Body: map[string]any{"cancelled_at": "2025-03-15T00:00:00Z"},
			Status: 202, Check: func(t *testing.T, f *fixture, b map[string]any) {
				got := f.get(t, "ListImportSubscriptionsFunction", map[string]string{"customer_uuid": f.cust}, nil)
				for _, s := range list(t, got, "subscriptions") {
					if s["uuid"] == f.sub1 && !contains(s["cancellation_dates"], "2025-03-15T00:00:00.000Z") {
						t.Errorf("stored subscription: %v", s)
					}
				}
			}}
	}},

	// ------------------------------------------------------------ subscription events
	"CreateSubscriptionEventFunction": {api: func(f *fixture) apiCase {
		return apiCase{Body: map[string]any{"subscription_event": eventBody(f.ds, "ev-created")}, Status: 201,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				got := f.get(t, "ListSubscriptionEventsFunction", nil, url.Values{"data_source_uuid": {f.ds}, "external_id": {"ev-created"}})
				if !anyWith(list(t, got, "subscription_events"), "id", b["id"]) {
					t.Errorf("stored events: %v", got)
				}
			}}
	}},
	"ListSubscriptionEventsFunction": {api: func(f *fixture) apiCase {
		return apiCase{Query: url.Values{"data_source_uuid": {f.ds}}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if !anyWith(list(t, b, "subscription_events"), "id", f.event) {
				t.Errorf("events: %v", b)
			}
		}}
	}},
	"UpdateSubscriptionEventFunction": {api: func(f *fixture) apiCase {
		return apiCase{Body: map[string]any{"subscription_event": map[string]any{"id": f.event, "quantity": 3}}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				got := f.get(t, "ListSubscriptionEventsFunction", nil, url.Values{"data_source_uuid": {f.ds}, "external_id": {"ev-upd"}})
				if e := list(t, got, "subscription_events"); len(e) != 1 || e[0]["quantity"] != float64(3) {
					t.Errorf("stored event: %v", got)
				}
			}}
	}},
	"DeleteSubscriptionEventFunction": {api: func(f *fixture) apiCase {
		return apiCase{Body: map[string]any{"subscription_event": map[string]any{"id": f.eventDel}}, Status: 204,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				got := f.get(t, "ListSubscriptionEventsFunction", nil, url.Values{"data_source_uuid": {f.ds}, "external_id": {"ev-del"}})
				if len(list(t, got, "subscription_events")) != 0 {
					t.Errorf("the deleted event is still listed: %v", got)
				}
			}}
	}},

	// ------------------------------------------------------------ json imports
	"CreateJsonImportFunction": {run: createJSONImportCase},
	"GetJsonImportFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"data_source_uuid": f.ds, "import_id": f.importID}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				has(t, "import", b, map[string]any{"id": f.importID, "external_id": "parity-batch-1", "status": "completed"})
			}}
	}},

	// ------------------------------------------------------------ per-customer metrics
	"ListCustomerSubscriptionsFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"customer_uuid": f.cust}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if len(list(t, b, "entries")) == 0 {
				t.Errorf("no subscriptions: %v", b)
			}
		}}
	}},
	"ListCustomerActivitiesFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"customer_uuid": f.cust}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if !anyWith(list(t, b, "entries"), "type", "new_biz") {
				t.Errorf("no new_biz activity: %v", b)
			}
		}}
	}},
	"ConnectSubscriptionsFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"customer_uuid": f.cust}, Body: connectBody(f.ds, f.sub1, f.sub2), Status: 202,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				if got, err := f.env.Deps.Store.CustomerConnections(ctx, f.acc.ID, f.cust); err != nil || len(got) != 1 {
					t.Errorf("stored connections: %v %v", got, err)
				}
			}}
	}},
	"DisconnectSubscriptionsFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"customer_uuid": f.custConnected}, Body: connectBody(f.ds, f.connected[0], f.connected[1]),
			Status: 202, Check: func(t *testing.T, f *fixture, b map[string]any) {
				if got, err := f.env.Deps.Store.CustomerConnections(ctx, f.acc.ID, f.custConnected); err != nil || len(got) != 0 {
					t.Errorf("stored connections: %v %v", got, err)
				}
			}}
	}},

	// ------------------------------------------------------------ Metrics API
	"ListActivitiesFunction": {api: func(f *fixture) apiCase {
		return apiCase{Query: url.Values{"start-date": {fixtureFrom}}, Status: 200, Check: func(t *testing.T, f *fixture, b map[string]any) {
			if !anyWith(list(t, b, "entries"), "customer-uuid", f.cust) {
				t.Errorf("no activity of the fixture's customer: %v", b)
			}
		}}
	}},
	"MetricsAllFunction":               {api: metricCase("mrr")},
	"MetricsMrrFunction":               {api: metricCase("mrr")},
	"MetricsArrFunction":               {api: metricCase("arr")},
	"MetricsArpaFunction":              {api: metricCase("arpa")},
	"MetricsAspFunction":               {api: metricCase("asp")},
	"MetricsCustomerCountFunction":     {api: metricCase("customers")},
	"MetricsLtvFunction":               {api: metricCase("ltv")},
	"MetricsCustomerChurnRateFunction": {api: metricCase("customer-churn-rate")},
	"MetricsMrrChurnRateFunction":      {api: metricCase("mrr-churn-rate")},
	// Answers without reading anything: the only API operation that calls no AWS service.
	"MetricsUnknownFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"metric": "nps"}, Query: url.Values{"start-date": {fixtureFrom}, "end-date": {fixtureTo}},
			Status: 400, Check: func(t *testing.T, f *fixture, b map[string]any) {
				has(t, "error", b, map[string]any{"code": 400, "param": "metric"})
			}}
	}},
}

// metricCase reads a metric over the fixture's months: the entries carry key, and
// for the value metrics the fixture's January subscriptions show.
func metricCase(key string) func(f *fixture) apiCase {
	return func(f *fixture) apiCase {
		return apiCase{Query: url.Values{"start-date": {fixtureFrom}, "end-date": {fixtureTo}, "interval": {"month"}}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				entries := list(t, b, "entries")
				if len(entries) != 3 {
					t.Fatalf("%d entries, want 3 months: %v", len(entries), b)
				}
				if _, ok := entries[0][key]; !ok {
					t.Fatalf("no %s in %v", key, entries[0])
				}
				switch key {
				case "mrr", "arr", "customers", "arpa":
					if v, _ := entries[0][key].(float64); v <= 0 {
						t.Errorf("%s in January = %v, want the fixture's subscriptions", key, entries[0][key])
					}
				}
			}}
	}
}

func storedTags(t *testing.T, f *fixture, cust string) any {
	t.Helper()
	return f.get(t, "GetCustomerAttributesFunction", map[string]string{"customer_uuid": cust}, nil)["tags"]
}

func storedCustom(t *testing.T, f *fixture, cust string) map[string]any {
	t.Helper()
	custom, _ := f.get(t, "GetCustomerAttributesFunction", map[string]string{"customer_uuid": cust}, nil)["custom"].(map[string]any)
	return custom
}
