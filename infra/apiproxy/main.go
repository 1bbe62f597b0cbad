// Command apiproxy sits between a client suite and the local stack: it forwards every
// request and validates every response against docs/openapi.yaml (infra/devstack/openapi). A
// response that breaks the document reaches the client as a 502 that names the
// violation. On SIGTERM or SIGINT it prints its counts, writes them as JSON to -report
// and exits 1 if any response broke the document.
//
//	apiproxy -listen 127.0.0.1:3141 -upstream http://127.0.0.1:3104 -report report.json
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/subsight/subsight/infra/devstack/openapi"
	"github.com/subsight/subsight/infra/repo"
)

func main() {
	os.Exit(run())
}

func run() int {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	upstream := flag.String("upstream", "", "base URL of the API (the local stack)")
	spec := flag.String("spec", "", "the OpenAPI document (default: docs/openapi.yaml of the repository)")
	report := flag.String("report", "", "file for the JSON report written on exit")
	observe := flag.Bool("observe", false, "record violations but pass every response through unchanged")
	ready := flag.String("ready", "", "file to write the proxy's base URL into once it listens")
	flag.Parse()
	if *upstream == "" {
		fmt.Fprintln(os.Stderr, "apiproxy: -upstream is required")
		return 2
	}
	target, err := url.Parse(*upstream)
	if err != nil {
		fmt.Fprintln(os.Stderr, "apiproxy:", err)
		return 2
	}
	if *spec == "" {
		root, err := repo.Root()
		if err != nil {
			fmt.Fprintln(os.Stderr, "apiproxy:", err)
			return 2
		}
		*spec = filepath.Join(root, openapi.DocumentPath)
	}
	s, err := openapi.Load(*spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, "apiproxy:", err)
		return 2
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "apiproxy:", err)
		return 2
	}
	base := "http://" + ln.Addr().String()
	if *ready != "" {
		if err := os.WriteFile(*ready, []byte(base+"\n"), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "apiproxy:", err)
			return 2
		}
	}
	p := openapi.NewProxy(s, target)
	p.Observe = *observe
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, "apiproxy:", err)
		return 2
	}

	r := p.Report()
	fmt.Fprintf(os.Stderr, "openapi: %d responses validated against %s (%d of %d documented operations exercised), %d unrouted 404s, %d violations\n",
		r.Validated, filepath.Base(*spec), len(r.Exercised()), len(s.Routes()), r.Unrouted, len(r.Violations))
	for _, v := range r.Violations {
		fmt.Fprintf(os.Stderr, "  %s %s -> %d: %v\n", v.Method, v.Path, v.Status, v.Errors)
	}
	if *report != "" {
		b, _ := json.MarshalIndent(r, "", "  ")
		if err := os.WriteFile(*report, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "apiproxy:", err)
			return 2
		}
	}
	if len(r.Violations) > 0 {
		return 1
	}
	return 0
}
