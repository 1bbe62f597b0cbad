package emulator

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gcProbe loads motoserver.py's patches (without starting the server) into a Python of
// moto's virtual environment, stores 100,000 items in a table of moto's DynamoDB backend,
// and prints how many objects a full collection would walk next (those the collector
// tracks and has not frozen) against those frozen, and the longest full pass seen.
const gcProbe = `
import gc, os, sys, time
exec(compile(os.environ["MOTO_PATCHES"], "motoserver.py", "exec"), {"__name__": "patches"})
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
for i in range(100000):
    backend.put_item("t", {"PK": {"S": "p%d" % (i // 50)}, "SK": {"S": "s%d" % i}, "a": {"S": "x" * 100},
        "n": {"N": str(i)}, "m": {"M": {"x": {"S": "y"}, "z": {"N": "1"}}}}, None, None, None, None)
print(len(gc.get_objects()), gc.get_freeze_count(), "%.3f" % longest[0])
`

// TestFullCollectionsWalkWhatCameSince: Python's cycle collector walks every object it
// tracks in a full pass, made each time the long-lived objects have grown by a quarter, so
// its pauses grew with the data the emulator holds (every request waits through them);
// with gc-frozen-data a full pass walks at most about the last 300,000 objects made, less
// than half of what 100,000 items hold.
func TestFullCollectionsWalkWhatCameSince(t *testing.T) {
	python := filepath.Join(filepath.Dir(installedBinary(t)), "python")
	cmd := exec.Command(python, "-c", gcProbe)
	cmd.Env = append(os.Environ(), "MOTO_PATCHES="+motoServer)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var walked, frozen int
	var longest string
	if _, err := fmt.Sscan(strings.TrimSpace(string(out)), &walked, &frozen, &longest); err != nil {
		t.Fatalf("probe answered %q: %v", out, err)
	}
	t.Logf("after 100,000 items: a full collection walks %d objects, %d frozen; longest full pass %s s", walked, frozen, longest)
	if walked*2 > frozen {
		t.Errorf("a full collection walks %d of the %d objects held: its pauses grow with the data", walked, walked+frozen)
	}
}
