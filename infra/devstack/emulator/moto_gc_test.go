package emulator

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// gcProbe applies motoserver.py's patches (as selected by SUBSIGHT_MOTO_PATCHES, without
// starting the server) in a Python of moto's virtual environment, stores ITEMS items in a
// table of moto's DynamoDB backend, and prints how many objects a full collection would
// walk next (those the collector tracks and has not frozen) against those frozen, and the
// longest full pass seen.
const gcProbe = `
import gc, os, sys, time
sys.path.insert(0, os.environ["MOTO_SCRIPT_DIR"])
import motoserver
motoserver.apply(motoserver.select(os.environ.get("SUBSIGHT_MOTO_PATCHES")))
from moto.dynamodb.models import dynamodb_backends
backend = dynamodb_backends["123456789012"]["us-east-1"]
backend.create_table("t", schema=[{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
    attr=[{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"}],
    throughput=None, billing_mode="PAY_PER_REQUEST", indexes=[], global_indexes=[], streams=None,
    sse_specification=None, tags=[], deletion_protection_enabled=False, warm_throughput=None)
longest = [0.0, 0.0]
def timed(phase, info):
    if info["generation"] == 2:
        if phase == "start":
            longest[1] = time.perf_counter()
        else:
            longest[0] = max(longest[0], time.perf_counter() - longest[1])
gc.callbacks.insert(0, timed)
for i in range(int(os.environ["ITEMS"])):
    backend.put_item("t", {"PK": {"S": "p%d" % (i // 50)}, "SK": {"S": "s%d" % i}, "a": {"S": "x" * 100},
        "n": {"N": str(i)}, "m": {"M": {"x": {"S": "y"}, "z": {"N": "1"}}}}, None, None, None, None)
print(len(gc.get_objects()), gc.get_freeze_count(), "%.3f" % longest[0])
`

// TestFullCollectionsWalkWhatCameSince: Python's cycle collector walks every object it
// tracks in a full pass, made each time the long-lived objects have grown by a quarter, so
// its pauses grew with the data the emulator holds (every request waits through them);
// with gc-frozen-data a full pass walks at most about the last 300,000 objects made, less
// than half of what 100,000 items hold. Without it (20,000 items: nothing is ever frozen,
// whatever the size) a full pass walks every object held.
func TestFullCollectionsWalkWhatCameSince(t *testing.T) {
	const patch = "gc-frozen-data"
	python := filepath.Join(filepath.Dir(installedBinary(t)), "python")
	dir, err := scriptDir()
	if err != nil {
		t.Fatal(err)
	}
	t.Parallel()
	for _, without := range []string{"", patch} {
		name, selection, items := "every patch", AllPatches, 100000
		if without != "" {
			name, selection, items = "without "+without, AllPatchesBut(without), 20000
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			walked, frozen := gcProbeRun(t, python, dir, selection, items)
			held := walked*2 > frozen
			if without == "" && held {
				t.Errorf("a full collection walks %d of the %d objects held: its pauses grow with the data", walked, walked+frozen)
			}
			if without != "" && !held {
				t.Errorf("without %s a full collection walks %d of the %d objects held: the patch is not what keeps it short", patch, walked, walked+frozen)
			}
		})
	}
}

// gcProbeRun runs gcProbe with the patches selected and returns the objects a full
// collection would walk next and those frozen.
func gcProbeRun(t *testing.T, python, dir, selection string, items int) (walked, frozen int) {
	t.Helper()
	cmd := exec.Command(python, "-c", gcProbe)
	cmd.Env = append(os.Environ(), "MOTO_SCRIPT_DIR="+dir, EnvPatches+"="+selection, "ITEMS="+strconv.Itoa(items))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var longest string
	if _, err := fmt.Sscan(strings.TrimSpace(string(out)), &walked, &frozen, &longest); err != nil {
		t.Fatalf("probe answered %q: %v", out, err)
	}
	t.Logf("after %d items: a full collection walks %d objects, %d frozen; longest full pass %s s", items, walked, frozen, longest)
	return walked, frozen
}
