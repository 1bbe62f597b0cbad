// Package metricsapi holds the HTTP operations of the Metrics API: the account's
// series (/v1/metrics/*), its activities and their export, a customer's subscriptions
// and activities, and the connection of subscriptions.
package metricsapi
