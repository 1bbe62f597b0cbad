//go:build linux

package rie

import (
	"testing"
)

// settingsSource is the data source the Stripe settings cases connect (a source of
// its own: the connection cases disconnect the fixture's).
var settingsSource string

// connectedSource connects a new data source of the fixture's account to Stripe, once.
func connectedSource(f *fixture) string {
	if settingsSource == "" {
		settingsSource = f.create("CreateDataSourceFunction", nil, map[string]any{"name": "Parity Stripe settings"})["uuid"].(string)
		f.call(200, "PutStripeConnectionFunction", map[string]string{"data_source_uuid": settingsSource}, nil,
			map[string]any{"webhook_secret": "whsec_parity"})
	}
	return settingsSource
}

// settingsParityCases read a Stripe source's settings and change them; the change
// moves metrics, so the function sends the source's recomputation to the jobs queue,
// which later cases' in-process drains run.
var settingsParityCases = map[string]parityCase{
	"GetStripeSettingsFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"data_source_uuid": connectedSource(f)}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				has(t, "settings", b, map[string]any{"deleted_customers": "keep_anonymised", "churn_recognition": nil})
			}}
	}},
	"UpdateStripeSettingsFunction": {api: func(f *fixture) apiCase {
		ds := connectedSource(f)
		return apiCase{Params: map[string]string{"data_source_uuid": ds}, Body: map[string]any{"churn_recognition": "churn_at_click",
			"invoice_handling": map[string]any{"manual": map[string]any{"create_subscription_when_invoice_is": "open"}}}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				has(t, "settings", b, map[string]any{"churn_recognition": "churn_at_click"})
				has(t, "stored settings", f.get(t, "GetStripeSettingsFunction", map[string]string{"data_source_uuid": ds}, nil),
					map[string]any{"churn_recognition": "churn_at_click"})
			}}
	}},
}

func init() {
	for id, c := range settingsParityCases {
		if _, dup := parityCases[id]; dup {
			panic("parity case registered twice: " + id)
		}
		parityCases[id] = c
	}
}
