package apigw

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/logsafe"
)

// WrapPublic turns an endpoint of a route without the authorizer into a Lambda handler:
// the request carries no account (the handler authenticates it itself, as the Stripe
// webhook checks its signature) and passes no rate gate (the route's own throttle
// bounds it, docs/architecture.md, "Guard rails"). Like Wrap it recovers panics, logs,
// renders errors in the endpoint's family and never returns a Go error.
func WrapPublic(ep Endpoint) LambdaHandler {
	return func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (resp events.APIGatewayV2HTTPResponse, _ error) {
		log := slog.With("request_id", ev.RequestContext.RequestID, "route", ev.RouteKey)
		defer answerPanic(ctx, log, ep.Family, &resp)
		out, err := ep.Handler(ctx, &Request{Event: ev})
		if err != nil {
			if e, ok := apperr.As(err); ok {
				log.InfoContext(ctx, "client error", "status", e.Status, "param", e.Param, "message", logsafe.Text(e.Message))
				return render(e, ep.Family), nil
			}
			log.ErrorContext(ctx, "handler failed", "error", logsafe.Text(err.Error()))
			return render(internalError(), ep.Family), nil
		}
		return encode(out.Status, out.Body), nil
	}
}

// answerPanic, deferred by a wrapper, turns a handler's panic into the generic 500 of
// the endpoint's family, its stack logged.
func answerPanic(ctx context.Context, log *slog.Logger, f apperr.Family, resp *events.APIGatewayV2HTTPResponse) {
	if p := recover(); p != nil {
		log.ErrorContext(ctx, "handler panic", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		*resp = render(internalError(), f)
	}
}
