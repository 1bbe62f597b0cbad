// Package config reads the functions' settings from the environment once, at start.
package config

import (
	"fmt"
	"os"
	"strconv"
)

// defaultImportWindow is the import lanes' window unless IMPORT_LANE_WINDOW sets it: the
// feeder refills it once a second, and the import worker's 40 batches at once apply up to
// about 1,100 customers a second on a warmed table, so one account alone still keeps them
// all busy.
const defaultImportWindow = 2000

// Config is the environment every function shares (template.yaml Globals).
type Config struct {
	TableName      string
	ImportBucket   string
	ImportQueueURL string
	// ImportFeedQueueURL is the feeder queue of the accounts' import lanes; ImportWindow
	// the most customer messages of one account in the import queue at once
	// (IMPORT_LANE_WINDOW, docs/architecture.md "Lanes").
	ImportFeedQueueURL string
	ImportWindow       int
	// JobsQueueURL is the jobs queue: the changes made through the API and the
	// account-level jobs; RecomputeQueueURL the bulk lane of recomputations (imports,
	// wake-ups); SeriesFoldQueueURL the folds of the account series' bulk shards.
	JobsQueueURL       string
	RecomputeQueueURL  string
	SeriesFoldQueueURL string
	// StripeEventQueueURL is the queue of verified Stripe webhook events;
	// StripeBackfillQueueURL the steps of Stripe backfills (a lane of their own).
	StripeEventQueueURL    string
	StripeBackfillQueueURL string
	CursorSecret           string
	// AppURL is the base of the links to the web app (customer "chartmogul-url").
	AppURL string
	// StripeAPIBase is the base URL of Stripe's API that backfills read (STRIPE_API_BASE;
	// "" is Stripe's own; the tests and the local stack give stripe-mock's);
	// StripeBackfillRate the most requests a second one connection's backfill sends
	// (STRIPE_BACKFILL_RATE; 0 is the reader's default, docs/stripe.md "Backfill").
	StripeAPIBase      string
	StripeBackfillRate float64
	// SecretsKeyID is the KMS key that seals the data sources' secrets (a Stripe
	// webhook secret and API key): SECRETS_KEY_ID, the template's SecretsKey.
	SecretsKeyID string
}

// FromEnv reads the configuration from the process environment, as Lambda sets it.
func FromEnv() (Config, error) { return FromLookup(os.Getenv) }

// FromLookup reads the configuration through lookup (the local stack and tests pass
// the template's resolved variables); TABLE_NAME and CURSOR_SECRET are required.
func FromLookup(lookup func(string) string) (Config, error) {
	c := Config{
		TableName:              lookup("TABLE_NAME"),
		ImportBucket:           lookup("IMPORT_BUCKET"),
		ImportQueueURL:         lookup("IMPORT_QUEUE_URL"),
		ImportFeedQueueURL:     lookup("IMPORT_FEED_QUEUE_URL"),
		JobsQueueURL:           lookup("JOBS_QUEUE_URL"),
		RecomputeQueueURL:      lookup("RECOMPUTE_QUEUE_URL"),
		SeriesFoldQueueURL:     lookup("SERIES_FOLD_QUEUE_URL"),
		StripeEventQueueURL:    lookup("STRIPE_EVENT_QUEUE_URL"),
		StripeBackfillQueueURL: lookup("STRIPE_BACKFILL_QUEUE_URL"),
		CursorSecret:           lookup("CURSOR_SECRET"),
		AppURL:                 lookup("APP_URL"),
		StripeAPIBase:          lookup("STRIPE_API_BASE"),
		SecretsKeyID:           lookup("SECRETS_KEY_ID"),
	}
	if c.TableName == "" {
		return c, fmt.Errorf("config: TABLE_NAME is not set")
	}
	if len(c.CursorSecret) < 16 {
		return c, fmt.Errorf("config: CURSOR_SECRET must be set (at least 16 characters)")
	}
	c.ImportWindow = defaultImportWindow
	if w := lookup("IMPORT_LANE_WINDOW"); w != "" {
		n, err := strconv.Atoi(w)
		if err != nil || n < 1 {
			return c, fmt.Errorf("config: IMPORT_LANE_WINDOW must be a positive integer, not %q", w)
		}
		c.ImportWindow = n
	}
	if r := lookup("STRIPE_BACKFILL_RATE"); r != "" {
		n, err := strconv.ParseFloat(r, 64)
		if err != nil || n <= 0 || n > 100 {
			return c, fmt.Errorf("config: STRIPE_BACKFILL_RATE must be a number of requests a second in (0, 100], not %q", r)
		}
		c.StripeBackfillRate = n
	}
	if c.AppURL == "" {
		c.AppURL = "https://app.subsight.dev"
	}
	return c, nil
}
