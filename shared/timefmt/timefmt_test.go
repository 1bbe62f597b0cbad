package timefmt

import (
	"testing"
	"time"
)

func TestParseAcceptedForms(t *testing.T) {
	want := time.Date(2016, 1, 1, 9, 0, 0, 0, time.UTC)
	tests := map[string]time.Time{
		"2016-01-01 12:00:00 +0300":      want,
		"2016-01-01T09:00:00Z":           want,
		"2016-01-01T09:00:00.000Z":       want,
		"2016-01-01T12:00:00+03:00":      want,
		"2016-01-01T09:00:00":            want,
		"2016-01-01 09:00:00":            want,
		"2016-01-01 09:00:00 UTC":        want,
		"2016-01-01":                     time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC),
		"2018-12-18T18:39:15+06:00":      time.Date(2018, 12, 18, 12, 39, 15, 0, time.UTC),
		" 2017-05-31T00:00:00.000Z ":     time.Date(2017, 5, 31, 0, 0, 0, 0, time.UTC),
		"2016-01-01T09:00:00.123456789Z": want.Add(123456789),
	}
	for in, w := range tests {
		got, err := Parse(in)
		if err != nil {
			t.Errorf("Parse(%q): %v", in, err)
			continue
		}
		if !got.Equal(w) || got.Location() != time.UTC {
			t.Errorf("Parse(%q) = %v, want %v UTC", in, got, w)
		}
	}
	for _, bad := range []string{"", "yesterday", "2016-13-01", "2016-01-01T25:00:00Z", "01/02/2016"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestFormats(t *testing.T) {
	ts := time.Date(2023, 12, 15, 12, 25, 56, 950_000_000, time.FixedZone("x", 3600))
	cases := map[string]string{
		Millis(ts):  "2023-12-15T11:25:56.950Z",
		Seconds(ts): "2023-12-15T11:25:56Z",
		Offset(ts):  "2023-12-15T12:25:56+01:00",
		Date(ts):    "2023-12-15",
	}
	for got, want := range cases {
		if got != want {
			t.Errorf("got %s want %s", got, want)
		}
	}
	if MillisPtr(nil) != nil || *MillisPtr(&ts) != "2023-12-15T11:25:56.950Z" {
		t.Error("MillisPtr")
	}
}
