package routes

import "github.com/subsight/subsight/shared/api/stripeconn"

// stripeConnectionOperations connect a data source to a Stripe account. Only PUT
// touches the secrets: it seals them (kms:Encrypt on the stack's SecretsKey); nothing
// here decrypts one. A first connection, or a change of its settings that moves
// metrics, sends the data source's recomputation to the jobs queue, and so does a
// disconnection (the source's customers lose its settings); a first connection whose
// job could not be sent is deleted again (the client's retry connects anew), a
// disconnection put back.
var stripeConnectionOperations = []Operation{
	op("PutStripeConnection", put("/v1/data_sources/{data_source_uuid}/stripe"), stripeconn.PutConnection,
		access(table("GetItem", "PutItem"), sealSecrets, sendJobs,
			because("the undo of a first connection whose recomputation could not be queued", table("DeleteItem")))),
	op("GetStripeConnection", get("/v1/data_sources/{data_source_uuid}/stripe"), stripeconn.GetConnection, table("GetItem")),
	op("DeleteStripeConnection", delete("/v1/data_sources/{data_source_uuid}/stripe"), stripeconn.DeleteConnection,
		access(table("GetItem", "DeleteItem"), sendJobs,
			because("the undo of a disconnection whose recomputation could not be queued", table("PutItem")))),
}

// sealSecrets encrypts the data sources' secrets under the stack's key.
var sealSecrets = Access{{Name: "SealSecrets", Resources: []string{"SecretsKey"}, Actions: []string{"kms:Encrypt"}}}
