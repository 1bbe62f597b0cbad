package routes

import (
	"github.com/subsight/subsight/shared/api/billing"
	"github.com/subsight/subsight/shared/api/jsonimports"
)

// importAPIs are the bulk import, invoice and import-subscription operations.
var importAPIs = map[string]API{
	"CreateJsonImportFunction":          jsonimports.CreateJSONImport,
	"GetJsonImportFunction":             jsonimports.GetJSONImport,
	"ListImportInvoicesFunction":        billing.ListImportInvoices,
	"ListImportSubscriptionsFunction":   billing.ListImportSubscriptions,
	"UpdateImportSubscriptionFunction":  billing.UpdateSubscription,
	"GetInvoiceFunction":                billing.GetInvoice,
	"DeleteInvoiceFunction":             billing.DeleteInvoice,
	"DeleteInvoiceByExternalIdFunction": billing.DeleteInvoiceByExternalID,
	"UpdateInvoiceStatusFunction":       billing.UpdateInvoiceStatus,
	"CreateSubscriptionEventFunction":   billing.CreateSubscriptionEvent,
	"ListSubscriptionEventsFunction":    billing.ListSubscriptionEvents,
	"UpdateSubscriptionEventFunction":   billing.UpdateSubscriptionEvent,
	"DeleteSubscriptionEventFunction":   billing.DeleteSubscriptionEvent,
	"ImportCustomerInvoicesFunction":    billing.ImportCustomerInvoices,
	"ListInvoicesFunction":              billing.ListInvoices,
	"CreateInvoiceTransactionFunction":  billing.CreateInvoiceTransaction,
}
