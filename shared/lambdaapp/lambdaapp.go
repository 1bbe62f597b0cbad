// Package lambdaapp is what every functions/<name>/main.go calls: it sets up JSON
// logging with the request id, builds the shared dependencies once, and starts the
// Lambda runtime loop with the operation's handler.
package lambdaapp

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/auth"
	"github.com/subsight/subsight/shared/sqsworker"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/stripewebhook"
	"github.com/subsight/subsight/shared/workers"
)

func deps(load func(context.Context) (*app.Deps, error)) *app.Deps {
	slog.SetDefault(lambdacontext.NewLogger())
	d, err := load(context.Background())
	if err != nil {
		slog.Error("start-up failed", "error", err.Error())
		os.Exit(1)
	}
	return d
}

// API starts an HTTP API operation.
func API(build func(*api.Deps) apigw.Endpoint) {
	d := deps(app.FromEnv)
	lambda.Start(apigw.Wrap(build(d.API()), d.Gate()))
}

// Worker starts an SQS worker.
func Worker(build func(*workers.Deps) sqsworker.Handler) {
	lambda.Start(build(deps(app.WorkerFromEnv).Workers()))
}

// Scheduled starts a function invoked by a schedule (the event carries nothing it uses).
func Scheduled(build func(*workers.Deps) func(context.Context) error) {
	lambda.Start(build(deps(app.WorkerFromEnv).Workers()))
}

// Authorizer starts the HTTP API authorizer.
func Authorizer(build func(store.KeyResolver) auth.AuthorizerHandler) {
	lambda.Start(build(deps(app.FromEnv).Store))
}

// Public starts a handler of a route without the authorizer that needs none of the
// shared dependencies (the dashboard's page and assets): it builds no AWS client.
func Public[H any](build func() H) {
	slog.SetDefault(lambdacontext.NewLogger())
	lambda.Start(build())
}

// StripeWebhook starts the Stripe webhook endpoint: a route without the authorizer
// (apigw.WrapPublic) whose handler checks each delivery's signature itself.
func StripeWebhook(build func(*stripewebhook.Deps) apigw.Endpoint) {
	lambda.Start(apigw.WrapPublic(build(deps(app.FromEnv).StripeWebhooks())))
}
