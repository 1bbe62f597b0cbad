// Package apitest holds what the tests of the HTTP operations share: fresh accounts
// with data sources and customers on the emulator's table, calls of an operation by its
// name in the registry (shared/routes) through apigw, and the DynamoDB benchmarks'
// runner.
package apitest
