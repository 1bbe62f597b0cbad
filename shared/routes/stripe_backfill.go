package routes

import "github.com/subsight/subsight/shared/api/backfill"

// stripeBackfillOperations start a data source's Stripe backfill and show its progress;
// the backfill runs in steps in the Stripe backfill queue (docs/stripe.md, "Backfill"). The start
// reads the data source and its connection, the account's data sources (one Query) and
// their backfills (the account's limit), writes the progress item with one conditional
// PutItem and sends the job.
var stripeBackfillOperations = []Operation{
	op("StartStripeBackfill", post("/v1/data_sources/{data_source_uuid}/stripe/backfill"), backfill.StartStripeBackfill,
		access(table("GetItem", "Query", "PutItem"), sendStripeBackfills)),
	op("GetStripeBackfill", get("/v1/data_sources/{data_source_uuid}/stripe/backfill"), backfill.GetStripeBackfill, tableRead),
}
