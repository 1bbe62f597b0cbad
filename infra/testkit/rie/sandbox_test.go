//go:build linux

package rie

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/devstack/samtemplate"
	"github.com/subsight/subsight/infra/testkit/testenv"
)

// The Lambda sandbox, without containers or root-only tricks:
//
//   - Environment: exactly what Lambda sets for a provided.al2023 function (lambdaEnv)
//     plus the function's template environment and the emulator endpoint; nothing of
//     this machine's (no HOME, AWS_CA_BUNDLE, SSL_CERT_*, proxies, TZ, GOFLAGS, ...).
//   - A read-only task directory as working directory: each function's
//     bootstrap sits in its own directory of mode 0555, its LAMBDA_TASK_ROOT and
//     working directory, as /var/task on Lambda.
//   - Only /tmp writable. Permissions do the work for an ordinary user. Root ignores
//     permissions, so when the tests run as root (CI containers often do) the emulator
//     and the bootstrap run as the unprivileged user nobody, which root may switch to
//     without any capability beyond its own; /tmp is world-writable, everything else
//     nobody could write to is not.
//
// What it cannot take away: the host's files that Lambda does not have (the time zone
// database in /usr/share/zoneinfo, CA certificates). Code must not depend on them:
// account time zones come from the tz database embedded with time/tzdata, and the SAM
// smoke (infra/samlocal) runs the bootstraps in images that have neither.

// nobody is the unprivileged user the sandbox runs as when the tests run as root.
const nobody = 65534

// sandbox holds the read-only task directories and the emulator binary.
type sandbox struct {
	dir string // mode 0755, removed at the end
	rie string // the emulator, copied where nobody may run it
}

func newSandbox(t *testing.T, rieBin string) *sandbox {
	t.Helper()
	dir, err := os.MkdirTemp("", "lambda-sandbox-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The task directories are read-only: make them writable to remove them.
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				_ = os.Chmod(p, 0o755)
			}
			return nil
		})
		_ = os.RemoveAll(dir)
	})
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := &sandbox{dir: dir, rie: filepath.Join(dir, "runtime", "aws-lambda-rie")}
	if err := os.MkdirAll(filepath.Dir(s.rie), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(rieBin, s.rie, 0o555); err != nil {
		t.Fatal(err)
	}
	return s
}

// taskDir makes the read-only task directory of one function holding its bootstrap.
func (s *sandbox) taskDir(t *testing.T, name, bootstrap string) string {
	t.Helper()
	dir := filepath.Join(s.dir, "task", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "bootstrap")
	// A hard link spares copying ~10 MB per function; the build output is 0755 and
	// owned by the builder, so nobody cannot write it through the link either.
	if err := os.Link(bootstrap, dst); err != nil {
		if err := copyFile(bootstrap, dst, 0o555); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	return dir
}

// sandboxAttr runs a process in its own group, killed with the test binary, as nobody
// when the tests run as root.
func sandboxAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Credential: credential()}
}

// credential is how sandboxed processes run: as nobody when the tests run as root.
func credential() *syscall.Credential {
	if os.Geteuid() != 0 {
		return nil
	}
	return &syscall.Credential{Uid: nobody, Gid: nobody, NoSetGroups: true}
}

// lambdaEnv is what Lambda sets for a provided.al2023 function
// (docs.aws.amazon.com/lambda/latest/dg/configuration-envvars-runtime.html), with the
// template's configuration of fn; vars (its resolved template environment and the
// endpoint) come last. aws-lambda-rie adds AWS_LAMBDA_RUNTIME_API.
func lambdaEnv(fn *samtemplate.Function, vars map[string]string, region, taskDir, runtimeDir string) []string {
	name := "subsight-" + fn.LogicalID
	env := map[string]string{
		"AWS_REGION":                      region,
		"AWS_DEFAULT_REGION":              region,
		"AWS_ACCESS_KEY_ID":               "ASIALAMBDAPARITY",
		"AWS_SECRET_ACCESS_KEY":           "lambda-parity-secret",
		"AWS_SESSION_TOKEN":               "lambda-parity-temporary-token",
		"AWS_LAMBDA_FUNCTION_NAME":        name,
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": strconv.Itoa(fn.MemorySize),
		"AWS_LAMBDA_FUNCTION_VERSION":     "$LATEST",
		"AWS_LAMBDA_INITIALIZATION_TYPE":  "on-demand",
		"AWS_LAMBDA_LOG_GROUP_NAME":       "/aws/lambda/" + name,
		"AWS_LAMBDA_LOG_STREAM_NAME":      "2026/01/01/[$LATEST]0123456789abcdef",
		// template.yaml's Globals LoggingConfig (JSON, INFO).
		"AWS_LAMBDA_LOG_FORMAT": "JSON",
		"AWS_LAMBDA_LOG_LEVEL":  "INFO",
		"_HANDLER":              fn.Handler,
		"LAMBDA_TASK_ROOT":      taskDir,
		"LAMBDA_RUNTIME_DIR":    runtimeDir,
		"LANG":                  "en_US.UTF-8",
		"TZ":                    ":UTC",
		"PATH":                  "/usr/local/bin:/usr/bin/:/bin:/opt/bin",
		"LD_LIBRARY_PATH":       "/var/lang/lib:/lib64:/usr/lib64:/var/runtime:/var/runtime/lib:/var/task:/var/task/lib:/opt/lib",
		// Read by aws-lambda-rie only: the function's timeout.
		"AWS_LAMBDA_FUNCTION_TIMEOUT": strconv.Itoa(fn.Timeout),
	}
	maps.Copy(env, vars)
	out := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}

// lambdaProcess is one aws-lambda-rie running one bootstrap. Invokes are serialised:
// the emulator crashes on concurrent invokes.
type lambdaProcess struct {
	name    string
	taskDir string
	url     string
	cmd     *exec.Cmd
	logs    testenv.Output
	ready   time.Duration

	mu      sync.Mutex
	invokes int
}

// start runs the emulator in the task directory on two free ports; it is stopped with
// its bootstrap when the test ends. It returns once the emulator listens. A port
// taken between picking and binding makes the emulator exit: it then tries again.
func (s *sandbox) start(t *testing.T, name, taskDir string, env []string) (*lambdaProcess, error) {
	var lastErr error
	for range 3 {
		addrs, err := freeAddrs(2)
		if err != nil {
			return nil, err
		}
		p, err := s.startOn(t, name, taskDir, env, addrs[0], addrs[1])
		if err == nil {
			return p, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

func (s *sandbox) startOn(t *testing.T, name, taskDir string, env []string, apiAddr, runtimeAddr string) (*lambdaProcess, error) {
	p := &lambdaProcess{name: name, taskDir: taskDir}
	p.cmd = exec.Command(s.rie,
		"--runtime-interface-emulator-address", apiAddr,
		"--runtime-api-address", runtimeAddr,
		filepath.Join(taskDir, "bootstrap"))
	p.cmd.Dir = taskDir
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = &p.logs, &p.logs
	p.cmd.SysProcAttr = sandboxAttr()
	t0 := time.Now()
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start aws-lambda-rie for %s: %w", name, err)
	}
	exited := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) // the emulator and its bootstrap
		<-exited
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-exited:
			return nil, fmt.Errorf("aws-lambda-rie for %s exited during start-up:\n%s", name, p.logs.String())
		default:
		}
		// The emulator itself must hold the listening socket: a port picked as free
		// may have been taken by another process meanwhile, which would then answer
		// this function's invokes.
		listening, err := listensOn(p.cmd.Process.Pid, apiAddr)
		if listening {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("aws-lambda-rie for %s did not listen on %s: %v\n%s", name, apiAddr, err, p.logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.ready = time.Since(t0)
	p.url = "http://" + apiAddr + "/2015-03-31/functions/function/invocations"
	return p, nil
}

// invoke sends one event and returns the function's raw response; a function error
// (the emulator answers 200 with errorMessage and errorType) fails the test.
func (p *lambdaProcess) invoke(t *testing.T, event any) []byte {
	t.Helper()
	b, err := p.tryInvoke(event)
	if err != nil {
		t.Fatalf("%s: %v\nemulator and function output:\n%s", p.name, err, p.logs.String())
	}
	return b
}

func (p *lambdaProcess) tryInvoke(event any) ([]byte, error) {
	body, err := json.Marshal(event)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.invokes++
	client := &http.Client{Timeout: 60 * time.Second}
	res, err := client.Post(p.url, "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("invoke: %w", err)
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, fmt.Errorf("invoke: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("invoke: emulator answered %s: %s", res.Status, out)
	}
	var fnErr struct {
		ErrorMessage string `json:"errorMessage"`
		ErrorType    string `json:"errorType"`
	}
	if json.Unmarshal(out, &fnErr) == nil && (fnErr.ErrorType != "" || fnErr.ErrorMessage != "") {
		return nil, fmt.Errorf("function error %s: %s", fnErr.ErrorType, fnErr.ErrorMessage)
	}
	return out, nil
}

// bootstrapProcess finds the running bootstrap (the emulator's child) after an
// invoke; the emulator may have started it from any of its threads.
func (p *lambdaProcess) bootstrapProcess() (int, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", p.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, field := range strings.Fields(string(b)) {
			pid, err := strconv.Atoi(field)
			if err != nil {
				continue
			}
			if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil && filepath.Base(exe) == "bootstrap" {
				return pid, nil
			}
		}
	}
	return 0, fmt.Errorf("no bootstrap process under the emulator (pid %d)", p.cmd.Process.Pid)
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// picked are the ports handed out in this test binary: a port is never handed out
// twice, even after the listener of its pick is closed, so that two emulators that
// start in parallel never race for one port.
var picked = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

func freeAddrs(n int) ([]string, error) {
	picked.Lock()
	defer picked.Unlock()
	var out []string
	for len(out) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		port := l.Addr().(*net.TCPAddr).Port
		if picked.ports[port] {
			continue
		}
		picked.ports[port] = true
		out = append(out, l.Addr().String())
	}
	return out, nil
}

// listensOn reports whether process pid holds a socket listening on the loopback
// address addr (IPv4), from /proc: the socket's inode in /proc/net/tcp among the
// process's file descriptors.
func listensOn(pid int, addr string) (bool, error) {
	_, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return false, err
	}
	port, _ := strconv.Atoi(portStr)
	want := fmt.Sprintf("0100007F:%04X", port)
	tcp, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/tcp", pid))
	if err != nil {
		return false, err
	}
	var inode string
	for _, line := range strings.Split(string(tcp), "\n") {
		f := strings.Fields(line)
		if len(f) > 9 && f[1] == want && f[3] == "0A" { // 0A: LISTEN
			inode = f[9]
		}
	}
	if inode == "" {
		return false, nil
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return false, err
	}
	for _, fd := range fds {
		if link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil && link == "socket:["+inode+"]" {
			return true, nil
		}
	}
	return false, nil
}

// hostArch is the Makefile's LAMBDA_ARCH for this machine.
func hostArch() string {
	if runtime.GOARCH == "amd64" {
		return "x86_64"
	}
	return runtime.GOARCH
}
