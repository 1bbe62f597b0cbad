package stripewebhook

import "github.com/stripe/stripe-go/v84"

// Queued are the event types the sync applies (shared/stripesync's handlers: the two
// lists change together); every other type is answered 200 and dropped unstored (an
// endpoint in Stripe may be subscribed to everything, and an event the sync ignores
// would cost a put, a send and a worker's read for nothing). Left out: invoice.created
// and invoice.deleted (drafts, never mapped), credit notes (no effect on the metrics),
// pauses and products (not mapped: docs/stripe.md).
var Queued = map[stripe.EventType]bool{
	stripe.EventTypeCustomerCreated: true,
	stripe.EventTypeCustomerUpdated: true,
	stripe.EventTypeCustomerDeleted: true,

	stripe.EventTypeCustomerSubscriptionCreated: true,
	stripe.EventTypeCustomerSubscriptionUpdated: true,
	stripe.EventTypeCustomerSubscriptionDeleted: true,

	stripe.EventTypeInvoiceFinalized:           true,
	stripe.EventTypeInvoicePaid:                true,
	stripe.EventTypeInvoicePaymentFailed:       true,
	stripe.EventTypeInvoiceVoided:              true,
	stripe.EventTypeInvoiceMarkedUncollectible: true,
	stripe.EventTypeInvoiceUpdated:             true,
	stripe.EventTypeInvoicePaymentPaid:         true,

	stripe.EventTypeChargeRefunded: true,
	stripe.EventTypeRefundCreated:  true,
	stripe.EventTypeRefundUpdated:  true,
	stripe.EventTypeRefundFailed:   true,

	stripe.EventTypePriceCreated: true,
	stripe.EventTypePriceUpdated: true,

	stripe.EventTypeSubscriptionScheduleCreated:   true,
	stripe.EventTypeSubscriptionScheduleUpdated:   true,
	stripe.EventTypeSubscriptionScheduleReleased:  true,
	stripe.EventTypeSubscriptionScheduleCanceled:  true,
	stripe.EventTypeSubscriptionScheduleCompleted: true,
	stripe.EventTypeSubscriptionScheduleAborted:   true,
}
