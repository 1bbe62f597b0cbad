package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/subsight/subsight/infra/repo"
	"github.com/subsight/subsight/shared/routes"
)

// TestEveryReferredParameterIsDeclared: the generated part refers to the throttles' and
// reservations' parameters by name; a template that does not declare one is refused
// before CloudFormation would refuse it.
func TestEveryReferredParameterIsDeclared(t *testing.T) {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	params := Parameters(routes.Functions)
	for _, want := range []string{"ApiThrottleRate", "ImportThrottleBurst", "JobsWorkerReservedConcurrency"} {
		if !strings.Contains(strings.Join(params, " "), want) {
			t.Errorf("Parameters %v lack %s", params, want)
		}
	}
	for _, p := range params {
		t.Run(p, func(t *testing.T) {
			dir := t.TempDir()
			broken := strings.Replace(string(src), "\n  "+p+":\n", "\n  Renamed"+p+":\n", 1)
			if err := os.WriteFile(filepath.Join(dir, "template.yaml"), []byte(broken), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Files(dir, routes.Functions); err == nil || !strings.Contains(err.Error(), p) {
				t.Errorf("a template without parameter %s: %v", p, err)
			}
		})
	}
	if _, err := Files(root, routes.Functions); err != nil {
		t.Errorf("the repository's template: %v", err)
	}
}
