// Package emulator starts the pinned moto server (installed by the Makefile into the
// repository's .venv/) as a child process and builds AWS SDK configuration for it.
// moto is the project's emulator of record for DynamoDB, SQS FIFO and S3.
package emulator

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/subsight/subsight/infra/repo"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/subsight/subsight/shared/awsclients"
)

// Local credentials and region: moto checks no signatures, but the SDK needs values.
const (
	DefaultRegion = "us-east-1"
	AccessKeyID   = "local"
	SecretKey     = "local"
)

// EnvMotoServer overrides where the moto_server executable is looked for.
const EnvMotoServer = "MOTO_SERVER"

// EnvPatches selects motoserver.py's patches (read by motoserver.py): "all" (the default),
// "correctness" (the correctness patches alone), a comma list of patch names (the
// correctness patches and these), or a comma list of -names (every patch but these).
const EnvPatches = "SUBSIGHT_MOTO_PATCHES"

// Patch selections of Options.Patches.
const (
	AllPatches         = "all"
	CorrectnessPatches = "correctness"
)

// AllPatchesBut selects every patch but those named.
func AllPatchesBut(names ...string) string {
	var out []string
	for _, n := range names {
		out = append(out, "-"+n)
	}
	return strings.Join(out, ",")
}

// ErrNotFound means moto_server is not installed where the project expects it.
var ErrNotFound = errors.New("emulator: moto_server not found")

// SkipNotInstalled is the one line a test that needs the emulator skips with where it is
// not installed (a fresh clone: go test ./... runs the fast tier).
const SkipNotInstalled = "needs the emulator (moto, installed into .venv/ by make test or make run): make test runs it"

// Options tune Start. The zero value is fine.
type Options struct {
	// Binary is the moto_server path; empty means $MOTO_SERVER, then
	// <repo root>/.venv/bin/moto_server.
	Binary string
	// Host is the address to listen on; empty means 127.0.0.1.
	Host string
	// Port to listen on; 0 picks a free one.
	Port int
	// Output receives moto's own (access) log; nil discards it. The last few KB are
	// kept anyway for start-up error messages.
	Output io.Writer
	// StartTimeout bounds the wait until moto answers (default 30 s: the first start
	// after installation compiles Python bytecode).
	StartTimeout time.Duration
	// Patches selects motoserver.py's patches (EnvPatches); empty means $SUBSIGHT_MOTO_PATCHES,
	// then all of them.
	Patches string
}

// Server is a running moto server.
type Server struct {
	// URL is the endpoint, e.g. http://127.0.0.1:41234.
	URL string
	cmd *exec.Cmd

	stopOnce sync.Once
	done     chan struct{} // closed when the process has exited
	waitErr  error
	tail     *tailBuffer
}

// FindBinary locates moto_server: $MOTO_SERVER if set, else .venv/bin/moto_server
// under the repository root (the nearest directory above the working directory that
// holds go.mod).
func FindBinary() (string, error) {
	if p := os.Getenv(EnvMotoServer); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w: %s=%s: %v", ErrNotFound, EnvMotoServer, p, err)
		}
		return p, nil
	}
	root, err := repo.Root()
	if err != nil {
		return "", err
	}
	p := filepath.Join(root, ".venv", "bin", "moto_server")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%w at %s (run `make test` or `make run`, which install it, or set %s)", ErrNotFound, p, EnvMotoServer)
	}
	return p, nil
}

// motoServer starts moto's server after the series of patches the local stack needs:
// thread safety, and costs that do not grow with the data (see the script and patches/).
//
//go:embed motoserver.py
var motoServer string

//go:embed motoserver.py patches/*.py
var motoServerFiles embed.FS

// command runs moto_server through motoserver.py with the Python interpreter of its
// virtual environment, or moto_server itself, plain moto, when it has none beside it
// (a link to it from another directory: how the patches' tests are run against plain
// moto).
func command(bin string, args ...string) (*exec.Cmd, error) {
	python := filepath.Join(filepath.Dir(bin), "python")
	if _, err := os.Stat(python); err != nil {
		return exec.Command(bin, args...), nil
	}
	dir, err := scriptDir()
	if err != nil {
		return nil, err
	}
	return exec.Command(python, append([]string{filepath.Join(dir, "motoserver.py")}, args...)...), nil
}

var script struct {
	once sync.Once
	dir  string
	err  error
}

// scriptDir writes motoserver.py and its patches into a directory named for their content
// (once per content: every start and every process reuses it) and returns the directory.
// Python runs them from there, so that the patches are modules motoserver.py imports.
func scriptDir() (string, error) {
	script.once.Do(func() { script.dir, script.err = writeScript() })
	return script.dir, script.err
}

func writeScript() (string, error) {
	sum := sha256.New()
	err := fs.WalkDir(motoServerFiles, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := motoServerFiles.ReadFile(path)
		fmt.Fprintf(sum, "%s\x00%d\x00", path, len(data))
		sum.Write(data)
		return err
	})
	if err != nil {
		return "", err
	}
	// The user's id in the name: another user's directory of the same content is not readable.
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("subsight-motoserver-%d-%s", os.Getuid(), hex.EncodeToString(sum.Sum(nil))[:16]))
	if _, err := os.Stat(filepath.Join(dir, "motoserver.py")); err == nil {
		return dir, nil
	}
	// Written beside and renamed into place: another process may be writing it too.
	tmp, err := os.MkdirTemp(os.TempDir(), "subsight-motoserver-*")
	if err != nil {
		return "", fmt.Errorf("emulator: write motoserver.py: %w", err)
	}
	if err := os.CopyFS(tmp, motoServerFiles); err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("emulator: write motoserver.py: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		if _, statErr := os.Stat(filepath.Join(dir, "motoserver.py")); statErr != nil {
			return "", fmt.Errorf("emulator: write motoserver.py: %w", err)
		}
	}
	return dir, nil
}

// Start launches moto and waits until it answers HTTP.
func Start(ctx context.Context, opts Options) (*Server, error) {
	bin := opts.Binary
	if bin == "" {
		var err error
		if bin, err = FindBinary(); err != nil {
			return nil, err
		}
	}
	timeout := opts.StartTimeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	// A port picked by listening on :0 can in rare cases be taken again before moto
	// binds it; retry a few times with a fresh one instead of failing the run.
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port := opts.Port
		if port == 0 {
			p, err := freePort()
			if err != nil {
				return nil, err
			}
			port = p
		}
		host := opts.Host
		if host == "" {
			host = "127.0.0.1"
		}
		s, err := start(ctx, bin, host, port, opts, timeout)
		if err == nil {
			return s, nil
		}
		lastErr = err
		if opts.Port != 0 || ctx.Err() != nil {
			break
		}
	}
	return nil, lastErr
}

func start(ctx context.Context, bin, host string, port int, opts Options, timeout time.Duration) (*Server, error) {
	tail := &tailBuffer{max: 8 << 10}
	var w io.Writer = tail
	if opts.Output != nil {
		w = io.MultiWriter(opts.Output, tail)
	}
	cmd, err := command(bin, "-H", host, "-p", strconv.Itoa(port))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = w, w
	cmd.Env = append(os.Environ(), "PYTHONUNBUFFERED=1")
	if opts.Patches != "" {
		cmd.Env = append(cmd.Env, EnvPatches+"="+opts.Patches)
	}
	setProcAttrs(cmd)
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("emulator: start %s: %w", bin, err)
	}
	s := &Server{URL: "http://" + net.JoinHostPort(host, strconv.Itoa(port)), cmd: cmd, done: make(chan struct{}), tail: tail}
	go func() { s.waitErr = cmd.Wait(); close(s.done) }()

	if err := s.waitReady(ctx, timeout); err != nil {
		s.Stop()
		return nil, fmt.Errorf("%w; moto output:\n%s", err, tail.String())
	}
	slog.Debug("moto started", "url", s.URL, "pid", cmd.Process.Pid, "ms", time.Since(t0).Milliseconds())
	return s, nil
}

// waitReady polls moto's own API until it answers; the probe is plain HTTP, not the
// SDK, so a bare http.Client is fine here.
func (s *Server) waitReady(ctx context.Context, timeout time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(timeout)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/moto-api/", nil)
		if resp, err := client.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode < 500 {
				return nil
			}
		}
		select {
		case <-s.done:
			return fmt.Errorf("emulator: moto_server exited during start-up: %v", s.waitErr)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("emulator: moto_server did not answer on %s within %s", s.URL, timeout)
		}
	}
}

// Stop terminates moto and its process group and waits for it. Safe to call twice.
func (s *Server) Stop() {
	s.stopOnce.Do(func() {
		pid := s.cmd.Process.Pid
		// The negative pid addresses the whole group, children included.
		_ = syscall.Kill(-pid, syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(3 * time.Second):
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			<-s.done
		}
	})
}

// Usage is what the emulator's process has used so far.
type Usage struct {
	CPU     time.Duration // user and system CPU time
	RSS     int64         // resident memory now, in bytes
	PeakRSS int64         // the most it has had resident, in bytes
}

// Usage reads the server process's CPU time and memory (Linux only: from /proc; elsewhere
// an error).
func (s *Server) Usage() (Usage, error) {
	return processUsage(s.cmd.Process.Pid)
}

// idleConnsPerHost keeps enough connections to the emulator open for the local
// stack's concurrent requests (up to ten import batches, each with writes in
// flight); with the SDK's default of 10 the rest are closed after each burst and
// opened again.
const idleConnsPerHost = 64

// AWSConfig loads an SDK configuration (awsclients.LoadConfig) pointed at endpoint
// with the local static credentials. An empty region means DefaultRegion.
func AWSConfig(ctx context.Context, endpoint, region string) (aws.Config, error) {
	if region == "" {
		region = DefaultRegion
	}
	client := awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
		t.MaxIdleConnsPerHost = idleConnsPerHost
	})
	return awsclients.LoadConfig(ctx,
		awsconfig.WithRegion(region),
		awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(AccessKeyID, SecretKey, "")),
		awsconfig.WithBaseEndpoint(endpoint),
		awsconfig.WithHTTPClient(client),
	)
}

// AWSConfig is the package AWSConfig for this server.
func (s *Server) AWSConfig(ctx context.Context) (aws.Config, error) {
	return AWSConfig(ctx, s.URL, "")
}

// Clients builds the service's SDK clients for an emulator configuration. DynamoDB
// skips the CRC32 response check: emulators do not always send X-Amz-Crc32, and the
// SDK then logs a warning for every response. Its requests go to the emulator a few at a
// time (turns).
func Clients(cfg aws.Config) awsclients.Clients {
	t := &turns{next: cfg.HTTPClient, free: dynamoDBInFlight}
	return awsclients.Clients{
		Config: cfg,
		DynamoDB: dynamodb.NewFromConfig(cfg, awsclients.RetryConflicts, func(o *dynamodb.Options) {
			o.DisableValidateResponseChecksum = true
			o.HTTPClient = t
		}),
		SQS: sqs.NewFromConfig(cfg),
	}
}

// dynamoDBInFlight is how many DynamoDB requests of one set of clients the emulator has
// at once. It serves them one at a time (motoserver.py's dynamodb-serial); more would
// only wait inside it, each on a thread of its own that takes its share of the Python
// interpreter from the requests being served, and in no particular order.
const dynamoDBInFlight = 4

type interactiveKey struct{}

// Interactive marks a context as a caller's request waiting for its answer (the local
// stack's HTTP API): its DynamoDB requests go to the emulator before those of background
// work (the queues' workers), which on AWS do not share a server with it.
func Interactive(ctx context.Context) context.Context {
	return context.WithValue(ctx, interactiveKey{}, true)
}

// turns lets a few requests at a time through to the emulator; the others wait for a
// slot in the order they came, the interactive ones (Interactive) before the others.
type turns struct {
	next aws.HTTPClient

	mu      sync.Mutex
	free    int
	waiting [2][]chan struct{} // interactive, background
}

func (t *turns) Do(r *http.Request) (*http.Response, error) {
	if err := t.acquire(r.Context()); err != nil {
		return nil, err
	}
	defer t.release()
	return t.next.Do(r)
}

func (t *turns) acquire(ctx context.Context) error {
	t.mu.Lock()
	if t.free > 0 {
		t.free--
		t.mu.Unlock()
		return nil
	}
	q := 1
	if ctx.Value(interactiveKey{}) != nil {
		q = 0
	}
	turn := make(chan struct{})
	t.waiting[q] = append(t.waiting[q], turn)
	t.mu.Unlock()
	select {
	case <-turn:
		return nil
	case <-ctx.Done():
		t.mu.Lock()
		defer t.mu.Unlock()
		if i := slices.Index(t.waiting[q], turn); i >= 0 {
			t.waiting[q] = slices.Delete(t.waiting[q], i, i+1)
			return ctx.Err()
		}
		// The slot came with the cancellation: pass it on.
		t.handOn()
		return ctx.Err()
	}
}

func (t *turns) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.handOn()
}

// handOn gives a free slot to the first waiter, interactive ones first. t.mu is held.
func (t *turns) handOn() {
	for q, w := range t.waiting {
		if len(w) > 0 {
			close(w[0])
			t.waiting[q] = w[1:]
			return
		}
	}
	t.free++
}

// S3 builds an S3 client for an emulator configuration, in path style: an emulator
// cannot serve bucket.127.0.0.1 host names.
func S3(cfg aws.Config) *s3.Client {
	return s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
}

// Env returns the variables that point unchanged Lambda code (awsclients.Load) at
// this endpoint.
func Env(endpoint, region string) map[string]string {
	if region == "" {
		region = DefaultRegion
	}
	return map[string]string{
		"AWS_ENDPOINT_URL":      endpoint,
		"AWS_REGION":            region,
		"AWS_DEFAULT_REGION":    region,
		"AWS_ACCESS_KEY_ID":     AccessKeyID,
		"AWS_SECRET_ACCESS_KEY": SecretKey,
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("emulator: pick a port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tailBuffer keeps the last max bytes written, for error messages.
type tailBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if over := t.buf.Len() - t.max; over > 0 {
		t.buf.Next(over)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}
