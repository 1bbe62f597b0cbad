// Package stripemock runs stripe-mock (Stripe's OpenAPI-driven mock of its API, built by
// the Makefile into .bin/) for tests: HTTP only, on a free loopback port, stopped at the
// end. stripe-mock validates every request against Stripe's OpenAPI document and answers
// fixed fixtures; its lists always hold one object and say has_more false, so Pager sits
// in front of it to make lists of several pages.
package stripemock

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/repo"
)

// EnvBinary overrides where the stripe-mock executable is looked for.
const EnvBinary = "STRIPE_MOCK"

// Key is an API key stripe-mock takes (any test-mode secret key).
const Key = "sk_test_subsight"

// ErrNotFound means stripe-mock is not installed where the project expects it.
var ErrNotFound = errors.New("stripemock: stripe-mock not found")

// SkipNotInstalled is the line a test that needs stripe-mock skips with where it is not
// installed.
const SkipNotInstalled = "needs stripe-mock (built into .bin/ by make test): make test runs it"

// FindBinary locates stripe-mock: $STRIPE_MOCK if set, else .bin/stripe-mock under the
// repository root.
func FindBinary() (string, error) {
	p := os.Getenv(EnvBinary)
	if p == "" {
		root, err := repo.Root()
		if err != nil {
			return "", err
		}
		p = filepath.Join(root, ".bin", "stripe-mock")
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%w at %s (make test builds it, or set %s)", ErrNotFound, p, EnvBinary)
	}
	return p, nil
}

// Server is a running stripe-mock.
type Server struct {
	// URL is its HTTP base, e.g. http://127.0.0.1:41234.
	URL  string
	cmd  *exec.Cmd
	dir  string
	done chan struct{}
	once sync.Once
}

// Start starts stripe-mock and waits until it answers. It listens for HTTP on a port the
// system picks on 127.0.0.1 (read back from its log, so no port is guessed) and for
// HTTPS on a Unix socket in a directory of its own (stripe-mock would otherwise open its
// default HTTPS port on every interface).
func Start(ctx context.Context, bin string) (*Server, error) {
	dir, err := os.MkdirTemp("", "stripe-mock-*")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "-http-addr", "127.0.0.1:", "-https-unix", filepath.Join(dir, "https.sock"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	cmd.Stderr = cmd.Stdout
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("stripemock: start %s: %w", bin, err)
	}
	s := &Server{cmd: cmd, dir: dir, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "Listening for HTTP at address: "); ok {
				addr <- a
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	go func() { _ = cmd.Wait(); close(s.done) }()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	select {
	case a := <-addr:
		s.URL = "http://" + a
	case <-s.done:
		s.Stop()
		return nil, errors.New("stripemock: stripe-mock exited during start-up")
	case <-ctx.Done():
		s.Stop()
		return nil, fmt.Errorf("stripemock: stripe-mock did not start: %w", ctx.Err())
	}
	if err := s.waitReady(ctx); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// waitReady asks for a listing until stripe-mock answers it.
func (s *Server) waitReady(ctx context.Context) error {
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/v1/customers?limit=1", nil)
		req.Header.Set("Authorization", "Bearer "+Key)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("stripemock: stripe-mock did not answer on %s: %w", s.URL, ctx.Err())
		case <-s.done:
			return errors.New("stripemock: stripe-mock exited during start-up")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Stop ends stripe-mock and waits for it. Safe to call twice.
func (s *Server) Stop() {
	s.once.Do(func() {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(3 * time.Second):
			_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
			<-s.done
		}
		os.RemoveAll(s.dir)
	})
}

var shared struct {
	once   sync.Once
	server *Server
	err    error
}

// ForTest is the test binary's stripe-mock, started on first use (Main stops it); a
// test skips where stripe-mock is not installed.
func ForTest(t testing.TB) *Server {
	t.Helper()
	shared.once.Do(func() {
		bin, err := FindBinary()
		if err != nil {
			shared.err = err
			return
		}
		shared.server, shared.err = Start(context.Background(), bin)
	})
	if errors.Is(shared.err, ErrNotFound) {
		t.Skip(SkipNotInstalled)
	}
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.server
}

// Main runs the package's tests and stops the shared stripe-mock afterwards. Call it
// from TestMain (after testenv.Main's work, if both are used: see Stop).
func Main(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

// Stop stops the shared stripe-mock if one was started.
func Stop() {
	if shared.server != nil {
		shared.server.Stop()
	}
}
