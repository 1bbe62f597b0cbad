// Package api holds the HTTP operations of the service, one file per resource. Each
// constructor takes the shared dependencies and returns the endpoint that
// functions/<name>/main.go starts.
package api

import (
	"context"
	"net/http"

	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
)

// Ping is GET /v1/ping, the clients' connectivity check.
func Ping(*Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(context.Context, *apigw.Request) (apigw.Response, error) {
		return apigw.JSON(http.StatusOK, map[string]string{"data": "pong!"})
	}}
}
