package ids

import (
	"testing"
	"time"
)

func TestActivityUUIDCarriesItsTime(t *testing.T) {
	for _, at := range []time.Time{
		time.Date(2024, 2, 29, 13, 14, 15, 123456789, time.UTC),
		time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2999, 12, 31, 23, 59, 59, 999000000, time.UTC),
	} {
		id := Activity(at, "acc|cus|sub|0")
		if again := Activity(at, "acc|cus|sub|0"); again != id {
			t.Fatalf("not deterministic: %s, %s", id, again)
		}
		if other := Activity(at, "acc|cus|sub|1"); other == id {
			t.Fatalf("two identities share %s", id)
		}
		got, ok := ActivityTime(id)
		if !ok || !got.Equal(at.Truncate(time.Millisecond)) {
			t.Errorf("%v: uuid %s carries %v, %v", at, id, got, ok)
		}
	}
	for _, bad := range []string{"", "not-a-uuid", "561814e1-d7d3-42f3-8936-4689ec0fbb74", "{" + Activity(time.Now(), "x") + "}"} {
		if _, ok := ActivityTime(bad); ok {
			t.Errorf("%q read as an activity uuid", bad)
		}
	}
}
