package model

import (
	"testing"
	"time"
)

func TestParseCallDuration(t *testing.T) {
	tests := []struct {
		in   any
		want int
		ok   bool
	}{
		{0.0, 0, true}, {60.0, 60, true}, {-1.0, 0, false}, {1.5, 0, false}, {"60", 0, false},
		{float64(MaxCallDuration + 1), 0, false},
	}
	for _, tt := range tests {
		got, err := ParseCallDuration(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("%#v: %d, %v", tt.in, got, err)
		}
	}
}

func TestNoteAuthorAndNormalize(t *testing.T) {
	n := Note{Type: NoteTypeNote, CallDuration: 30}
	if n.Author() != KeyAuthor {
		t.Errorf("author without e-mail: %q", n.Author())
	}
	n.Normalize()
	if n.CallDuration != 0 {
		t.Errorf("a note kept call_duration %d", n.CallDuration)
	}
	n = Note{Type: NoteTypeCall, CallDuration: 30, AuthorEmail: "a@b.co", AuthorName: "A B"}
	n.Normalize()
	if n.CallDuration != 30 || n.Author() != "A B (a@b.co)" {
		t.Errorf("%+v %q", n, n.Author())
	}
}

func TestFirstMember(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		members []Member
		want    string
	}{
		{"none", nil, ""},
		{"earliest added", []Member{{Email: "b@x.co", CreatedAt: t0.Add(time.Hour)}, {Email: "c@x.co", CreatedAt: t0}}, "c@x.co"},
		{"same instant: by e-mail", []Member{{Email: "b@x.co", CreatedAt: t0}, {Email: "a@x.co", CreatedAt: t0}}, "a@x.co"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, ok := FirstMember(tt.members)
			if ok != (tt.want != "") || m.Email != tt.want {
				t.Errorf("FirstMember = %q, %v; want %q", m.Email, ok, tt.want)
			}
		})
	}
}
