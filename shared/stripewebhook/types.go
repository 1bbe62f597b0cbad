package stripewebhook

import "github.com/stripe/stripe-go/v84"

// Queued are the event types the sync reads; every other type is answered 200 and
// dropped unstored (an endpoint in Stripe may be subscribed to everything, and an
// unread event would cost a put, a send and a worker's read for nothing). Left out on
// purpose: invoice.created and invoice.deleted (drafts, never mapped) and the credit
// notes (no effect on the metrics).
var Queued = map[stripe.EventType]bool{
	stripe.EventTypeCustomerCreated: true,
	stripe.EventTypeCustomerUpdated: true,
	stripe.EventTypeCustomerDeleted: true,

	stripe.EventTypeCustomerSubscriptionCreated:              true,
	stripe.EventTypeCustomerSubscriptionUpdated:              true,
	stripe.EventTypeCustomerSubscriptionDeleted:              true,
	stripe.EventTypeCustomerSubscriptionPaused:               true,
	stripe.EventTypeCustomerSubscriptionResumed:              true,
	stripe.EventTypeCustomerSubscriptionTrialWillEnd:         true,
	stripe.EventTypeCustomerSubscriptionPendingUpdateApplied: true,
	stripe.EventTypeCustomerSubscriptionPendingUpdateExpired: true,

	stripe.EventTypeInvoiceFinalized:           true,
	stripe.EventTypeInvoicePaid:                true,
	stripe.EventTypeInvoicePaymentFailed:       true,
	stripe.EventTypeInvoicePaymentSucceeded:    true,
	stripe.EventTypeInvoiceVoided:              true,
	stripe.EventTypeInvoiceMarkedUncollectible: true,
	stripe.EventTypeInvoiceUpdated:             true,
	stripe.EventTypeInvoicePaymentPaid:         true,

	stripe.EventTypeChargeRefunded: true,
	stripe.EventTypeRefundCreated:  true,
	stripe.EventTypeRefundUpdated:  true,
	stripe.EventTypeRefundFailed:   true,

	stripe.EventTypeSubscriptionScheduleAborted:   true,
	stripe.EventTypeSubscriptionScheduleCanceled:  true,
	stripe.EventTypeSubscriptionScheduleCompleted: true,
	stripe.EventTypeSubscriptionScheduleCreated:   true,
	stripe.EventTypeSubscriptionScheduleExpiring:  true,
	stripe.EventTypeSubscriptionScheduleReleased:  true,
	stripe.EventTypeSubscriptionScheduleUpdated:   true,

	stripe.EventTypePriceCreated:   true,
	stripe.EventTypePriceUpdated:   true,
	stripe.EventTypePriceDeleted:   true,
	stripe.EventTypeProductCreated: true,
	stripe.EventTypeProductUpdated: true,
	stripe.EventTypeProductDeleted: true,
}
