package testenv

import (
	"bytes"
	"path/filepath"
	"sync"
	"testing"

	"github.com/subsight/subsight/infra/devstack/samtemplate"
	"github.com/subsight/subsight/infra/repo"
)

// RepoTemplate returns the repository root and its parsed template.yaml.
func RepoTemplate(t testing.TB) (string, *samtemplate.Template) {
	t.Helper()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := samtemplate.ParseFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return root, tpl
}

// Output collects a child process's output, written from several goroutines.
type Output struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

// String is what was written so far.
func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}
