package templatecheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/routes"
)

func funcName(f any) string { return runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name() }

// registered returns the fully qualified constructor the registry holds for a function.
func registered(id string) (kind, name string) {
	if f, ok := routes.APIs[id]; ok {
		return "API", funcName(f)
	}
	if f, ok := routes.Workers[id]; ok {
		return "Worker", funcName(f)
	}
	if f, ok := routes.Authorizers[id]; ok {
		return "Authorizer", funcName(f)
	}
	if f, ok := routes.Schedules[id]; ok {
		return "Scheduled", funcName(f)
	}
	if f, ok := routes.Public[id]; ok {
		return "Public", funcName(f)
	}
	if f, ok := routes.StripeWebhooks[id]; ok {
		return "StripeWebhook", funcName(f)
	}
	return "", ""
}

// started parses functions/<dir>/main.go and returns the lambdaapp call it makes and
// the fully qualified constructor it passes.
func started(t *testing.T, path string) (kind, name string) {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	imports := map[string]string{}
	for _, imp := range file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		imports[filepath.Base(p)] = p
	}
	ast.Inspect(file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return true
		}
		fn, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || fmt.Sprint(fn.X) != "lambdaapp" {
			return true
		}
		arg, ok := call.Args[0].(*ast.SelectorExpr)
		if !ok {
			return true
		}
		kind = fn.Sel.Name
		name = imports[fmt.Sprint(arg.X)] + "." + arg.Sel.Name
		return false
	})
	return kind, name
}

func TestEveryTemplateFunctionIsBuiltAndServed(t *testing.T) {
	root, tpl := testenv.RepoTemplate(t)
	for _, id := range tpl.FunctionIDs() {
		t.Run(id, func(t *testing.T) {
			fn := tpl.Functions[id]
			if !strings.HasSuffix(id, "Function") {
				t.Errorf("LogicalId %s does not end in Function", id)
			}
			if fn.BuildMethod != "makefile" || fn.Handler != "bootstrap" || fn.Runtime != "provided.al2023" ||
				!slices.Equal(fn.Architectures, []string{"arm64"}) {
				t.Errorf("build settings: method %q handler %q runtime %q arch %v", fn.BuildMethod, fn.Handler, fn.Runtime, fn.Architectures)
			}
			main := filepath.Join(root, "functions", routes.Folder(id), "main.go")
			kind, name := started(t, main)
			wantKind, wantName := registered(id)
			if wantKind == "" {
				t.Fatalf("%s is not in shared/routes", id)
			}
			if kind != wantKind || name != wantName {
				t.Errorf("%s starts lambdaapp.%s(%s), but the local stack serves %s via %s", main, kind, name, wantName, wantKind)
			}
			switch wantKind {
			case "API":
				if len(fn.HttpEvents) == 0 {
					t.Errorf("API function without an HttpApi event")
				}
			case "Public", "StripeWebhook":
				if len(fn.HttpEvents) == 0 {
					t.Errorf("public function without an HttpApi event")
				}
			case "Worker":
				if len(fn.SQSEvents) == 0 {
					t.Errorf("worker without an SQS event")
				}
			}
			// A schedule's handler ignores its event, so only a registered scheduled
			// function may have Schedule events, and it must have one.
			if _, scheduled := routes.Schedules[id]; scheduled != (len(fn.ScheduleEvents) > 0) {
				t.Errorf("in shared/routes.Schedules: %v, Schedule events: %d", scheduled, len(fn.ScheduleEvents))
			}
		})
	}
}

func TestNothingExistsInOnePlaceOnly(t *testing.T) {
	root, tpl := testenv.RepoTemplate(t)
	inTemplate := map[string]bool{}
	for _, id := range tpl.FunctionIDs() {
		inTemplate[id] = true
	}
	for _, m := range []map[string]bool{keysOf(routes.APIs), keysOf(routes.Workers), keysOf(routes.Authorizers), keysOf(routes.Schedules), keysOf(routes.Public),
		keysOf(routes.StripeWebhooks)} {
		for id := range m {
			if !inTemplate[id] {
				t.Errorf("shared/routes has %s, template.yaml does not", id)
			}
		}
	}
	dirs, err := os.ReadDir(filepath.Join(root, "functions"))
	if err != nil {
		t.Fatal(err)
	}
	folders := map[string]bool{}
	for id := range inTemplate {
		folders[routes.Folder(id)] = true
	}
	for _, d := range dirs {
		if d.IsDir() && !folders[d.Name()] {
			t.Errorf("functions/%s is not a function of template.yaml", d.Name())
		}
	}
}

func TestRoutesAreUnique(t *testing.T) {
	_, tpl := testenv.RepoTemplate(t)
	seen := map[string]string{}
	for _, r := range tpl.Routes() {
		if prev, dup := seen[r.Key()]; dup {
			t.Errorf("route %s is served by both %s and %s", r.Key(), prev, r.Function)
		}
		seen[r.Key()] = r.Function
		// Only the public functions' routes (and the Stripe webhook's, which checks a
		// signature instead) go without the authorizer, and all of them do: an operation
		// would answer anyone, a public page behind the authorizer no browser.
		f, _ := routes.Lookup(r.Function)
		public := f.Open()
		if public != (r.Authorizer == "") {
			t.Errorf("route %s: authorizer %q, public function %v", r.Key(), r.Authorizer, public)
		}
	}
}

func keysOf[V any](m map[string]V) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}
