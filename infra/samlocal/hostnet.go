package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
)

// The host-network adapter. SAM CLI starts each function in a container on the
// engine's default network, publishes the container's port 8080 (where its runtime
// interface emulator listens) on a free host port, and invokes the function there. An
// engine without a bridge (dockerd --bridge=none, as the tests run it: no traffic
// leaves 127.0.0.0/8) cannot publish ports, and SAM CLI has no setting for host
// networking: --docker-network host only skips connecting the container to a named
// network. The adapter is a Docker API proxy for SAM CLI (DOCKER_HOST) that rewrites
// one request, the creation of a Lambda container:
//
//   - HostConfig.NetworkMode becomes "host", and the port bindings go;
//   - the emulator (SAM's entrypoint, /var/rapid/aws-lambda-rie) is told to listen on
//     the host address SAM CLI chose for port 8080, and to serve the runtime API on a
//     free loopback port instead of 9001, which every container would share.
//
// Everything else passes through unchanged. TestSAMCreatesContainersAsTheAdapterExpects
// fails if a SAM CLI upgrade changes what the rewrite relies on.

// rieEntrypoint is the emulator SAM CLI copies into its images and starts.
const rieEntrypoint = "/var/rapid/aws-lambda-rie"

// rapidPort is the container port of SAM's emulator.
const rapidPort = "8080/tcp"

var createPath = regexp.MustCompile(`^(/v[0-9.]+)?/containers/create$`)

// hostNetwork proxies the Docker API on socket dockerSock.
func hostNetwork(dockerSock string) http.Handler {
	target, _ := url.Parse("http://docker")
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport = &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", dockerSock)
	}}
	proxy.FlushInterval = -1 // logs and attach streams as they come
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && createPath.MatchString(r.URL.Path) {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			out, rewritten, err := rewriteCreate(body, freeLoopbackAddr)
			if err != nil {
				slog.Error("host-network adapter: container create", "error", err.Error())
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				_ = json.NewEncoder(w).Encode(map[string]string{"message": "host-network adapter: " + err.Error()})
				return
			}
			if rewritten {
				slog.Debug("host-network adapter: Lambda container on the host network")
			}
			r.Body = io.NopCloser(bytes.NewReader(out))
			r.ContentLength = int64(len(out))
			r.Header.Set("Content-Length", strconv.Itoa(len(out)))
		}
		proxy.ServeHTTP(w, r)
	})
}

// rewriteCreate rewrites the body of a container create request if it creates SAM's
// Lambda container; other bodies come back unchanged. pick returns a free loopback
// address for the runtime API.
func rewriteCreate(body []byte, pick func() (string, error)) ([]byte, bool, error) {
	var req map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&req); err != nil {
		return nil, false, fmt.Errorf("container create body: %w", err)
	}
	entry, _ := req["Entrypoint"].([]any)
	if len(entry) == 0 || entry[0] != rieEntrypoint {
		return body, false, nil
	}
	host, _ := req["HostConfig"].(map[string]any)
	if host == nil {
		return nil, false, errors.New("the Lambda container has no HostConfig")
	}
	bindings, _ := host["PortBindings"].(map[string]any)
	list, _ := bindings[rapidPort].([]any)
	if len(list) != 1 {
		return nil, false, fmt.Errorf("the Lambda container does not publish %s once: %v", rapidPort, host["PortBindings"])
	}
	b, _ := list[0].(map[string]any)
	hostIP, _ := b["HostIp"].(string)
	hostPort, _ := b["HostPort"].(string)
	if net.ParseIP(hostIP) == nil || hostPort == "" {
		return nil, false, fmt.Errorf("the Lambda container's port binding is %v", b)
	}
	if len(bindings) != 1 {
		// Debug ports: they would need the same treatment; not supported.
		return nil, false, fmt.Errorf("the Lambda container publishes other ports too: %v", bindings)
	}
	runtimeAddr, err := pick()
	if err != nil {
		return nil, false, err
	}
	req["Entrypoint"] = append(entry, "--runtime-interface-emulator-address", net.JoinHostPort(hostIP, hostPort),
		"--runtime-api-address", runtimeAddr)
	host["NetworkMode"] = "host"
	delete(host, "PortBindings")
	delete(req, "ExposedPorts")
	out, err := json.Marshal(req)
	return out, true, err
}

// freeLoopbackAddr is a loopback address nothing listens on now.
func freeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// serveHostNetwork runs the adapter on a unix socket until ctx ends.
func serveHostNetwork(ctx context.Context, listen, dockerSock string) error {
	l, err := net.Listen("unix", listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: hostNetwork(dockerSock)}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
