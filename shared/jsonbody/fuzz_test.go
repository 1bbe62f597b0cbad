package jsonbody_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"testing"
	"unicode/utf8"

	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jsonbody"
	"github.com/subsight/subsight/shared/optional"
)

// quoted matches the client's names that messages quote.
var quoted = regexp.MustCompile(`"[^"]*"`)

// FuzzDecode: any byte string is either decoded or refused with a 4xx *apperr.Error
// whose message names no Go identifier; what is decoded is valid UTF-8 and keeps its
// numbers exact. Seed corpus: testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, `{"name":"x","external_id":12345678901234567}`, `null`, `[1]`, `{"a":1} x`,
		"{\"name\":\"\xff\"}", `{"name":"\ud800"}`, `{"interval_count":"1"}`, `{"attributes":{"tags":["a"]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var v struct {
			Name       optional.Value[string] `json:"name"`
			ExternalID optional.Value[any]    `json:"external_id"`
			Count      optional.Value[int]    `json:"interval_count"`
			Attrs      map[string]any         `json:"attributes"`
			Items      []map[string]any       `json:"line_items"`
		}
		err := jsonbody.Decode(b, &v)
		if err != nil {
			e, ok := apperr.As(err)
			if !ok || e.Status < 400 || e.Status >= 500 {
				t.Fatalf("%q: %v is not a 4xx", b, err)
			}
			// A quoted name is the client's own (a field called "[]" is not a Go type).
			if goIdentifier.MatchString(quoted.ReplaceAllString(e.Message, `""`)) {
				t.Fatalf("%q: message names a Go identifier: %q", b, e.Message)
			}
			return
		}
		if !utf8.ValidString(v.Name.V) {
			t.Fatalf("%q: decoded name is not UTF-8", b)
		}
		if n, ok := v.ExternalID.V.(json.Number); ok && !json.Valid([]byte(n)) {
			t.Fatalf("%q: external_id %q is not the number sent", b, n)
		}
		if !json.Valid(b) && len(bytes.TrimSpace(b)) > 0 {
			t.Fatalf("%q: accepted a body that is not JSON", b)
		}
	})
}
