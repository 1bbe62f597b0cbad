package jsonbody_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jsonbody"
	"github.com/subsight/subsight/shared/optional"
)

type planLike struct {
	Name       optional.Value[string]         `json:"name"`
	ExternalID optional.Value[any]            `json:"external_id"`
	Count      optional.Value[int]            `json:"interval_count"`
	Attrs      optional.Value[map[string]any] `json:"attributes"`
	Lines      []struct {
		Amount int `json:"amount_in_cents"`
	} `json:"line_items"`
}

// goIdentifier matches what encoding/json would put into a message: Go types and
// package-qualified names.
var goIdentifier = regexp.MustCompile(`struct|interface|map\[|\[\]|optional\.|jsonbody\.|api\.|model\.|int64|float64|json\.Number`)

func TestDecodeRefuses(t *testing.T) {
	tests := []struct {
		name, body string
		status     int
		param, in  string
	}{
		{"trailing text", `{"name":"x"} not json`, 400, "", "nothing after it"},
		{"second value", `{"name":"x"}{"name":"y"}`, 400, "", "nothing after it"},
		{"null body", `null`, 400, "", "not null"},
		{"array body", `[{"name":"x"}]`, 400, "", "not an array"},
		{"string body", `"x"`, 400, "", "not a string"},
		{"number body", `12`, 400, "", "not a number"},
		{"boolean body", `true`, 400, "", "not a boolean"},
		{"invalid utf-8", "{\"name\":\"a\xffb\"}", 400, "name", "not valid UTF-8"},
		{"overlong utf-8", "{\"name\":\"\xc0\xaf\"}", 400, "name", "not valid UTF-8"},
		{"utf-8 surrogate", "{\"name\":\"\xed\xa0\x80\"}", 400, "name", "not valid UTF-8"},
		{"lone high surrogate", `{"name":"\ud800"}`, 400, "name", "surrogate"},
		{"lone low surrogate", `{"name":"\udc00x"}`, 400, "name", "surrogate"},
		{"high then non-surrogate", `{"name":"\ud800\u0041"}`, 400, "name", "surrogate"},
		{"bad byte in a key", "{\"na\xffme\":1}", 400, "", "not valid UTF-8"},
		{"too deep", `{"attributes":` + strings.Repeat("[", jsonbody.MaxDepth) + strings.Repeat("]", jsonbody.MaxDepth) + `}`, 400, "attributes", "deeper than"},
		{"10,000 deep", strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000), 400, "a", "deeper than"},
		{"too large", `{"name":"` + strings.Repeat("x", jsonbody.MaxBytes) + `"}`, 413, "", "larger than"},
		{"wrong type", `{"name":12}`, 400, "name", `"name" must be a string`},
		{"object expected", `{"attributes":"x"}`, 400, "attributes", `"attributes" must be an object`},
		{"integer expected", `{"interval_count":"x"}`, 400, "interval_count", `must be an integer`},
		{"nested field", `{"line_items":[{"amount_in_cents":"1"}]}`, 400, "line_items.amount_in_cents", "must be an integer"},
		{"array expected", `{"line_items":{}}`, 400, "line_items", "must be an array"},
		{"syntax", `{"name":}`, 400, "", "not valid JSON"},
		{"unterminated", `{"name":"x`, 400, "", "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v planLike
			err := jsonbody.Decode([]byte(tt.body), &v)
			e, ok := apperr.As(err)
			if !ok {
				t.Fatalf("got %v, want an *apperr.Error", err)
			}
			if e.Status != tt.status || e.Param != tt.param || !strings.Contains(e.Message, tt.in) {
				t.Fatalf("got %d param %q %q, want %d param %q containing %q", e.Status, e.Param, e.Message, tt.status, tt.param, tt.in)
			}
			if goIdentifier.MatchString(e.Message) {
				t.Fatalf("message names a Go identifier: %q", e.Message)
			}
		})
	}
}

func TestDecodeAccepts(t *testing.T) {
	tests := []struct {
		name, body, wantName, wantExternal string
	}{
		{"empty body is {}", "  \n", "", ""},
		{"trailing whitespace", "{\"name\":\"x\"}\r\n\t ", "x", ""},
		{"surrogate pair", `{"name":"\ud83d\ude00"}`, "\U0001F600", ""},
		{"utf-8 text", `{"name":"Grüße 日本"}`, "Grüße 日本", ""},
		{"large integer id", `{"external_id":12345678901234567}`, "", "12345678901234567"},
		{"id beyond 64 bits", `{"external_id":123456789012345678901234567890}`, "", "123456789012345678901234567890"},
		{"fraction id kept as written", `{"external_id":1.50}`, "", "1.50"},
		{"depth at the limit", `{"attributes":{"a":` + strings.Repeat("[", jsonbody.MaxDepth-2) + strings.Repeat("]", jsonbody.MaxDepth-2) + `}}`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v planLike
			if err := jsonbody.Decode([]byte(tt.body), &v); err != nil {
				t.Fatalf("refused: %v", err)
			}
			if v.Name.V != tt.wantName {
				t.Fatalf("name %q, want %q", v.Name.V, tt.wantName)
			}
			if got, _ := v.ExternalID.V.(json.Number); string(got) != tt.wantExternal {
				t.Fatalf("external_id %#v, want the number %q", v.ExternalID.V, tt.wantExternal)
			}
		})
	}
}

// A map target keeps every number as its literal text, at any depth.
func TestDecodeKeepsNumbersExact(t *testing.T) {
	var m map[string]any
	if err := jsonbody.Decode([]byte(`{"a":[{"b":9007199254740993}],"c":-0.1e-7}`), &m); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(m)
	if string(b) != `{"a":[{"b":9007199254740993}],"c":-0.1e-7}` {
		t.Fatalf("re-encoded %s", b)
	}
}

func TestDecodeStatusFamily(t *testing.T) {
	var v planLike
	e, _ := apperr.As(jsonbody.Decode([]byte(`{"name":1}`), &v))
	if e.Status != http.StatusBadRequest || e.Family != apperr.FamilyDefault {
		t.Fatalf("%+v: the endpoint's family must render it", e)
	}
}
