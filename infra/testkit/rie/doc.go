// Package rie holds the Lambda-parity tests: every function of template.yaml, built by
// the Makefile for this machine's architecture (same flags and tags as the arm64
// production build), runs its real bootstrap under the Lambda runtime interface
// emulator (aws-lambda-rie) with only the environment Lambda gives it, in a read-only
// task directory with only /tmp writable, and answers a representative event that
// makes it call the AWS services it uses (moto). They catch what in-process handler
// tests cannot see: the lambda.norpc build tag, main wiring, start-up configuration
// from the environment, dependence on this machine (AWS_CA_BUNDLE, HOME, files), and
// the event and response JSON.
//
// Adding a function to template.yaml means adding its case to parityCases
// (parity_cases_test.go); the test fails for a function without one.
//
// make test installs the emulator into .bin/ and sets RIE_BIN; without it the tests skip.
// See docs/local-stack.md, "Lambda parity".
package rie
