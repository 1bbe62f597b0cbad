//go:build linux

package rie

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The production build is linux/arm64; this test builds for the host's architecture (the
// emulator runs the binary directly) with the same flags as the Makefile.
var buildFlags = []string{"-trimpath", "-tags", "lambda.norpc", "-ldflags", "-s -w"}

const invokePath = "/2015-03-31/functions/function/invocations"

func TestPingBootstrapUnderRIE(t *testing.T) {
	rieBin := os.Getenv("RIE_BIN")
	if rieBin == "" {
		t.Skip("RIE_BIN is not set: run `make test`, which installs aws-lambda-rie into .bin/ and sets it")
	}
	if _, err := os.Stat(rieBin); err != nil {
		t.Fatalf("RIE_BIN=%s: %v", rieBin, err)
	}

	bootstrap := buildBootstrap(t, "ping")
	rie := startRIE(t, rieBin, bootstrap, map[string]string{
		"TABLE_NAME":    "subsight-rie-test",
		"CURSOR_SECRET": "rie-test-cursor-secret-0123456789",
		"AWS_REGION":    "us-east-1",
	})

	authorized := v2Event("GET", "/v1/ping", "acc_rietest")

	start := time.Now()
	res := rie.invoke(t, authorized)
	cold := time.Since(start)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("ping: status %d, body %s", res.StatusCode, res.Body)
	}
	if ct := header(res.Headers, "Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("ping: Content-Type %q, want application/json", ct)
	}
	assertJSON(t, res.Body, `{"data":"pong!"}`)

	res = rie.invoke(t, v2Event("GET", "/v1/ping", ""))
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("ping without an account: status %d, body %s", res.StatusCode, res.Body)
	}
	if want := `{"code":401,"message":"No valid API key provided","param":null}`; res.Body != want {
		t.Errorf("ping without an account: body %s, want exactly %s", res.Body, want)
	}

	const n = 50
	warm := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		res := rie.invoke(t, authorized)
		warm = append(warm, time.Since(start))
		if res.StatusCode != http.StatusOK {
			t.Fatalf("warm ping: status %d, body %s", res.StatusCode, res.Body)
		}
	}
	slices.Sort(warm)
	t.Logf("aws-lambda-rie, %s/%s bootstrap: emulator listening after %v; cold invoke (init + first request) %v; "+
		"warm invokes over %d: p50 %v, p90 %v, max %v",
		runtime.GOOS, runtime.GOARCH, rie.ready.Round(time.Microsecond), cold.Round(time.Microsecond), n,
		warm[n/2].Round(time.Microsecond), warm[n*9/10].Round(time.Microsecond), warm[n-1].Round(time.Microsecond))
}

// buildBootstrap compiles functions/<name> as Lambda would run it and returns its path.
func buildBootstrap(t *testing.T, name string) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "bootstrap")
	args := append([]string{"build"}, buildFlags...)
	args = append(args, "-o", out, "./functions/"+name)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	start := time.Now()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./functions/%s: %v\n%s", name, err, b)
	}
	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("built functions/%s for linux/%s in %v: %.2f MiB", name, runtime.GOARCH,
		time.Since(start).Round(time.Millisecond), float64(fi.Size())/(1<<20))
	return out
}

type emulator struct {
	url   string
	ready time.Duration
}

// startRIE runs aws-lambda-rie with bootstrap on two free ports and a clean environment;
// it is stopped (with the bootstrap it started) when the test ends. Invokes must be
// sequential: one emulator handles one request at a time.
func startRIE(t *testing.T, rieBin, bootstrap string, env map[string]string) *emulator {
	t.Helper()
	apiAddr, runtimeAddr := freeAddr(t), freeAddr(t)
	cmd := exec.Command(rieBin,
		"--runtime-interface-emulator-address", apiAddr,
		"--runtime-api-address", runtimeAddr,
		bootstrap)
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + t.TempDir(),
		// Dummy credentials; the code under test must not need to reach AWS to start.
		"AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test",
		"AWS_EC2_METADATA_DISABLED=true",
		"AWS_LAMBDA_FUNCTION_NAME=PingFunction",
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var logs syncBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", rieBin, err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the emulator and its bootstrap
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("aws-lambda-rie output:\n%s", logs.String())
		}
	})
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", apiAddr, 100*time.Millisecond)
		if err == nil {
			_ = c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("aws-lambda-rie did not listen on %s: %v\n%s", apiAddr, err, logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	return &emulator{url: "http://" + apiAddr + invokePath, ready: time.Since(start)}
}

type v2Response struct {
	StatusCode int               `json:"statusCode"`
	Headers    map[string]string `json:"headers"`
	Body       string            `json:"body"`
	// Set instead when the function failed (RIE still answers HTTP 200).
	ErrorMessage string `json:"errorMessage"`
	ErrorType    string `json:"errorType"`
}

func (e *emulator) invoke(t *testing.T, event []byte) v2Response {
	t.Helper()
	client := &http.Client{Timeout: 30 * time.Second}
	res, err := client.Post(e.url, "application/json", bytes.NewReader(event))
	if err != nil {
		t.Fatalf("invoke: %v", err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("invoke: %v", err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("invoke: emulator answered %s: %s", res.Status, b)
	}
	var out v2Response
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("invoke: not an API Gateway v2 response: %v: %s", err, b)
	}
	if out.ErrorType != "" || out.ErrorMessage != "" {
		t.Fatalf("invoke: function error %s: %s", out.ErrorType, out.ErrorMessage)
	}
	return out
}

// v2Event is an API Gateway HTTP API (payload format 2.0) event as API Gateway sends it
// after the Lambda authorizer: account "" is what the authorizer answers for a bad key.
func v2Event(method, path, account string) []byte {
	now := time.Now().UTC()
	ev := map[string]any{
		"version":        "2.0",
		"routeKey":       method + " " + path,
		"rawPath":        path,
		"rawQueryString": "",
		"headers": map[string]string{
			"accept":            "application/json",
			"authorization":     "Basic cmllLXRlc3Qta2V5LTAxMjM0NTY3ODk6",
			"host":              "abc123.execute-api.us-east-1.amazonaws.com",
			"user-agent":        "rie-test",
			"x-forwarded-for":   "127.0.0.1",
			"x-forwarded-proto": "https",
		},
		"requestContext": map[string]any{
			"accountId":    "123456789012",
			"apiId":        "abc123",
			"authorizer":   map[string]any{"lambda": map[string]any{"accountId": account}},
			"domainName":   "abc123.execute-api.us-east-1.amazonaws.com",
			"domainPrefix": "abc123",
			"http": map[string]any{
				"method": method, "path": path, "protocol": "HTTP/1.1",
				"sourceIp": "127.0.0.1", "userAgent": "rie-test",
			},
			"requestId": fmt.Sprintf("rie-%d", now.UnixNano()),
			"routeKey":  method + " " + path,
			"stage":     "$default",
			"time":      now.Format("02/Jan/2006:15:04:05 -0700"),
			"timeEpoch": now.UnixMilli(),
		},
		"isBase64Encoded": false,
	}
	b, err := json.Marshal(ev)
	if err != nil {
		panic(err)
	}
	return b
}

func assertJSON(t *testing.T, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("body is not JSON: %v: %s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if !bytes.Equal(gb, wb) {
		t.Errorf("body %s, want %s", got, want)
	}
}

func header(h map[string]string, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
