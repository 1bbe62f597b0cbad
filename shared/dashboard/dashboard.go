// Package dashboard serves the web dashboard: one HTML page and its content-hashed assets,
// embedded in the binary at build time (web/ builds them, see assets.go). The page talks
// only to the public API, with the API key the person types in; this package knows no
// account, key or AWS service, so its function needs no IAM permission and its routes no
// authorizer.
package dashboard

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/aws/aws-lambda-go/events"
)

// AssetsPrefix is the path of the assets' route, GET /assets/{file}.
const AssetsPrefix = "/assets/"

// ContentSecurityPolicy lets the page load only its own scripts, styles and images and
// talk only to its own origin (the API); no inline script or style, no framing, no
// form posts elsewhere.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// securityHeaders go on every answer of the dashboard's function.
var securityHeaders = map[string]string{
	"Content-Security-Policy":      ContentSecurityPolicy,
	"X-Content-Type-Options":       "nosniff",
	"Referrer-Policy":              "no-referrer",
	"X-Frame-Options":              "DENY",
	"Cross-Origin-Opener-Policy":   "same-origin",
	"Cross-Origin-Resource-Policy": "same-origin",
	"Permissions-Policy":           "camera=(), microphone=(), geolocation=(), payment=()",
	"Strict-Transport-Security":    "max-age=31536000",
}

const (
	// The page itself is revalidated on every load (it names the current assets).
	pageCache = "no-cache"
	// Asset names carry a hash of their content: a new build gets new names.
	assetCache = "public, max-age=31536000, immutable"
)

// Handler is the Lambda handler of the dashboard's function (payload format 2.0).
type Handler func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// file is one servable file, with its gzip twin when the build made one.
type file struct {
	body        []byte
	gzipped     []byte
	contentType string
	etag        string
}

// Site is the set of files the dashboard serves.
type Site struct {
	page   *file // nil when the assets were never built
	assets map[string]*file
}

// New returns the handler serving the assets embedded in this binary.
func New() Handler {
	dist, err := fs.Sub(built, "dist")
	if err != nil {
		panic(err) // the embed directive guarantees dist/
	}
	site, err := Load(dist)
	if err != nil {
		panic(fmt.Sprintf("dashboard: the embedded assets are unusable: %v", err))
	}
	return site.Serve
}

// Load reads a build's output: index.html and assets/*, each with an optional .gz twin.
// Other files (the .keep of an unbuilt checkout) are not served.
func Load(dist fs.FS) (*Site, error) {
	s := &Site{assets: map[string]*file{}}
	if b, err := fs.ReadFile(dist, "index.html"); err == nil {
		if s.page, err = newFile(dist, "index.html", b); err != nil {
			return nil, err
		}
	}
	entries, err := fs.ReadDir(dist, "assets")
	if err != nil {
		if s.page != nil {
			return nil, fmt.Errorf("index.html without assets/: %w", err)
		}
		return s, nil
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasSuffix(name, ".gz") || strings.HasPrefix(name, ".") {
			continue
		}
		b, err := fs.ReadFile(dist, "assets/"+name)
		if err != nil {
			return nil, err
		}
		if s.assets[name], err = newFile(dist, "assets/"+name, b); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func newFile(dist fs.FS, name string, body []byte) (*file, error) {
	ct := mime.TypeByExtension(path.Ext(name))
	switch path.Ext(name) {
	case ".js", ".mjs":
		ct = "text/javascript; charset=utf-8"
	case ".html":
		ct = "text/html; charset=utf-8"
	case ".css":
		ct = "text/css; charset=utf-8"
	case ".svg":
		ct = "image/svg+xml"
	}
	if ct == "" {
		return nil, fmt.Errorf("%s: no content type for its extension", name)
	}
	sum := sha256.Sum256(body)
	f := &file{body: body, contentType: ct, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
	if gz, err := fs.ReadFile(dist, name+".gz"); err == nil {
		f.gzipped = gz
	}
	return f, nil
}

// Built tells whether the site has a page to serve.
func (s *Site) Built() bool { return s.page != nil }

// Serve answers GET / with the page and GET /assets/{file} with an asset.
func (s *Site) Serve(_ context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	if s.page == nil {
		return plain(http.StatusServiceUnavailable, "The dashboard was not built into this binary: build it with `make build`.\n"), nil
	}
	p := ev.RawPath
	if p == "" {
		p = ev.RequestContext.HTTP.Path
	}
	switch {
	case p == "/":
		return s.page.answer(ev, pageCache), nil
	case strings.HasPrefix(p, AssetsPrefix):
		name := ev.PathParameters["file"]
		if name == "" {
			name = strings.TrimPrefix(p, AssetsPrefix)
		}
		if f, ok := s.assets[name]; ok {
			return f.answer(ev, assetCache), nil
		}
	}
	return plain(http.StatusNotFound, "Not found.\n"), nil
}

func (f *file) answer(ev events.APIGatewayV2HTTPRequest, cache string) events.APIGatewayV2HTTPResponse {
	h := headers(f.contentType)
	h["Cache-Control"] = cache
	h["ETag"] = f.etag
	h["Vary"] = "Accept-Encoding"
	if match := ev.Headers["if-none-match"]; match != "" && etagMatches(match, f.etag) {
		return events.APIGatewayV2HTTPResponse{StatusCode: http.StatusNotModified, Headers: h}
	}
	if f.gzipped != nil && acceptsGzip(ev.Headers["accept-encoding"]) {
		h["Content-Encoding"] = "gzip"
		return events.APIGatewayV2HTTPResponse{StatusCode: http.StatusOK, Headers: h,
			Body: base64.StdEncoding.EncodeToString(f.gzipped), IsBase64Encoded: true}
	}
	return events.APIGatewayV2HTTPResponse{StatusCode: http.StatusOK, Headers: h, Body: string(f.body)}
}

func plain(status int, text string) events.APIGatewayV2HTTPResponse {
	h := headers("text/plain; charset=utf-8")
	h["Cache-Control"] = "no-store"
	return events.APIGatewayV2HTTPResponse{StatusCode: status, Headers: h, Body: text}
}

func headers(contentType string) map[string]string {
	h := make(map[string]string, len(securityHeaders)+5)
	for k, v := range securityHeaders {
		h[k] = v
	}
	h["Content-Type"] = contentType
	return h
}

// acceptsGzip reads an Accept-Encoding header: gzip listed without q=0.
func acceptsGzip(header string) bool {
	for part := range strings.SplitSeq(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		q := strings.ReplaceAll(params, " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}

func etagMatches(header, etag string) bool {
	for tag := range strings.SplitSeq(header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == etag || tag == "*" {
			return true
		}
	}
	return false
}
