package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/subsight/subsight/infra/devstack/emulator"
	"github.com/subsight/subsight/infra/repo"
)

// The edits that add one operation, GET /v1/account/greeting: the registry entry, the
// handler, its test and its schema in the OpenAPI document; nothing else.
var greetingEdits = []struct{ file, after, insert string }{
	{"shared/routes/account.go", "var accountOperations = []Operation{\n",
		"\t{\"GetGreeting\", get(\"/v1/account/greeting\"), account.GetGreeting, none},\n"},
	{"shared/api/account/greeting.go", "", `package account

import (
	"context"
	"net/http"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
)

// GetGreeting is GET /v1/account/greeting: a greeting naming the caller's account.
func GetGreeting(*api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(_ context.Context, r *apigw.Request) (apigw.Response, error) {
		return apigw.JSON(http.StatusOK, map[string]string{"greeting": "Hello, " + r.AccountID})
	}}
}
`},
	{"shared/api/account/greeting_test.go", "", `package account_test

import (
	"testing"

	"github.com/subsight/subsight/shared/api/account"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
)

func TestGetGreeting(t *testing.T) {
	status, body := apigwtest.Do(t, account.GetGreeting(nil), apigwtest.Call{Method: "GET", Route: "/v1/account/greeting", AccountID: "acc_1"})
	if status != 200 || body["greeting"] != "Hello, acc_1" {
		t.Errorf("%d %v", status, body)
	}
}
`},
	{"docs/openapi.yaml", "paths:\n", `  /v1/account/greeting:
    get:
      operationId: getGreeting
      tags: [account]
      responses:
        "200":
          description: A greeting.
          content:
            application/json:
              schema:
                type: object
                additionalProperties: false
                required: [greeting]
                properties:
                  greeting: {type: string}
        "401": {$ref: "#/components/responses/Unauthorized"}
`},
}

// TestAddingAnOperation adds one small operation to a copy of the repository with only
// the edits "Add an operation" in docs/architecture.md lists, then checks what make lint
// and the tests check: the generated files are stale until `go generate
// ./shared/routes`, which writes only the template and the function's main.go; then
// the copy builds and vets, nothing is stale, the OpenAPI coverage, template and role
// tests pass, the operation's own test, the cross-account test and the stack's
// resource count (one function more) too.
func TestAddingAnOperation(t *testing.T) {
	moto, err := emulator.FindBinary()
	if err != nil {
		t.Skip("make test runs this test (it needs the emulator and the tools of .venv)")
	}
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	python := filepath.Join(root, ".venv", "bin", "python")
	if _, err := os.Stat(python); err != nil {
		t.Skip("make test runs this test (it needs the tools of .venv)")
	}
	copyDir := t.TempDir()
	original := copyRepository(t, root, copyDir)
	run := func(wantOK bool, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = copyDir
		cmd.Env = append(os.Environ(), "MOTO_SERVER="+moto)
		out, err := cmd.CombinedOutput()
		if (err == nil) != wantOK {
			t.Fatalf("%s %s: %v (want success %v)\n%s", name, strings.Join(args, " "), err, wantOK, out)
		}
		return string(out)
	}
	countBefore := run(true, python, "infra/stacksize.py", "250", "template.yaml")

	for _, e := range greetingEdits {
		path := filepath.Join(copyDir, e.file)
		if e.after == "" {
			if err := os.WriteFile(path, []byte(e.insert), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(b, []byte(e.after)) {
			t.Fatalf("%s: no %q (%v)", e.file, e.after, err)
		}
		b = bytes.Replace(b, []byte(e.after), []byte(e.after+e.insert), 1)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out := run(false, "go", "run", "./infra/stackgen", "-check"); !strings.Contains(out, "template.yaml") ||
		!strings.Contains(out, "functions/get-greeting/main.go") {
		t.Errorf("the staleness check names other files: %s", out)
	}
	run(true, "go", "generate", "./shared/routes")

	var changed []string
	for name, content := range snapshot(t, copyDir) {
		if !bytes.Equal(original[name], content) {
			changed = append(changed, name)
		}
	}
	slices.Sort(changed)
	want := []string{"docs/openapi.yaml", "functions/get-greeting/main.go", "shared/api/account/greeting.go",
		"shared/api/account/greeting_test.go", "shared/routes/account.go", "template.yaml"}
	if !slices.Equal(changed, want) {
		t.Errorf("changed files %v, want %v", changed, want)
	}

	run(true, "go", "vet", "./functions/get-greeting", "./shared/routes", "./shared/api/account")
	run(true, "go", "run", "./infra/stackgen", "-check")
	run(true, "go", "test", "-count=1", "./infra/devstack/openapi", "./infra/testkit/templatecheck")
	run(true, "go", "test", "-count=1", "-run", "^(TestGetGreeting|TestCrossAccountOverEveryOperation)$", "./shared/api", "./shared/api/account")
	countAfter := run(true, python, "infra/stacksize.py", "250", "template.yaml")
	if before, after := firstLine(countBefore), firstLine(countAfter); before == after {
		t.Errorf("the resource count did not change: %s", after)
	}
	t.Logf("before: %s\nafter:  %s", firstLine(countBefore), firstLine(countAfter))
}

func firstLine(s string) string { line, _, _ := strings.Cut(s, "\n"); return line }

// copyRepository copies the files git tracks or would track (not the ignored ones:
// tools, builds) and returns their contents by path.
func copyRepository(t *testing.T, root, dst string) map[string][]byte {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	files := map[string][]byte{}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			continue // deleted in the working tree
		}
		path := filepath.Join(dst, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	return files
}

// snapshot reads every file below dir, by path relative to it.
func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
