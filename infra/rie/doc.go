// Package rie holds the smoke test that builds one real bootstrap and invokes it through
// the Lambda runtime interface emulator (aws-lambda-rie), the way Lambda runs it: it
// catches mistakes that in-process handler tests cannot see (the lambda.norpc build tag,
// main wiring, start-up configuration from the environment, the event and response JSON).
//
// make test installs the emulator into .bin/ and sets RIE_BIN; without it the test skips.
package rie
