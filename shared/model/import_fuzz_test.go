package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/subsight/subsight/shared/apperr"
)

// FuzzParseImport: any json_imports body is accepted or refused with the decoder's 4xx
// or a *FieldError naming a field, never a panic; an accepted one keeps its
// identifiers exactly as sent. Seed corpus: testdata/fuzz/FuzzParseImport.
func FuzzParseImport(f *testing.F) {
	valid, _ := json.Marshal(validImport())
	for _, s := range []string{string(valid), `{"external_id":12345678901234567}`, `{"external_id":"x","customers":{}}`,
		`{"external_id":"x","invoices":[{"external_id":1e400}]}`, `{"external_id":"x","line_items":[{"amount_in_cents":1.5}]}`,
		`null`, `{"external_id":"x"} {}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParseImport(b)
		if err != nil {
			var fe *FieldError
			if e, ok := apperr.As(err); ok {
				if e.Status < 400 || e.Status >= 500 {
					t.Fatalf("%q: status %d", b, e.Status)
				}
				return
			}
			if !errors.As(err, &fe) || fe.Message == "" {
				t.Fatalf("%q: %v is neither a decoder error nor a field error", b, err)
			}
			return
		}
		var top map[string]any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if dec.Decode(&top) == nil {
			if n, ok := top["external_id"].(json.Number); ok && p.ExternalID != n.String() {
				t.Fatalf("%q: external_id %q, sent %s", b, p.ExternalID, n)
			}
		}
	})
}
