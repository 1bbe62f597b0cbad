// Package account holds the HTTP operations of the account itself: the connectivity
// check, the account and its data sources (with their import and settings blocks).
package account

import (
	"context"
	"net/http"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
)

// Ping is GET /v1/ping, the clients' connectivity check.
func Ping(*api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyA, Handler: func(context.Context, *apigw.Request) (apigw.Response, error) {
		return apigw.JSON(http.StatusOK, map[string]string{"data": "pong!"})
	}}
}
