//go:build linux

package rie

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/infra/devstack/samtemplate"
	"github.com/subsight/subsight/infra/testkit/grantcheck"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/routes"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestLambdaParity runs every function of the registry (shared/routes, from which
// template.yaml's are generated) as Lambda runs it: the real bootstrap, built by the
// Makefile (host architecture), under aws-lambda-rie in the sandbox of sandbox_test.go,
// with the environment the template gives it. A function with a parity case
// (parity_cases_test.go) gets a representative event that makes it call the AWS
// services it uses, with the answer and the stored effect checked; an operation without
// one gets the generic case (runGeneric).
//
// Every function has its own emulator process (aws-lambda-rie serves one invoke at a
// time); they start in parallel. API functions share one set of resources and one
// account with its fixture (fixture_test.go); functions whose cases watch their queues
// get resources of their own.
func TestLambdaParity(t *testing.T) {
	rieBin := os.Getenv("RIE_BIN")
	if rieBin == "" {
		t.Skip("RIE_BIN is not set: run `make test`, which installs aws-lambda-rie into .bin/ and sets it")
	}
	h := newHarness(t, rieBin)

	// Cases run one after the other: the emulator is the bottleneck on two cores, and
	// sequential cases keep the shared account's state easy to reason about.
	t0 := time.Now()
	for _, reg := range routes.Functions {
		id := reg.LogicalID()
		t.Run(id, func(t *testing.T) {
			fn := h.functions[id]
			if fn == nil {
				t.Fatalf("%s did not start", id)
			}
			c, ok := parityCases[id]
			switch {
			case !ok && reg.API != nil:
				h.runGeneric(t, fn, reg)
			case !ok:
				t.Fatalf("%s has no parity case: add one to parityCases (parity_cases_test.go)", id)
			case c.api != nil:
				h.runAPI(t, fn, c.api(h.fix))
			default:
				c.run(t, fn)
			}
			h.checkSandbox(t, fn)
		})
	}
	cases := time.Since(t0)
	casesPassed := !t.Failed()
	t.Run("LeastPrivilege", func(t *testing.T) { h.checkGrants(t, casesPassed) })
	for id := range parityCases {
		if _, ok := routes.Lookup(id); !ok {
			t.Errorf("parityCases has %s, which shared/routes does not register", id)
		}
	}
	var invokes int
	for _, fn := range h.functions {
		invokes += fn.invokes
	}
	t.Logf("%d functions of template.yaml under aws-lambda-rie (%s): build %v, %d emulators started in %v, fixture %v, %d invokes in %v",
		len(h.functions), hostArch(), h.built.Round(time.Millisecond), len(h.functions), h.started.Round(time.Millisecond),
		h.fixtureTime.Round(time.Millisecond), invokes, cases.Round(time.Millisecond))
}

// harness is the state one parity run shares.
type harness struct {
	root      string
	tpl       *samtemplate.Template
	box       *sandbox
	shared    *testenv.Env
	functions map[string]*function
	// calls are the AWS requests of every bootstrap, for the least-privilege check.
	calls grantcheck.Recorder

	fix         *fixture
	fixtureTime time.Duration
	built       time.Duration
	started     time.Duration
}

// function is one template function running in its sandbox, with the resources its
// environment names.
type function struct {
	*lambdaProcess
	id  string
	env *testenv.Env
	h   *harness
}

func newHarness(t *testing.T, rieBin string) *harness {
	t.Helper()
	root, tpl := testenv.RepoTemplate(t)
	h := &harness{root: root, tpl: tpl, functions: map[string]*function{}}
	bin := h.build(t)
	h.box = newSandbox(t, rieBin)
	h.shared = testenv.New(t)

	t0 := time.Now()
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
	)
	for _, reg := range routes.Functions {
		id := reg.LogicalID()
		env := h.shared
		if c, ok := parityCases[id]; ok && c.ownResources {
			env = testenv.New(t)
		}
		folder := routes.Folder(id)
		task := h.box.taskDir(t, folder, filepath.Join(bin, folder, "bootstrap"))
		vars := map[string]string{}
		for k, v := range env.Vars[id] {
			vars[k] = v
		}
		if c, ok := parityCases[id]; ok && c.vars != nil {
			maps.Copy(vars, c.vars(t))
		}
		// The function reaches the emulator through its recording proxy.
		vars["AWS_ENDPOINT_URL"] = h.recordingEndpoint(t, id, env)
		lenv := lambdaEnv(tpl.Functions[id], vars, env.AWS.Region, task, filepath.Dir(h.box.rie))
		wg.Go(func() {
			p, err := h.box.start(t, id, task, lenv)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			h.functions[id] = &function{lambdaProcess: p, id: id, env: env, h: h}
		})
	}
	// The shared account's fixture, in-process, while the emulators start.
	tf := time.Now()
	h.fix = newFixture(t, h.shared)
	h.fixtureTime = time.Since(tf)
	wg.Wait()
	h.started = time.Since(t0)
	for _, err := range errs {
		t.Error(err)
	}
	if len(errs) > 0 {
		t.FailNow()
	}
	return h
}

// build runs the Makefile's build for this machine's architecture (the same command,
// flags and tags as the arm64 production build) and returns its output folder.
func (h *harness) build(t *testing.T) string {
	t.Helper()
	arch := hostArch()
	cmd := exec.Command("make", "-s", "build", "LAMBDA_ARCH="+arch)
	cmd.Dir = h.root
	t0 := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make build LAMBDA_ARCH=%s: %v\n%s", arch, err, out)
	}
	h.built = time.Since(t0)
	bin := "bin"
	if arch != "arm64" {
		bin = "bin-" + arch
	}
	return filepath.Join(h.root, bin)
}

// parityCase is how one function is exercised: api for an HTTP API operation (the
// common shape), run for anything else.
type parityCase struct {
	api func(f *fixture) apiCase
	run func(t *testing.T, fn *function)
	// ownResources gives the function a table, queues and bucket of its own, for
	// cases that read what their function sends to a queue.
	ownResources bool
	// vars are environment variables of the function's own, over the template's
	// (a server the case stands up in place of an outside API).
	vars func(t *testing.T) map[string]string
}

// apiCase is one request to an API operation through its bootstrap, as API Gateway
// sends it after the authorizer, on the shared account.
type apiCase struct {
	Params map[string]string
	Query  url.Values
	Body   any
	Status int
	// Check verifies the answer (nil for an empty body) and what the request stored;
	// f.call reads through the same handlers in-process.
	Check func(t *testing.T, f *fixture, body map[string]any)
}

// runGeneric is the parity case of an operation without one of its own: the same
// request (its route, unknown ids in the path, no body) from an account that owns
// nothing, answered alike by the bootstrap under aws-lambda-rie and by the handler
// in-process. It shows that the function starts, reads its environment and reaches the
// emulator as the Lambda would; a case of its own also checks what it stores.
func (h *harness) runGeneric(t *testing.T, fn *function, reg routes.Function) {
	t.Helper()
	route := reg.Routes[0]
	params := map[string]string{}
	for _, m := range pathParam.FindAllStringSubmatch(route.Path, -1) {
		params[m[1]] = "unknown"
	}
	stranger := h.shared.NewAccount(t, "Parity stranger").ID
	status, body := fn.callAPI(t, gatewayEvent(h.tpl, fn.id, params, nil, nil, stranger))
	want := apigwtest.Raw(t, reg.API(h.shared.API), apigwtest.Call{Method: route.Method, Route: route.Path,
		PathParams: params, AccountID: stranger})
	var wantBody map[string]any
	if want.Body != "" {
		if err := json.Unmarshal([]byte(want.Body), &wantBody); err != nil {
			t.Fatalf("in-process answer %d %q: %v", want.StatusCode, want.Body, err)
		}
	}
	if status != want.StatusCode || !reflect.DeepEqual(body, wantBody) {
		t.Errorf("%s: the bootstrap answers %d %v, the handler in-process %d %v", route.Key(), status, body, want.StatusCode, wantBody)
	}
}

var pathParam = regexp.MustCompile(`\{([a-z_]+)\}`)

func (h *harness) runAPI(t *testing.T, fn *function, c apiCase) {
	t.Helper()
	f := h.fix
	ev := gatewayEvent(h.tpl, fn.id, c.Params, c.Query, c.Body, f.acc.ID)
	status, body := fn.callAPI(t, ev)
	if status != c.Status {
		t.Fatalf("%s %s: status %d, want %d: %v", ev.RequestContext.HTTP.Method, ev.RawPath, status, c.Status, body)
	}
	if c.Check != nil {
		c.Check(t, f, body)
	}
}

// callAPI invokes an API function and decodes its API Gateway answer.
func (fn *function) callAPI(t *testing.T, ev events.APIGatewayV2HTTPRequest) (int, map[string]any) {
	t.Helper()
	var res events.APIGatewayV2HTTPResponse
	raw := fn.invoke(t, ev)
	if err := json.Unmarshal(raw, &res); err != nil || res.StatusCode == 0 {
		t.Fatalf("not an API Gateway answer: %v: %s", err, raw)
	}
	if res.Body == "" {
		return res.StatusCode, nil
	}
	if ct := res.Headers["Content-Type"]; !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(res.Body), &body); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, res.Body)
	}
	return res.StatusCode, body
}

var requestSeq atomic.Int64

// gatewayEvent is the payload-2.0 event API Gateway sends to the function of id for
// its route (the template's first HttpApi event), after the authorizer put account
// into the context.
func gatewayEvent(tpl *samtemplate.Template, id string, params map[string]string, q url.Values, body any, account string) events.APIGatewayV2HTTPRequest {
	route := tpl.Functions[id].HttpEvents[0]
	ev := apigwtest.Call{Method: route.Method, Route: route.Path, PathParams: params, Query: q, Body: body, AccountID: account}.Event()
	now := time.Now().UTC()
	for k, v := range map[string]string{
		"accept": "application/json", "authorization": "Basic cGFyaXR5LWtleS0wMTIzNDU2Nzg5Og==",
		"host": "abc123.execute-api.us-east-1.amazonaws.com", "user-agent": "lambda-parity",
		"x-forwarded-for": "127.0.0.1", "x-forwarded-port": "443", "x-forwarded-proto": "https",
	} {
		ev.Headers[k] = v
	}
	if ev.Body != "" {
		ev.Headers["content-length"] = fmt.Sprint(len(ev.Body))
	}
	rc := &ev.RequestContext
	rc.RouteKey = ev.RouteKey
	rc.AccountID = "123456789012"
	rc.APIID = "abc123"
	rc.DomainName = "abc123.execute-api.us-east-1.amazonaws.com"
	rc.DomainPrefix = "abc123"
	rc.Stage = "$default"
	rc.RequestID = fmt.Sprintf("parity-%d-%d", now.UnixNano(), requestSeq.Add(1))
	rc.Time = now.Format("02/Jan/2006:15:04:05 -0700")
	rc.TimeEpoch = now.UnixMilli()
	rc.HTTP.Protocol = "HTTP/1.1"
	rc.HTTP.SourceIP = "127.0.0.1"
	rc.HTTP.UserAgent = "lambda-parity"
	return ev
}

// forbiddenHere are variables of this machine that a Lambda function never sees.
var forbiddenHere = []string{"HOME", "AWS_CA_BUNDLE", "SSL_CERT_FILE", "SSL_CERT_DIR", "HTTP_PROXY", "HTTPS_PROXY",
	"NO_PROXY", "http_proxy", "https_proxy", "no_proxy", "GOFLAGS", "GOPATH", "MOTO_SERVER", "RIE_BIN", "USER"}

// checkSandbox verifies, on the running bootstrap, what the sandbox promises: its
// working directory is its read-only task directory, its environment holds nothing
// of this machine's, and it runs unprivileged when the tests run as root.
func (h *harness) checkSandbox(t *testing.T, fn *function) {
	t.Helper()
	if fn.invokes == 0 {
		return
	}
	pid, err := fn.bootstrapProcess()
	if err != nil {
		t.Errorf("sandbox: %v", err)
		return
	}
	if cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); err != nil || cwd != fn.taskDir {
		t.Errorf("sandbox: working directory %q (%v), want %s", cwd, err, fn.taskDir)
	}
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Errorf("sandbox: %v", err)
		return
	}
	env := map[string]string{}
	for _, kv := range strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00") {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	for _, k := range forbiddenHere {
		if _, ok := env[k]; ok {
			t.Errorf("sandbox: the bootstrap sees %s", k)
		}
	}
	if env["AWS_LAMBDA_RUNTIME_API"] == "" || env["LAMBDA_TASK_ROOT"] != fn.taskDir {
		t.Errorf("sandbox: runtime API %q, task root %q", env["AWS_LAMBDA_RUNTIME_API"], env["LAMBDA_TASK_ROOT"])
	}
	if credential() != nil {
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil || !slices.ContainsFunc(strings.Split(string(st), "\n"), func(l string) bool {
			return strings.HasPrefix(l, "Uid:") && strings.Fields(l)[2] == fmt.Sprint(nobody)
		}) {
			t.Errorf("sandbox: the bootstrap does not run as nobody (%v)", err)
		}
	}
}

// TestSandboxIsReadOnlyButTmp checks the sandbox's file-system promise with the same
// user, working directory and environment a bootstrap gets: the task directory cannot
// be written, /tmp can.
func TestSandboxIsReadOnlyButTmp(t *testing.T) {
	dir, err := os.MkdirTemp("", "lambda-sandbox-check-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	task := filepath.Join(dir, "task")
	if err := os.Mkdir(task, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(task, 0o755)
	try := func(path string) error {
		cmd := exec.Command("/bin/sh", "-c", `echo x > "$1" && rm -f "$1"`, "sh", path)
		cmd.Dir = task
		cmd.Env = []string{"PATH=/usr/bin:/bin"}
		cmd.SysProcAttr = sandboxAttr()
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	}
	if err := try(filepath.Join(task, "written")); err == nil {
		t.Error("the task directory is writable")
	}
	if err := try("written-in-the-working-directory"); err == nil {
		t.Error("the working directory is writable")
	}
	if err := try(filepath.Join(os.TempDir(), fmt.Sprintf("lambda-sandbox-%d", time.Now().UnixNano()))); err != nil {
		t.Errorf("/tmp is not writable: %v", err)
	}
}

// ctx is the background context of the in-process calls.
var ctx = context.Background()
