package repo

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRoot(t *testing.T) {
	tests := []struct {
		name    string
		dir     string // relative to the repository, "" for outside it
		wantErr bool
	}{
		{"from a package directory", "infra/repo", false},
		{"from the root", ".", false},
		{"outside any module", "", true},
	}
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.dir != "" {
				dir = filepath.Join(root, tt.dir)
			}
			t.Chdir(dir)
			got, err := Root()
			if (err != nil) != tt.wantErr {
				t.Fatalf("Root() error %v, want error %v", err, tt.wantErr)
			}
			if err == nil && got != root {
				t.Fatalf("Root() = %s, want %s", got, root)
			}
			if _, statErr := os.Stat(filepath.Join(got, "go.mod")); err == nil && statErr != nil {
				t.Fatal(statErr)
			}
		})
	}
}
