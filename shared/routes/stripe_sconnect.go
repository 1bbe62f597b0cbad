package routes

import "github.com/subsight/subsight/shared/api/stripeconn"

// stripeConnectionOperations connect a data source to a Stripe account. Only PUT
// touches the secrets: it seals them (kms:Encrypt on the stack's SecretsKey); nothing
// here decrypts one.
var stripeConnectionOperations = []Operation{
	op("PutStripeConnection", put("/v1/data_sources/{data_source_uuid}/stripe"), stripeconn.PutConnection,
		access(table("GetItem", "PutItem"), sealSecrets)),
	op("GetStripeConnection", get("/v1/data_sources/{data_source_uuid}/stripe"), stripeconn.GetConnection, table("GetItem")),
	op("DeleteStripeConnection", delete("/v1/data_sources/{data_source_uuid}/stripe"), stripeconn.DeleteConnection,
		table("GetItem", "DeleteItem")),
}

// sealSecrets encrypts the data sources' secrets under the stack's key.
var sealSecrets = Access{{Name: "SealSecrets", Resources: []string{"SecretsKey"}, Actions: []string{"kms:Encrypt"}}}
