// Package templatecheck holds the tests that keep template.yaml, the handler
// registry (shared/routes) and the functions/ folders in step: every function the
// template declares is built from its folder, starts the handler the local stack
// serves, and nothing exists in one place only.
package templatecheck
