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

	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/sqsworker"
)

func deps() *app.Deps {
	slog.SetDefault(lambdacontext.NewLogger())
	d, err := app.FromEnv(context.Background())
	if err != nil {
		slog.Error("start-up failed", "error", err.Error())
		os.Exit(1)
	}
	return d
}

// API starts an HTTP API operation.
func API(build func(*app.Deps) apigw.Endpoint) {
	lambda.Start(apigw.Wrap(build(deps())))
}

// Worker starts an SQS worker.
func Worker(build func(*app.Deps) sqsworker.Handler) {
	lambda.Start(build(deps()))
}

// Start starts any other handler built from the shared dependencies (the authorizer).
func Start[H any](build func(*app.Deps) H) {
	lambda.Start(build(deps()))
}

// Public starts a handler of a route without the authorizer that needs none of the
// shared dependencies (the dashboard's page and assets): it builds no AWS client.
func Public[H any](build func() H) {
	slog.SetDefault(lambdacontext.NewLogger())
	lambda.Start(build())
}
