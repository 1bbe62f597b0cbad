package dashboard

import "embed"

// built holds what web/build.mjs wrote into dist/: index.html, assets/<name>-<hash>.<ext>
// and their .gz twins. The Makefile builds them before any binary (make build), so every
// bootstrap carries the dashboard; a checkout that was never built has only dist/.keep,
// which keeps this directive valid for go vet and go test.
//
//go:embed all:dist
var built embed.FS
