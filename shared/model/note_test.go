package model

import "testing"

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
	if n.Author() != nil {
		t.Errorf("author without e-mail: %q", *n.Author())
	}
	n.Normalize()
	if n.CallDuration != 0 {
		t.Errorf("a note kept call_duration %d", n.CallDuration)
	}
	n = Note{Type: NoteTypeCall, CallDuration: 30, AuthorEmail: "a@b.co", AuthorName: "A B"}
	n.Normalize()
	if n.CallDuration != 30 || *n.Author() != "A B (a@b.co)" {
		t.Errorf("%+v %q", n, *n.Author())
	}
}
