// Package apitest holds what the tests of the HTTP operations share: fresh accounts
// with data sources and customers on the emulator's table, calls of an endpoint through
// apigw, the routes they call, and the DynamoDB benchmarks' runner.
package apitest
