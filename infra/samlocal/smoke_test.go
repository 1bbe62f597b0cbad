//go:build linux

package main

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"debug/elf"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/repo"
	"github.com/subsight/subsight/infra/testkit/testenv"
)

// TestSAMLocalSmoke runs `make sam-local` (sam local start-api, the functions in
// containers) against a `make run` stack, on a machine without a Docker engine, a
// bridge or an image registry, and sends a client's requests through it.
//
//   - dockerd, Debian's, private to the test (its own data, exec root and socket),
//     started only with --bridge=none --iptables=false --ip-forward=false
//     --ip-masq=false --userland-proxy=false, and with a proxy on a closed loopback
//     port so that a registry request fails instead of leaving the machine. Only one
//     smoke runs at a time on a machine (a lock on the dockerd executable), and none while another dockerd
//     runs.
//   - The Lambda base image public.ecr.aws/lambda/provided:al2023-<arch>, a local
//     stand-in: busybox's sh, mv and chmod (all SAM CLI's image build runs) and
//     Lambda's environment variables; sam local runs with --skip-pull-image.
//   - SAM CLI reaches the engine through the host-network adapter (hostnet.go).
//
// make test runs it as its sam-smoke step (SAM_SMOKE=1), after installing docker.io
// and busybox-static when missing; everything it starts is stopped, every mount it
// made removed.
func TestSAMLocalSmoke(t *testing.T) {
	if os.Getenv("SAM_SMOKE") != "1" {
		t.Skip("make test's sam-smoke step runs this (SAM_SMOKE=1): it starts a private dockerd")
	}
	if os.Geteuid() != 0 {
		t.Fatal("the SAM smoke starts dockerd, which needs root (SAM_SMOKE=0 make test skips it)")
	}
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	lockMachine(t)
	if pids := processes("dockerd"); len(pids) > 0 {
		t.Fatalf("a dockerd runs already (pid %v): the smoke starts its own and only one may run; stop it or run SAM_SMOKE=0 make test", pids)
	}
	dir, err := os.MkdirTemp("/tmp", "sam-smoke-") // short: unix socket paths live under it
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeTree(t, dir) })

	t0 := time.Now()
	dockerSock := startDockerd(t, dir)
	tDocker := time.Since(t0)
	arch := "x86_64"
	if runtime.GOARCH == "arm64" {
		arch = "arm64"
	}
	engine := dockerClient(dockerSock)
	buildBaseImage(t, engine, arch)

	ctx, cancel := context.WithCancel(context.Background())
	samSock := filepath.Join(dir, "sam.sock")
	adapterDone := make(chan error, 1)
	go func() { adapterDone <- serveHostNetwork(ctx, samSock, dockerSock) }()
	t.Cleanup(func() {
		cancel()
		if err := <-adapterDone; err != nil {
			t.Errorf("host-network adapter: %v", err)
		}
	})

	stack := startStack(t, root, dir)
	t1 := time.Now()
	base := startSAMLocal(t, root, dir, samSock, arch)
	tSAM := time.Since(t1)
	t.Logf("dockerd ready in %v; make sam-local (sam build + start-api) answering after %v", tDocker.Round(time.Millisecond), tSAM.Round(time.Second))

	c := &client{t: t, base: base, key: stack.APIKey}
	smoke(t, c, stack)
	c.report()
}

// smoke is a client's sequence of requests through sam local start-api.
func smoke(t *testing.T, c *client, stack stackFile) {
	const unauthorized = `{"code":401,"message":"No valid API key provided","param":null}`
	// The authorizer accepts the stack's key and refuses others.
	c.expect("ping", "GET", "/v1/ping", nil, 200, `{"data":"pong!"}`)
	c.expect("ping", "GET", "/v1/ping", nil, 200, `{"data":"pong!"}`)
	c.with("wrong-key-0123456789abcdef").expect("wrong key", "GET", "/v1/account", nil, 401, unauthorized)
	c.with("").expect("no Authorization header (SAM answers)", "GET", "/v1/account", nil, 401, `{"message":"Unauthorized"}`)

	// A read, writes, a listing with a cursor.
	acc := c.expect("account", "GET", "/v1/account", nil, 200, "")
	c.expect("account", "GET", "/v1/account", nil, 200, "")
	if acc["id"] != stack.AccountID || acc["name"] != "Demo Company" {
		t.Errorf("account: %v", acc)
	}
	ds := c.expect("data source create", "POST", "/v1/data_sources", map[string]any{"name": "SAM smoke"}, 201, "")["uuid"].(string)
	for _, ext := range []string{"sam-1", "sam-2"} {
		c.expect("customer create", "POST", "/v1/customers", map[string]any{"data_source_uuid": ds, "external_id": ext,
			"name": "Customer " + ext}, 201, "")
	}
	page := c.expect("customer list", "GET", "/v1/customers?per_page=1&data_source_uuid="+ds, nil, 200, "")
	cursor, _ := page["cursor"].(string)
	if page["has_more"] != true || cursor == "" {
		t.Fatalf("first page: %v", page)
	}
	next := c.expect("customer list", "GET", "/v1/customers?per_page=1&data_source_uuid="+ds+"&cursor="+url.QueryEscape(cursor), nil, 200, "")
	first, second := entries(page), entries(next)
	if len(first) != 1 || len(second) != 1 || first[0]["external_id"] == second[0]["external_id"] || next["has_more"] != false {
		t.Errorf("pages: %v then %v", page, next)
	}

	// A json_import: accepted through SAM, applied by the stack's pollers, read back.
	imp := c.expect("json import", "POST", "/v1/data_sources/"+ds+"/json_imports", map[string]any{
		"external_id": "sam-batch",
		"customers":   []map[string]any{{"external_id": "sam-imported", "name": "Imported Through SAM"}},
	}, 200, "")
	id, _ := imp["id"].(string)
	deadline := time.Now().Add(60 * time.Second)
	for {
		st := c.expect("json import status", "GET", "/v1/data_sources/"+ds+"/json_imports/"+id, nil, 200, "")
		if st["status"] == "completed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("import not applied within 60 s: %v", st)
		}
		time.Sleep(200 * time.Millisecond)
	}
	got := entries(c.expect("customer list", "GET", "/v1/customers?external_id=sam-imported&data_source_uuid="+ds, nil, 200, ""))
	if len(got) != 1 || got[0]["name"] != "Imported Through SAM" {
		t.Errorf("imported customer: %v", got)
	}
}

func entries(body map[string]any) []map[string]any {
	raw, _ := body["entries"].([]any)
	var out []map[string]any
	for _, r := range raw {
		if m, ok := r.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// client sends requests through sam local and times them; the first request of an
// operation starts its container (cold), later ones reuse it (warm).
type client struct {
	t     *testing.T
	base  string
	key   string
	times map[string][]time.Duration
	order []string
}

func (c *client) with(key string) *client {
	cp := *c
	cp.key = key
	return &cp
}

// expect sends a request and checks its status and, if want is set, its exact body.
func (c *client) expect(what, method, path string, body any, status int, want string) map[string]any {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.base+path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(c.key+":")))
	}
	t0 := time.Now()
	res, err := (&http.Client{Timeout: 2 * time.Minute}).Do(req)
	if err != nil {
		c.t.Fatalf("%s: %v", what, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	c.record(what, time.Since(t0))
	if res.StatusCode != status || (want != "" && strings.TrimSpace(string(raw)) != want) {
		c.t.Fatalf("%s: %s %s = %d %s, want %d %s", what, method, path, res.StatusCode, raw, status, want)
	}
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return out
}

func (c *client) record(what string, d time.Duration) {
	if c.times == nil {
		c.times = map[string][]time.Duration{}
	}
	if _, ok := c.times[what]; !ok {
		c.order = append(c.order, what)
	}
	c.times[what] = append(c.times[what], d)
}

// report logs each request's first (cold) and later (warm) times.
func (c *client) report() {
	var b strings.Builder
	for _, what := range c.order {
		ds := c.times[what]
		fmt.Fprintf(&b, "\n  %-40s first %6dms", what, ds[0].Milliseconds())
		if len(ds) > 1 {
			warm := slices.Clone(ds[1:])
			slices.Sort(warm)
			fmt.Fprintf(&b, "   then %d more: median %4dms", len(warm), warm[len(warm)/2].Milliseconds())
		}
	}
	c.t.Logf("requests through sam local start-api (cold = first, container start included):%s", b.String())
}

// lockMachine makes smokes on one machine (several worktrees' make test) take turns,
// with a lock on the dockerd executable itself, so that nothing is left behind.
func lockMachine(t *testing.T) {
	t.Helper()
	f, err := os.Open(dockerdPath())
	if err != nil {
		t.Fatalf("%v (make test installs docker.io)", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() }) // closing releases the lock
}

func dockerdPath() string {
	if p, err := exec.LookPath("dockerd"); err == nil {
		return p
	}
	return "/usr/sbin/dockerd"
}

// processes lists the pids of running processes named name.
func processes(name string) []int {
	var out []int
	comms, _ := filepath.Glob("/proc/[0-9]*/comm")
	for _, c := range comms {
		b, err := os.ReadFile(c)
		if err == nil && strings.TrimSpace(string(b)) == name {
			var pid int
			fmt.Sscanf(filepath.Base(filepath.Dir(c)), "%d", &pid)
			out = append(out, pid)
		}
	}
	return out
}

// startDockerd starts the private engine and returns its socket; it is stopped when
// the test ends.
func startDockerd(t *testing.T, dir string) string {
	t.Helper()
	bin := dockerdPath()
	cfg := filepath.Join(dir, "daemon.json")
	if err := os.WriteFile(cfg, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "docker.sock")
	cmd := exec.Command(bin,
		"--config-file", cfg,
		"--data-root", filepath.Join(dir, "data"),
		"--exec-root", filepath.Join(dir, "exec"),
		"--pidfile", filepath.Join(dir, "docker.pid"),
		"--host", "unix://"+sock,
		"--bridge=none", "--iptables=false", "--ip-forward=false", "--ip-masq=false", "--userland-proxy=false",
		"--log-level", "warn")
	// The engine's own requests (a registry's) go to a closed loopback port.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HTTP_PROXY=http://127.0.0.1:9", "HTTPS_PROXY=http://127.0.0.1:9", "NO_PROXY="}
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		// dockerd stops its containers and its containerd on SIGTERM.
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(60 * time.Second):
			t.Errorf("dockerd did not stop within 60 s; killed")
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		if t.Failed() {
			t.Logf("dockerd output:\n%s", tail(logs.String(), 4000))
		}
	})
	engine := dockerClient(sock)
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := engine.Get("http://docker/_ping")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return sock
			}
		}
		select {
		case <-exited:
			t.Fatalf("dockerd exited: %s", logs.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("dockerd not ready within 60 s: %v\n%s", err, logs.String())
		}
	}
}

func dockerClient(sock string) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}}
}

// lambdaImageEnv is the environment of the Lambda provided.al2023 base image.
var lambdaImageEnv = []string{
	"LANG=en_US.UTF-8", "TZ=:/etc/localtime", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	"LD_LIBRARY_PATH=/var/lang/lib:/lib64:/usr/lib64:/var/runtime:/var/runtime/lib:/var/task:/var/task/lib:/opt/lib",
	"LAMBDA_TASK_ROOT=/var/task", "LAMBDA_RUNTIME_DIR=/var/runtime",
}

// buildBaseImage imports the stand-in for public.ecr.aws/lambda/provided:al2023-<arch>:
// a static busybox as /bin/sh, mv and chmod, the directories Lambda has, no time zone
// database and no certificates.
func buildBaseImage(t *testing.T, engine *http.Client, arch string) {
	t.Helper()
	busybox, err := exec.LookPath("busybox")
	if err != nil {
		busybox = "/bin/busybox"
	}
	if f, err := elf.Open(busybox); err != nil {
		t.Fatalf("busybox: %v (make test installs busybox-static)", err)
	} else {
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Fatalf("%s is dynamically linked: the image needs busybox-static's", busybox)
			}
		}
		f.Close()
	}
	bb, err := os.ReadFile(busybox)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, d := range []struct {
		name string
		mode int64
	}{{"bin/", 0o755}, {"tmp/", 0o1777}, {"var/", 0o755}, {"var/task/", 0o755}, {"var/runtime/", 0o755}, {"opt/", 0o755}} {
		_ = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d.name, Mode: d.mode})
	}
	_ = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "bin/busybox", Mode: 0o755, Size: int64(len(bb))})
	_, _ = tw.Write(bb)
	for _, cmd := range []string{"sh", "mv", "chmod"} {
		_ = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: "bin/" + cmd, Linkname: "busybox", Mode: 0o777})
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	q := url.Values{"fromSrc": {"-"}, "repo": {"public.ecr.aws/lambda/provided"}, "tag": {"al2023-" + arch}}
	for _, e := range lambdaImageEnv {
		q.Add("changes", "ENV "+e)
	}
	q.Add("changes", "WORKDIR /var/task")
	res, err := engine.Post("http://docker/images/create?"+q.Encode(), "application/x-tar", &buf)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || bytes.Contains(out, []byte(`"error"`)) {
		t.Fatalf("import of the stand-in base image: %d %s", res.StatusCode, out)
	}
}

type stackFile struct {
	BaseURL   string `json:"base_url"`
	APIKey    string `json:"api_key"`
	AccountID string `json:"account_id"`
}

// startStack runs `make run`'s program with its own stack file and a free port.
func startStack(t *testing.T, root, dir string) stackFile {
	t.Helper()
	bin := filepath.Join(dir, "local")
	build := exec.Command("go", "build", "-o", bin, "./infra/local")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./infra/local: %v\n%s", err, out)
	}
	key := make([]byte, 16)
	_, _ = rand.Read(key)
	file := filepath.Join(dir, "stack.json")
	cmd := exec.Command(bin)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PORT="+freePort(t), "LOCAL_API_KEY=samsmoke_"+hex.EncodeToString(key), "LOCAL_STACK_FILE="+file,
		"LOCAL_DEMO_DATA=0")
	var logs testenv.Output
	cmd.Stdout, cmd.Stderr = &logs, &logs
	stopGroupOnCleanup(t, cmd, "local stack", &logs)
	deadline := time.Now().Add(90 * time.Second)
	for {
		if b, err := os.ReadFile(file); err == nil {
			var st stackFile
			if err := json.Unmarshal(b, &st); err == nil && st.BaseURL != "" {
				return st
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("local stack not up within 90 s:\n%s", tail(logs.String(), 4000))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// startSAMLocal runs `make sam-local` against the stack and returns its base URL
// once it answers.
func startSAMLocal(t *testing.T, root, dir, samSock, arch string) string {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command("make", "--no-print-directory", "sam-local")
	cmd.Dir = root
	cmd.Env = append(os.Environ(),
		"DOCKER_HOST=unix://"+samSock,
		"SAM_LOCAL_STACK="+filepath.Join(dir, "stack.json"),
		"SAM_LOCAL_ARCH="+arch,
		"SAM_LOCAL_PORT="+port,
		"SAM_LOCAL_EMULATOR_HOST=127.0.0.1", // the containers share the host's network
		"SAM_LOCAL_ADD_HOST=",
		"SAM_LOCAL_FLAGS=--skip-pull-image",
	)
	var logs testenv.Output
	cmd.Stdout, cmd.Stderr = &logs, &logs
	stopGroupOnCleanup(t, cmd, "make sam-local", &logs)
	base := "http://127.0.0.1:" + port
	deadline := time.Now().Add(5 * time.Minute)
	for {
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, 200*time.Millisecond); err == nil {
			c.Close()
			return base
		}
		if time.Now().After(deadline) {
			t.Fatalf("sam local start-api not listening within 5 min:\n%s", tail(logs.String(), 6000))
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// stopGroupOnCleanup starts cmd in its own process group and stops the group
// (SIGTERM, then SIGKILL after 30 s) when the test ends.
func stopGroupOnCleanup(t *testing.T, cmd *exec.Cmd, name string, logs *testenv.Output) {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		// Children that outlive the leader (sam under make) get the group's SIGKILL.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if t.Failed() {
			t.Logf("%s output:\n%s", name, tail(logs.String(), 6000))
		}
	})
}

// removeTree unmounts what the engine left mounted under dir (its network namespace
// file among others) and removes dir.
func removeTree(t *testing.T, dir string) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err == nil {
		var mounts []string
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) > 4 && (f[4] == dir || strings.HasPrefix(f[4], dir+"/")) {
				mounts = append(mounts, f[4])
			}
		}
		slices.Sort(mounts)
		slices.Reverse(mounts) // deepest first
		for _, m := range mounts {
			if err := syscall.Unmount(m, syscall.MNT_DETACH); err != nil {
				t.Errorf("unmount %s: %v", m, err)
			}
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Errorf("remove %s: %v", dir, err)
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	addr, err := freeLoopbackAddr()
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(addr)
	return port
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
