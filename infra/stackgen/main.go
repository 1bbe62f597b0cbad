// Command stackgen writes what follows from the registry of shared/routes: the
// generated part of template.yaml (the functions, their shared execution roles, the
// roles API Gateway invokes them with, and the HTTP API's routes) and every
// functions/<folder>/main.go. `go generate ./shared/routes` runs it; with -check it
// writes nothing and fails when a file differs from what it would write (make lint).
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/subsight/subsight/infra/repo"
	"github.com/subsight/subsight/shared/routes"
)

func main() {
	check := flag.Bool("check", false, "write nothing; fail when a generated file is stale")
	flag.Parse()
	root, err := repo.Root()
	if err == nil {
		err = run(root, *check)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "stackgen:", err)
		os.Exit(1)
	}
}

func run(root string, check bool) error {
	files, err := Files(root, routes.Functions)
	if err != nil {
		return err
	}
	stale, err := Stale(root, files)
	if err != nil {
		return err
	}
	if check {
		if len(stale) > 0 {
			return fmt.Errorf("stale (run go generate ./shared/routes): %v", stale)
		}
		return nil
	}
	for _, name := range stale {
		path := filepath.Join(root, name)
		content, ok := files[name]
		if !ok {
			if err := os.RemoveAll(filepath.Dir(path)); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Stale lists the generated files (paths relative to root) whose content differs from
// files, and the main.go of every folder under functions/ that is no registered
// function.
func Stale(root string, files map[string][]byte) ([]string, error) {
	var stale []string
	for _, name := range slices.Sorted(maps.Keys(files)) {
		have, err := os.ReadFile(filepath.Join(root, name))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if !bytes.Equal(have, files[name]) {
			stale = append(stale, name)
		}
	}
	dirs, err := os.ReadDir(filepath.Join(root, "functions"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, d := range dirs {
		name := filepath.Join("functions", d.Name(), "main.go")
		if _, ok := files[name]; d.IsDir() && !ok {
			stale = append(stale, name)
		}
	}
	return stale, nil
}
