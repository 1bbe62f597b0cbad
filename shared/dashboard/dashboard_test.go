package dashboard

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"io"
	"io/fs"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/aws/aws-lambda-go/events"
)

func gz(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = io.WriteString(w, s)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

const page = `<!doctype html><script type="module" src="/assets/app-ABC.js"></script>`

func testSite(t *testing.T) *Site {
	t.Helper()
	s, err := Load(fstest.MapFS{
		"index.html":           {Data: []byte(page)},
		"index.html.gz":        {Data: gz(t, page)},
		"assets/app-ABC.js":    {Data: []byte("console.log(1)")},
		"assets/app-ABC.js.gz": {Data: gz(t, "console.log(1)")},
		"assets/style-DEF.css": {Data: []byte("body{}")},
		"assets/icon-123.svg":  {Data: []byte("<svg/>")},
		"assets/.hidden":       {Data: []byte("no")},
		".keep":                {Data: []byte("placeholder")},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func get(path, file string, headers map[string]string) events.APIGatewayV2HTTPRequest {
	ev := events.APIGatewayV2HTTPRequest{RawPath: path, Headers: map[string]string{}}
	for k, v := range headers {
		ev.Headers[k] = v
	}
	if file != "" {
		ev.PathParameters = map[string]string{"file": file}
	}
	return ev
}

func body(t *testing.T, r events.APIGatewayV2HTTPResponse) string {
	t.Helper()
	if !r.IsBase64Encoded {
		return r.Body
	}
	raw, err := base64.StdEncoding.DecodeString(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	if r.Headers["Content-Encoding"] != "gzip" {
		return string(raw)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestServe(t *testing.T) {
	s := testSite(t)
	tests := []struct {
		name        string
		ev          events.APIGatewayV2HTTPRequest
		status      int
		contentType string
		cache       string
		encoding    string
		body        string
	}{
		{"page", get("/", "", nil), 200, "text/html; charset=utf-8", pageCache, "", page},
		{"page gzipped", get("/", "", map[string]string{"accept-encoding": "br, gzip;q=0.8"}), 200, "text/html; charset=utf-8", pageCache, "gzip", page},
		{"gzip refused", get("/", "", map[string]string{"accept-encoding": "gzip;q=0, br"}), 200, "text/html; charset=utf-8", pageCache, "", page},
		{"script", get("/assets/app-ABC.js", "app-ABC.js", nil), 200, "text/javascript; charset=utf-8", assetCache, "", "console.log(1)"},
		{"script gzipped", get("/assets/app-ABC.js", "app-ABC.js", map[string]string{"accept-encoding": "gzip, deflate"}), 200, "text/javascript; charset=utf-8", assetCache, "gzip", "console.log(1)"},
		{"stylesheet without a gzip twin", get("/assets/style-DEF.css", "style-DEF.css", map[string]string{"accept-encoding": "gzip"}), 200, "text/css; charset=utf-8", assetCache, "", "body{}"},
		{"icon", get("/assets/icon-123.svg", "icon-123.svg", nil), 200, "image/svg+xml", assetCache, "", "<svg/>"},
		{"unknown asset", get("/assets/app-OLD.js", "app-OLD.js", nil), 404, "text/plain; charset=utf-8", "no-store", "", "Not found.\n"},
		{"hidden file", get("/assets/.hidden", ".hidden", nil), 404, "text/plain; charset=utf-8", "no-store", "", "Not found.\n"},
		{"gzip twin itself", get("/assets/app-ABC.js.gz", "app-ABC.js.gz", nil), 404, "text/plain; charset=utf-8", "no-store", "", "Not found.\n"},
		{"placeholder", get("/assets/../.keep", "../.keep", nil), 404, "text/plain; charset=utf-8", "no-store", "", "Not found.\n"},
		{"other path", get("/index.html", "", nil), 404, "text/plain; charset=utf-8", "no-store", "", "Not found.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := s.Serve(context.Background(), tt.ev)
			if err != nil {
				t.Fatal(err)
			}
			if r.StatusCode != tt.status || r.Headers["Content-Type"] != tt.contentType || r.Headers["Cache-Control"] != tt.cache ||
				r.Headers["Content-Encoding"] != tt.encoding {
				t.Fatalf("got %d %q cache %q encoding %q", r.StatusCode, r.Headers["Content-Type"], r.Headers["Cache-Control"], r.Headers["Content-Encoding"])
			}
			if got := body(t, r); got != tt.body {
				t.Errorf("body %q, want %q", got, tt.body)
			}
			for k, v := range securityHeaders {
				if r.Headers[k] != v {
					t.Errorf("%s: %q, want %q", k, r.Headers[k], v)
				}
			}
		})
	}
}

func TestRevalidation(t *testing.T) {
	s := testSite(t)
	first, _ := s.Serve(context.Background(), get("/", "", nil))
	etag := first.Headers["ETag"]
	if !regexp.MustCompile(`^"[0-9a-f]{32}"$`).MatchString(etag) {
		t.Fatalf("ETag %q", etag)
	}
	for _, match := range []string{etag, `W/` + etag, `"other", ` + etag} {
		r, _ := s.Serve(context.Background(), get("/", "", map[string]string{"if-none-match": match}))
		if r.StatusCode != 304 || r.Body != "" || r.Headers["ETag"] != etag {
			t.Errorf("If-None-Match %s: %d %q", match, r.StatusCode, r.Body)
		}
	}
	if r, _ := s.Serve(context.Background(), get("/", "", map[string]string{"if-none-match": `"stale"`})); r.StatusCode != 200 {
		t.Errorf("stale ETag: %d", r.StatusCode)
	}
}

func TestUnbuiltSiteSaysHowToBuild(t *testing.T) {
	s, err := Load(fstest.MapFS{".keep": {Data: []byte("placeholder")}})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := s.Serve(context.Background(), get("/", "", nil))
	if s.Built() || r.StatusCode != 503 || !strings.Contains(r.Body, "make build") {
		t.Fatalf("unbuilt: %d %q", r.StatusCode, r.Body)
	}
}

func TestLoadRefusesWhatItCannotServe(t *testing.T) {
	for name, fsys := range map[string]fstest.MapFS{
		"page without assets":  {"index.html": {Data: []byte(page)}},
		"unknown content type": {"index.html": {Data: []byte(page)}, "assets/data.unknownext": {Data: []byte("x")}},
	} {
		if _, err := Load(fsys); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
}

// TestEmbeddedBuild checks the files this binary embeds: after the Makefile's build (make
// test builds them first), the page and every asset it names are served; in a checkout
// that was never built, the page says how to build it.
func TestEmbeddedBuild(t *testing.T) {
	dist, _ := fs.Sub(built, "dist")
	s, err := Load(dist)
	if err != nil {
		t.Fatal(err)
	}
	h := New()
	r, _ := h(context.Background(), get("/", "", nil))
	if !s.Built() {
		if r.StatusCode != 503 {
			t.Fatalf("unbuilt: %d", r.StatusCode)
		}
		t.Log("dist/ holds no build: only the unbuilt answer was checked (make build makes one)")
		return
	}
	refs := regexp.MustCompile(`(?:src|href)="/assets/([^"]+)"`).FindAllStringSubmatch(r.Body, -1)
	if r.StatusCode != 200 || len(refs) < 2 {
		t.Fatalf("page: %d, %d asset references", r.StatusCode, len(refs))
	}
	if strings.Contains(r.Body, "<script>") || strings.Contains(r.Body, "<style") || strings.Contains(r.Body, " style=") {
		t.Errorf("the page has inline script or style, which its Content-Security-Policy blocks")
	}
	for _, ref := range refs {
		a, _ := h(context.Background(), get(AssetsPrefix+ref[1], ref[1], nil))
		if a.StatusCode != 200 || a.Headers["Cache-Control"] != assetCache {
			t.Errorf("%s: %d %q", ref[1], a.StatusCode, a.Headers["Cache-Control"])
		}
	}
}
