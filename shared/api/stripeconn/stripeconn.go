// Package stripeconn is the family of the operations that connect a data source to a
// Stripe account: PUT, GET and DELETE /v1/data_sources/{data_source_uuid}/stripe. The
// secrets are sealed (api.Deps.Secrets) before they are stored, bound to the account
// and data source, and never returned, logged or quoted in an error.
package stripeconn

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/optional"
	"github.com/subsight/subsight/shared/secrets"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/timefmt"
)

// WebhookPath is where Stripe delivers a data source's events, below the API's base URL.
const WebhookPath = "/stripe/webhooks/"

// maxSecretLength bounds a secret: Stripe's are well under it.
const maxSecretLength = 255

// The prefixes of what Stripe issues: the signing secret of a webhook endpoint, a
// restricted key (what the service asks for: read access only) and a secret key
// (accepted, though it can do far more than read).
const (
	webhookSecretPrefix = "whsec_"
	restrictedKeyPrefix = "rk_"
	secretKeyPrefix     = "sk_"
)

// connectionJSON is the connection as the API shows it: never a secret, only the last
// four characters of the API key.
func connectionJSON(c model.StripeConnection, webhookURL string) jsonobj.Object {
	var last4 *string
	if c.APIKeyLast4 != "" {
		last4 = &c.APIKeyLast4
	}
	return jsonobj.Object{{Key: "data_source_uuid", Value: c.DataSourceUUID}, {Key: "webhook_url", Value: webhookURL},
		{Key: "api_key_last4", Value: last4},
		{Key: "settings", Value: SettingsJSON(c.Settings)},
		{Key: "connected_at", Value: timefmt.Millis(c.ConnectedAt)}, {Key: "updated_at", Value: timefmt.Millis(c.UpdatedAt)}}
}

// WebhookURL is where Stripe must send a data source's events: the base URL the
// request reached the API at (API Gateway's domain, or a custom domain mapped to the
// API without a base path), https unless the request says otherwise or comes to a
// loopback address (the local stack).
func WebhookURL(r *apigw.Request, dsUUID string) string {
	host := r.Event.RequestContext.DomainName
	if host == "" {
		host = r.Event.Headers["host"]
	}
	scheme := r.Event.Headers["x-forwarded-proto"]
	if scheme == "" {
		scheme = "https"
		if h := strings.Split(strings.TrimPrefix(host, "["), "]")[0]; h == "localhost" || strings.HasPrefix(h, "127.") ||
			strings.HasPrefix(h, "localhost:") || strings.HasPrefix(h, "::1") {
			scheme = "http"
		}
	}
	return scheme + "://" + host + WebhookPath + dsUUID
}

// invalid is the 422 of a field, in the data sources' error family; its message never
// quotes the value (it may be a secret).
func invalid(param, code, message string) *apperr.Error {
	e := apperr.Unprocessable(param, "%s", message)
	e.Code = code
	return e
}

// putBody is PUT's body. Other fields are accepted and ignored, as the API accepts
// them elsewhere (a client may send back the connection it read).
type putBody struct {
	WebhookSecret optional.Value[string]                     `json:"webhook_secret"`
	APIKey        optional.Value[string]                     `json:"api_key"`
	Settings      optional.Value[map[string]json.RawMessage] `json:"settings"`
}

// secretOf checks a secret's presence, length and prefix; what it names in errors is
// the field, never the value.
func secretOf(param string, v optional.Value[string], what string, prefixes ...string) (string, error) {
	s := strings.TrimSpace(v.V)
	if !v.Set || v.Null || s == "" {
		return "", invalid(param, "blank", param+" can't be blank")
	}
	if len([]rune(v.V)) > maxSecretLength {
		return "", invalid(param, "too_long", param+" is too long (maximum is 255 characters)")
	}
	for _, p := range prefixes {
		if len(s) > len(p) && strings.HasPrefix(s, p) {
			return s, nil
		}
	}
	return "", invalid(param, "invalid", param+" must be "+what)
}

// settingsOf applies PUT's settings over base (applySettings); none sent keeps base.
func settingsOf(base model.StripeSettings, sent optional.Value[map[string]json.RawMessage]) (model.StripeSettings, error) {
	if !sent.Set {
		return base, nil
	}
	if sent.Null {
		return base, invalid("settings", "invalid", "settings must be an object")
	}
	return applySettings(base, sent.V, "settings.")
}

// last4 are the last four characters of a key, what the API shows of it.
func last4(key string) string { return key[max(0, len(key)-4):] }

// PutConnection is PUT /v1/data_sources/{data_source_uuid}/stripe: it connects the data
// source to a Stripe account, or replaces its connection. webhook_secret is required
// every time; api_key, when left out, keeps the key stored (null removes it); settings
// not sent keep their values (ChartMogul's defaults on a first connection). A first
// connection, or a change of the settings that moves metrics, queues the recomputation
// of the source's customers (recomputeSource).
func PutConnection(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		uuid := r.PathParam("data_source_uuid")
		if _, err := api.LiveDataSource(ctx, d, r.AccountID, uuid); err != nil {
			return apigw.Response{}, err
		}
		var body putBody
		if err := r.Decode(&body); err != nil {
			return apigw.Response{}, err
		}
		webhookSecret, err := secretOf("webhook_secret", body.WebhookSecret, "a webhook signing secret (whsec_…)", webhookSecretPrefix)
		if err != nil {
			return apigw.Response{}, err
		}
		var apiKey string
		if body.APIKey.Present() {
			if apiKey, err = secretOf("api_key", body.APIKey, "a restricted (rk_…) or secret (sk_…) Stripe API key",
				restrictedKeyPrefix, secretKeyPrefix); err != nil {
				return apigw.Response{}, err
			}
		}
		now := d.Now().UTC()
		conn, err := storage(d).GetStripeConnection(ctx, uuid)
		created := errors.Is(err, store.ErrNotFound) || (err == nil && conn.AccountID != r.AccountID)
		switch {
		case created:
			conn = model.StripeConnection{AccountID: r.AccountID, DataSourceUUID: uuid, Settings: model.DefaultStripeSettings(),
				ConnectedAt: now}
		case err != nil:
			return apigw.Response{}, err
		}
		before := conn
		if conn.Settings, err = settingsOf(conn.Settings, body.Settings); err != nil {
			return apigw.Response{}, err
		}
		binding := secrets.Binding{AccountID: r.AccountID, DataSourceUUID: uuid}
		if conn.SealedWebhookSecret, err = d.Secrets.Seal(ctx, []byte(webhookSecret), binding); err != nil {
			return apigw.Response{}, err
		}
		switch {
		case apiKey != "":
			if conn.SealedAPIKey, err = d.Secrets.Seal(ctx, []byte(apiKey), binding); err != nil {
				return apigw.Response{}, err
			}
			conn.APIKeyLast4 = last4(apiKey)
		case body.APIKey.Null:
			conn.SealedAPIKey, conn.APIKeyLast4 = nil, ""
		}
		conn.UpdatedAt = now
		if err := storage(d).PutStripeConnection(ctx, conn); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return apigw.Response{}, errConnectionNotFound()
			}
			return apigw.Response{}, err
		}
		if created || movesMetrics(before.Settings, conn.Settings) {
			undo := func() error {
				if created {
					return storage(d).DeleteStripeConnection(ctx, r.AccountID, uuid)
				}
				return storage(d).ReplaceStripeConnection(ctx, before, conn.UpdatedAt)
			}
			if err := recomputeSource(ctx, d, r.AccountID, uuid, conn.UpdatedAt, undo); err != nil {
				return apigw.Response{}, err
			}
		}
		return apigw.JSON(http.StatusOK, connectionJSON(conn, WebhookURL(r, uuid)))
	}}
}

// errConnectionNotFound is the 404 of a data source that is not connected to Stripe.
func errConnectionNotFound() *apperr.Error {
	return apperr.NotFound("data_source_uuid", "Stripe connection not found")
}

// GetConnection is GET /v1/data_sources/{data_source_uuid}/stripe: the connection,
// without its secrets (404 when the data source is not connected).
func GetConnection(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		uuid := r.PathParam("data_source_uuid")
		if _, err := api.LiveDataSource(ctx, d, r.AccountID, uuid); err != nil {
			return apigw.Response{}, err
		}
		conn, err := storage(d).GetStripeConnection(ctx, uuid)
		if errors.Is(err, store.ErrNotFound) || (err == nil && conn.AccountID != r.AccountID) {
			return apigw.Response{}, errConnectionNotFound()
		}
		if err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, connectionJSON(conn, WebhookURL(r, uuid)))
	}}
}

// DeleteConnection is DELETE /v1/data_sources/{data_source_uuid}/stripe: the data
// source is disconnected (its records stay); 204 whether or not it was connected, so a
// retried DELETE answers as the first. A data source being deleted is accepted, as
// DELETE of the data source accepts it. Removing a live source's connection removes its
// settings too, so its customers follow the rules of a source without settings from now
// on: the removal queues their recomputation (recomputeSource), and a removal whose job
// cannot be queued is taken back, as PUT takes back a change.
func DeleteConnection(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		uuid := r.PathParam("data_source_uuid")
		ds, err := api.DataSource(ctx, d, r.AccountID, uuid)
		if err != nil {
			return apigw.Response{}, err
		}
		removed, err := storage(d).RemoveStripeConnection(ctx, r.AccountID, uuid)
		if errors.Is(err, store.ErrNotFound) {
			return apigw.NoContent()
		}
		if err != nil {
			return apigw.Response{}, err
		}
		// A source being deleted loses its customers with its purge: nothing to recompute.
		if ds.Status != model.DataSourceDeleting {
			undo := func() error { return storage(d).RestoreStripeConnection(ctx, removed) }
			if err := recomputeSource(ctx, d, r.AccountID, uuid, d.Now(), undo); err != nil {
				return apigw.Response{}, err
			}
		}
		return apigw.NoContent()
	}}
}
