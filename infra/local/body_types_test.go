package main

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/routes"
)

// goIdentifier matches what encoding/json would put into a message: Go types,
// package-qualified names.
var goIdentifier = regexp.MustCompile(`struct ?\{|interface ?\{|map\[|\[\][a-z*]|optional\.|jsonbody\.|apigw\.|api\.[a-zA-Z]|model\.|int64|float64|json\.Number|\bunmarshal`)

var pathParam = regexp.MustCompile(`\{[a-z_]+\+?\}`)

// Every route of the template that can take a body (POST, PUT, PATCH, DELETE) answers
// a body of each wrong JSON type with a 4xx in its endpoint's error family whose
// message names no Go identifier. Routes without path parameters reach the body, so
// theirs must be exactly a 400; with unknown ids a route may answer 404 first.
func TestEveryBodyRouteRefusesEachWrongJSONType(t *testing.T) {
	apiDeps := testStack.deps.API()
	bodies := []string{`[]`, `["x"]`, `"x"`, `12`, `true`, `null`}
	var checked, at400 int
	for _, r := range testStack.template.Routes() {
		if r.Authorizer == "" || !strings.Contains("POST PUT PATCH DELETE", r.Method) {
			continue
		}
		build, ok := routes.APIs[r.Function]
		if !ok {
			t.Fatalf("%s: %s is not in shared/routes.APIs", r.Key(), r.Function)
		}
		family := build(apiDeps).Family
		path := pathParam.ReplaceAllString(r.Path, "missing_0000")
		for _, body := range bodies {
			status, got := call(t, r.Method, path, body)
			checked++
			name := r.Key() + " " + body
			if status < 400 || status >= 500 {
				t.Errorf("%s: %d %s, want a 4xx", name, status, got)
				continue
			}
			if status == http.StatusBadRequest {
				at400++
			} else if !pathParam.MatchString(r.Path) {
				t.Errorf("%s: %d %s, want 400", name, status, got)
			}
			msg, err := inFamily(family, status, got)
			if err != "" && status != http.StatusBadRequest {
				// An unknown object is answered in its own kind's family (json_imports: a data
				// source's 404 is family B, as ChartMogul answers it).
				for _, f := range []apperr.Family{apperr.FamilyA, apperr.FamilyB} {
					if m, e := inFamily(f, status, got); e == "" {
						msg, err = m, ""
					}
				}
			}
			if err != "" {
				t.Errorf("%s: %d %s: %s", name, status, got, err)
			}
			if goIdentifier.MatchString(msg) {
				t.Errorf("%s: the message names a Go identifier: %s", name, got)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no body route found in the template")
	}
	t.Logf("%d requests over the template's body routes: %d answered 400, the rest 404 for an unknown id", checked, at400)
}

func call(t *testing.T, method, path, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, testStack.baseURL+path, strings.NewReader(body))
	req.SetBasicAuth(testKey, "")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// inFamily checks that an error body has the shape of family f and returns its message.
func inFamily(f apperr.Family, status int, body string) (string, string) {
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		return "", "the body is not JSON"
	}
	switch f {
	case apperr.FamilyB:
		msg, _ := m["error"].(string)
		if details, _ := m["error_details"].([]any); msg == "" || len(details) == 0 {
			// Family B endpoints answer lookups of unknown objects as ChartMogul does, in family A.
			if code, _ := m["code"].(float64); status == http.StatusNotFound && int(code) == status {
				msg, _ = m["message"].(string)
				return msg, ""
			}
			return "", "not family B ({error, error_details})"
		}
		return msg, ""
	case apperr.FamilyC:
		errs, _ := m["errors"].(map[string]any)
		if len(errs) == 0 {
			return "", "not family C ({errors})"
		}
		var msgs []string
		for k, v := range errs {
			s, _ := v.(string)
			msgs = append(msgs, k+" "+s)
		}
		return strings.Join(msgs, "; "), ""
	default:
		msg, _ := m["message"].(string)
		if code, _ := m["code"].(float64); int(code) != status || msg == "" {
			return "", "not family A ({code, message, param})"
		}
		if _, ok := m["param"]; !ok {
			return "", "not family A ({code, message, param})"
		}
		return msg, ""
	}
}
