package emulator

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// selectProbe prints, for each selection in argv, the patches motoserver.py applies for it
// (or the reason it refuses it), and the kind of each patch of the series.
const selectProbe = `
import json, sys
sys.path.insert(0, sys.argv[1])
import motoserver
out = {"kinds": {name: motoserver.module(name).KIND for name in motoserver.SERIES}, "selected": {}}
for spec in sys.argv[2:]:
    try:
        out["selected"][spec] = motoserver.select(spec)
    except SystemExit as refused:
        out["selected"][spec] = "refused: " + str(refused)
print(json.dumps(out))
`

// TestPatchSelection: SUBSIGHT_MOTO_PATCHES picks the cost patches; the correctness patches
// are always applied, and the series keeps its order whatever the selection's.
func TestPatchSelection(t *testing.T) {
	t.Parallel()
	python := filepath.Join(filepath.Dir(installedBinary(t)), "python")
	dir, err := scriptDir()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		spec string
		want string // the names applied, or the start of the reason the selection is refused
	}{
		{"", "weak-instances gc-frozen-data dynamodb-transaction-items dynamodb-query-partition dynamodb-index-partitions dynamodb-sorted-partitions dynamodb-scan-pages dynamodb-answers dynamodb-serial sqs-queue-depth sqs-receive-waits sqs-serial"},
		{AllPatches, "weak-instances gc-frozen-data dynamodb-transaction-items dynamodb-query-partition dynamodb-index-partitions dynamodb-sorted-partitions dynamodb-scan-pages dynamodb-answers dynamodb-serial sqs-queue-depth sqs-receive-waits sqs-serial"},
		{CorrectnessPatches, "dynamodb-serial sqs-serial"},
		{"sqs-receive-waits,dynamodb-answers", "dynamodb-answers dynamodb-serial sqs-receive-waits sqs-serial"},
		{AllPatchesBut("dynamodb-answers", "weak-instances"), "gc-frozen-data dynamodb-transaction-items dynamodb-query-partition dynamodb-index-partitions dynamodb-sorted-partitions dynamodb-scan-pages dynamodb-serial sqs-queue-depth sqs-receive-waits sqs-serial"},
		{"dynamodb-answer", "refused: SUBSIGHT_MOTO_PATCHES=dynamodb-answer: no patch dynamodb-answer"},
		{AllPatchesBut("sqs-serial"), "refused: SUBSIGHT_MOTO_PATCHES=-sqs-serial: the correctness patches"},
		{"dynamodb-answers,-weak-instances", "refused: SUBSIGHT_MOTO_PATCHES=dynamodb-answers,-weak-instances: either names"},
	}
	args := []string{"-c", selectProbe, dir}
	for _, tc := range tests {
		args = append(args, tc.spec)
	}
	raw, err := exec.Command(python, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	var got struct {
		Kinds    map[string]string
		Selected map[string]any
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("probe answered %s: %v", raw, err)
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			var applied string
			switch v := got.Selected[tc.spec].(type) {
			case string:
				applied = v
			case []any:
				var names []string
				for _, n := range v {
					names = append(names, n.(string))
				}
				applied = strings.Join(names, " ")
			}
			if strings.HasPrefix(tc.want, "refused: ") && strings.HasPrefix(applied, tc.want) || applied == tc.want {
				return
			}
			t.Errorf("%s=%q applies %q, want %q", EnvPatches, tc.spec, applied, tc.want)
		})
	}
	for name, kind := range got.Kinds {
		if want := kindByDocs(name); kind != want {
			t.Errorf("%s is a %s patch, its docstring says %s", name, kind, want)
		}
		tests := testsByDocs(name)
		if len(tests) == 0 {
			t.Errorf("%s's docstring names no test (a line \"Test: TestName.\")", name)
		}
		for _, test := range tests {
			if !testExists(t, test) {
				t.Errorf("%s's docstring names %s, which is no test of this package", name, test)
			}
		}
	}
}

// testsByDocs is the tests a patch module's docstring names on its "Test:" or "Tests:" line.
func testsByDocs(name string) []string {
	src, _ := motoServerFiles.ReadFile("patches/" + strings.ReplaceAll(name, "-", "_") + ".py")
	for _, line := range strings.Split(string(src), "\n") {
		for _, prefix := range []string{"Test: ", "Tests: "} {
			if rest, ok := strings.CutPrefix(line, prefix); ok {
				rest, _, _ = strings.Cut(rest, ". ")
				var names []string
				for _, n := range strings.Split(strings.TrimSuffix(rest, "."), ",") {
					names = append(names, strings.TrimSpace(n))
				}
				return names
			}
		}
	}
	return nil
}

// testExists reports whether a test function of the name is in this package's test files.
func testExists(t *testing.T, name string) bool {
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(src), "func "+name+"(t *testing.T)") {
			return true
		}
	}
	return false
}

// kindByDocs is the kind a patch module's docstring states ("Kind: cost." or "Kind:
// correctness.").
func kindByDocs(name string) string {
	src, err := motoServerFiles.ReadFile("patches/" + strings.ReplaceAll(name, "-", "_") + ".py")
	if err != nil {
		return "missing"
	}
	for _, kind := range []string{"cost", "correctness"} {
		if strings.Contains(string(src), "Kind: "+kind) {
			return kind
		}
	}
	return "unstated"
}
