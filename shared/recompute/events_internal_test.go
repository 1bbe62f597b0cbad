package recompute

import (
	"testing"
	"time"

	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/model"
)

func TestEngineEventMapping(t *testing.T) {
	at := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	i := func(v int64) *int64 { return &v }
	s := func(v string) *string { return &v }
	e := model.SubscriptionEvent{ID: 42, DataSourceUUID: "ds_1", EventFields: model.EventFields{
		EventType: engine.EventCancellationScheduled, EventDate: at, EffectiveDate: at.AddDate(0, 1, 0),
		SubscriptionExternalID: "sub-1", SubscriptionSetExternalID: s("set"), Currency: s("EUR"),
		AmountInCents: i(1000), TaxAmountInCents: i(100), Quantity: i(2), RetractedEventID: i(7), EventOrder: i(3)}}
	got := engineEvent("acc_1", e, "pl_1")
	want := engine.SubscriptionEvent{ID: "42", DataSourceUUID: "ds_1",
		SubscriptionUUID: model.SubscriptionUUID("acc_1", "ds_1", "sub-1"), SubscriptionExternalID: "sub-1",
		SubscriptionSetExternalID: "set", PlanUUID: "pl_1", EventType: engine.EventCancellationScheduled,
		EventDate: at, EffectiveDate: at.AddDate(0, 1, 0), Currency: "EUR", AmountInCents: 1000,
		TaxAmountInCents: 100, Quantity: 2, RetractedEventID: "7", EventOrder: 3}
	if got != want {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	// Absent optional fields are zero values.
	bare := engineEvent("acc_1", model.SubscriptionEvent{ID: 1, EventFields: model.EventFields{EventType: engine.EventCancelled}}, "")
	if bare.Currency != "" || bare.RetractedEventID != "" || bare.Quantity != 0 || bare.EventOrder != 0 {
		t.Fatalf("bare %+v", bare)
	}
}
