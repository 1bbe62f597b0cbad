package stripesource

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v84/webhook"
)

func TestVerify(t *testing.T) {
	const secret, other = "whsec_test_secret", "whsec_other_data_source"
	signedAt := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	body := func(object, version string) []byte {
		return []byte(`{"id":"evt_1","object":"` + object + `","api_version":"` + version +
			`","type":"invoice.paid","created":1772366400,"data":{"object":{"id":"in_1","object":"invoice"}}}`)
	}
	event := body("event", "2026-02-25.clover")
	sign := func(payload []byte, secret string, at time.Time, scheme string) string {
		return webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret,
			Timestamp: at, Scheme: scheme}).Header
	}
	good := sign(event, secret, signedAt, "")
	v1 := func(header string) string { return header[strings.Index(header, "v1="):] }
	tests := []struct {
		name    string
		payload []byte
		header  string
		now     time.Time
		want    error
	}{
		{"good", event, good, signedAt, nil},
		{"good, 300 s old", event, good, signedAt.Add(300 * time.Second), nil},
		{"stale, 301 s old", event, good, signedAt.Add(301 * time.Second), ErrStale},
		{"signed 301 s ahead of the clock", event, good, signedAt.Add(-301 * time.Second), ErrStale},
		{"body changed", append([]byte(" "), event...), good, signedAt, ErrBadSignature},
		{"another data source's secret", event, sign(event, other, signedAt, ""), signedAt, ErrBadSignature},
		{"several v1, one matches", event, sign(event, other, signedAt, "") + "," + v1(good), signedAt, nil},
		{"several v1, none matches", event, sign(event, other, signedAt, "") + "," + v1(sign(event, "whsec_x", signedAt, "")), signedAt, ErrBadSignature},
		{"v0 only", event, sign(event, secret, signedAt, "v0"), signedAt, ErrBadSignature},
		{"no header", event, "", signedAt, ErrNotSigned},
		{"malformed header", event, "t=1772366400;v1=abc", signedAt, ErrMalformedHeader},
		{"timestamp missing", event, v1(good), signedAt, ErrBadSignature},
		{"not an event", body("invoice", "2026-02-25.clover"), sign(body("invoice", "2026-02-25.clover"), secret, signedAt, ""), signedAt, ErrNotEvent},
		{"another API release", body("event", "2025-03-31.basil"), sign(body("event", "2025-03-31.basil"), secret, signedAt, ""), signedAt, ErrAPIVersion},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := Verifier{Now: func() time.Time { return tc.now }}
			ev, err := v.Verify(tc.payload, tc.header, secret)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if tc.want == nil {
				if ev.ID != "evt_1" || ev.Type != "invoice.paid" {
					t.Errorf("event %+v", ev)
				}
				return
			}
			var rejected *RejectedError
			if !errors.As(err, &rejected) {
				t.Errorf("%v is not a *RejectedError", err)
			}
		})
	}
}
