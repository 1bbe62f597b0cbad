// Package rie holds the Lambda-parity tests: every function of the registry
// (shared/routes, from which template.yaml's functions are generated), built by
// the Makefile for this machine's architecture (same flags and tags as the arm64
// production build), runs its real bootstrap under the Lambda runtime interface
// emulator (aws-lambda-rie) with only the environment Lambda gives it, in a read-only
// task directory with only /tmp writable, and answers a representative event that
// makes it call the AWS services it uses (moto). They catch what in-process handler
// tests cannot see: the lambda.norpc build tag, main wiring, start-up configuration
// from the environment, dependence on this machine (AWS_CA_BUNDLE, HOME, files), and
// the event and response JSON.
//
// An operation without a case of its own in parityCases (parity_cases_test.go) gets the
// generic one: the bootstrap must answer a request from an account that owns nothing as
// the handler does in-process. Any other function must have its case.
//
// make test installs the emulator into .bin/ and sets RIE_BIN; without it the tests skip.
// See docs/local-stack.md, "Lambda parity".
package rie
