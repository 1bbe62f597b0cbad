package stripewebhook

import (
	"context"
	"strings"

	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
)

// Receiver is POST /stripe/webhooks/{data_source_uuid}: no API key, the delivery's
// Stripe signature authenticates it (Receive). Its errors speak the data sources'
// family ({"error": …}).
func Receiver(d *Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		body, err := r.Body()
		if err != nil {
			return apigw.Response{}, err
		}
		if err := d.Receive(ctx, r.PathParam("data_source_uuid"), body, header(r, "Stripe-Signature")); err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(200, Received)
	}}
}

// header reads a request header whatever its case (API Gateway's payload 2.0 sends
// them lower-cased; a test or another proxy may not).
func header(r *apigw.Request, name string) string {
	if v, ok := r.Event.Headers[strings.ToLower(name)]; ok {
		return v
	}
	for k, v := range r.Event.Headers {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}
