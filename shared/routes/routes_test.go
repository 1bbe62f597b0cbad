package routes

import (
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func funcName(fn any) string { return runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name() }

// TestTwinsAreDeclaredOnce: a by-external-id twin is declared on its operation
// (andByExternalID), never as an entry of its own, and becomes a function with the
// operation's method, handler and access on the route without the path parameter.
func TestTwinsAreDeclaredOnce(t *testing.T) {
	twins := 0
	for _, fam := range families {
		for _, o := range fam.operations {
			if strings.HasSuffix(o.Name, "ByExternalId") {
				t.Errorf("%s is declared by hand: declare it with %s's andByExternalID", o.Name, strings.TrimSuffix(o.Name, "ByExternalId"))
			}
			if !o.ByExternalID {
				continue
			}
			twins++
			twin, ok := Lookup(o.Name + "ByExternalIdFunction")
			switch {
			case !ok:
				t.Errorf("%s: no twin function", o.Name)
			case !slices.Equal(twin.Routes, []Route{{o.Route.Method, strings.Replace(o.Route.Path, "/{"+o.Route.Parameters()[0]+"}", "", 1)}}):
				t.Errorf("%s: twin routes %v", o.Name, twin.Routes)
			case funcName(twin.API) != funcName(o.Handler) || twin.Needs().RoleName() != withRequestCounting(o.Access).RoleName():
				t.Errorf("%s: the twin's handler or access differs", o.Name)
			}
		}
	}
	if twins == 0 {
		t.Error("no operation declares a twin")
	}
}

// TestOperationSettings: what an operation declares beyond its route and grants
// reaches its function.
func TestOperationSettings(t *testing.T) {
	f, ok := Lookup("CreateJsonImportFunction")
	if !ok || f.MemorySize != 1769 || f.Throttle != "Import" {
		t.Errorf("CreateJsonImport: memory %d, throttle %q", f.MemorySize, f.Throttle)
	}
	for _, f := range Functions {
		if f.API != nil && f.Name != "CreateJsonImport" && (f.MemorySize != 0 || f.Timeout != 0 || f.Throttle != "") {
			t.Errorf("%s: settings %d MB, %d s, throttle %q", f.Name, f.MemorySize, f.Timeout, f.Throttle)
		}
	}
	if !slices.ContainsFunc(Functions, func(f Function) bool { return f.Name == "DeleteInvoiceByExternalId" }) {
		t.Error("DeleteInvoiceByExternalId is not registered")
	}
}
