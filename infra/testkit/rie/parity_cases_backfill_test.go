//go:build linux

package rie

import (
	"testing"
)

// backfillSource is the data source the Stripe backfill's cases connect (a source of
// its own: the connection cases disconnect the fixture's).
var backfillSource string

// backfillParityCases start a Stripe backfill and read its progress. The job it sends
// is left to the jobs queue's in-process drains of later cases: the connection is
// removed once read, so the step finds nothing to read Stripe with and fails the
// backfill without a request to Stripe.
var backfillParityCases = map[string]parityCase{
	"StartStripeBackfillFunction": {api: func(f *fixture) apiCase {
		backfillSource = f.create("CreateDataSourceFunction", nil, map[string]any{"name": "Parity Stripe"})["uuid"].(string)
		f.call(200, "PutStripeConnectionFunction", map[string]string{"data_source_uuid": backfillSource}, nil,
			map[string]any{"webhook_secret": "whsec_parity", "api_key": "rk_test_parity"})
		return apiCase{Params: map[string]string{"data_source_uuid": backfillSource}, Status: 202,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				has(t, "backfill", b, map[string]any{"data_source_uuid": backfillSource, "status": "queued"})
				if s, _ := f.try("StartStripeBackfillFunction", map[string]string{"data_source_uuid": backfillSource}, nil, nil); s != 409 {
					t.Errorf("a second start: %d, want 409", s)
				}
			}}
	}},
	"GetStripeBackfillFunction": {api: func(f *fixture) apiCase {
		return apiCase{Params: map[string]string{"data_source_uuid": backfillSource}, Status: 200,
			Check: func(t *testing.T, f *fixture, b map[string]any) {
				has(t, "backfill", b, map[string]any{"data_source_uuid": backfillSource, "status": "queued"})
				f.call(204, "DeleteStripeConnectionFunction", map[string]string{"data_source_uuid": backfillSource}, nil, nil)
			}}
	}},
}

func init() {
	for id, c := range backfillParityCases {
		if _, dup := parityCases[id]; dup {
			panic("parity case registered twice: " + id)
		}
		parityCases[id] = c
	}
}
