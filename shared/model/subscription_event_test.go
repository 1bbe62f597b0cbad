package model

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestSentAsString: the numbers sent as JSON strings are remembered, so that responses
// echo them in the type they were sent with.
func TestSentAsString(t *testing.T) {
	base := `"customer_external_id":"c","event_type":"subscription_start","event_date":"2024-01-01",` +
		`"effective_date":"2024-01-01","subscription_external_id":"s","plan_external_id":"p","currency":"USD"`
	tests := []struct {
		name string
		more string
		want []string
	}{
		{"all numbers", `"amount_in_cents":1000,"quantity":2`, nil},
		{"amount and quantity as strings", `"amount_in_cents":"1000","quantity":"2"`, []string{"amount_in_cents", "quantity"}},
		{"tax and order as strings", `"amount_in_cents":1,"tax_amount_in_cents":"5","event_order":"3"`, []string{"tax_amount_in_cents", "event_order"}},
		{"an empty string is no value", `"amount_in_cents":1,"tax_amount_in_cents":""`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dec := json.NewDecoder(strings.NewReader("{" + base + "," + tt.more + "}"))
			dec.UseNumber()
			var obj map[string]any
			if err := dec.Decode(&obj); err != nil {
				t.Fatal(err)
			}
			e, err := ReadSubscriptionEvent(obj, true)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(e.SentAsString, tt.want) {
				t.Errorf("SentAsString = %v, want %v", e.SentAsString, tt.want)
			}
		})
	}
}
