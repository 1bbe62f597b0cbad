package routes

import "github.com/subsight/subsight/shared/api/stripeconn"

// stripeSettingsOperations read and change a Stripe source's own settings, stored with
// its connection (docs/stripe.md, "Settings"). The change is a PutItem conditional on
// the connection read; one that moves metrics sends the data source's recomputation to
// the jobs queue, and a connection whose job could not be sent is put back as it was.
var stripeSettingsOperations = []Operation{
	op("GetStripeSettings", get("/v1/data_sources/{data_source_uuid}/stripe/settings"), stripeconn.GetSettings, table("GetItem")),
	op("UpdateStripeSettings", patch("/v1/data_sources/{data_source_uuid}/stripe/settings"), stripeconn.UpdateSettings,
		access(table("GetItem", "PutItem"), sendJobs)),
}
