package repo

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxPackageLines bounds a package's non-test Go source: past it a package holds more
// than one reader can keep in mind, and it is split by what it serves.
const maxPackageLines = 4000

// TestPackageSize: no package of the module is above maxPackageLines lines of non-test
// Go source.
func TestPackageSize(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]int{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// Tools, dependencies and build output are not the module's packages.
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		lines[rel] += bytes.Count(src, []byte("\n"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) == 0 {
		t.Fatal("no Go package found under " + root)
	}
	for dir, n := range lines {
		if n > maxPackageLines {
			t.Errorf("%s: %d lines of non-test Go source, more than %d", dir, n, maxPackageLines)
		}
	}
}
