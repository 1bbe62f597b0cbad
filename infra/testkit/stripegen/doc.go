// Package stripegen builds Stripe webhook deliveries from stripe-go's own types: one
// event (Event) signed as Stripe signs it (Sign), and a plausible Stripe history of N
// customers (History): customers, subscriptions with trials on monthly and annual
// prices, renewals, upgrades with proration lines, cancellations, failed payments and
// refunds, as the events Stripe would send, in order, deterministic for a seed. The
// webhook's tests and `make demo SOURCE=stripe` use it.
package stripegen
