// Package templatecheck holds the project's own rules about template.yaml, as tests;
// CloudFormation's and SAM's rules are cfn-lint's and `sam validate --lint`'s (make
// lint). The rules:
//
//   - every function is built from functions/<folder> (makefile build, bootstrap on
//     provided.al2023, arm64 by default) and starts the handler shared/routes gives the
//     local stack; nothing exists in only one of template, registry and folders;
//   - routes are unique; the routes of the public functions (shared/routes.Public) go
//     without the authorizer, every other route behind the registered API-key
//     authorizer (payload 2.0, simple responses, the Authorization header);
//   - routes are on the template's one HttpApi in payload format 2.0;
//   - every execution role grants exactly what the registry says its functions need
//     (a public function nothing), functions share a role exactly when they need the
//     same, every execution role adds the basic execution and X-Ray write policies only,
//     and API Gateway may invoke exactly the functions behind routes and the
//     authorizer, each route with a role that may invoke its function;
//   - operations (docs/operations.md): every dead-letter queue has an alarm on its depth
//     and every work queue one on its oldest message's age, every alarm notifies the
//     alarm topic, every function and the API's access log write to log groups with a
//     retention (the access log with the fields docs/operations.md lists), every
//     function traces actively and its execution role may write traces;
//   - workers read FIFO queues in batches of at most 10 with partial batch responses;
//     each such queue has a dead-letter queue of its kind and a visibility timeout of
//     six times its worker's timeout;
//   - one on-demand table with the keys shared/keys builds;
//   - every function gets the variables shared/config reads;
//   - the concurrency budget (docs/architecture.md, "Guard rails"): every worker
//     reserves at least the sum of its mappings' MaximumConcurrency, the HTTP API's
//     stage is throttled and every route-level throttle is below it, and the
//     reservations, the API's executions at its throttles and Lambda's 100 unreserved
//     fit the AccountConcurrency parameter.
//
// Every function's Lambda-parity case is infra/testkit/rie's rule (TestLambdaParity).
package templatecheck
