package routes

import "github.com/subsight/subsight/shared/api"

// importAPIs are the bulk import, invoice and import-subscription operations.
var importAPIs = map[string]API{
	"CreateJsonImportFunction":          api.CreateJSONImport,
	"GetJsonImportFunction":             api.GetJSONImport,
	"ListImportInvoicesFunction":        api.ListImportInvoices,
	"ListImportSubscriptionsFunction":   api.ListImportSubscriptions,
	"UpdateImportSubscriptionFunction":  api.UpdateSubscription,
	"GetInvoiceFunction":                api.GetInvoice,
	"DeleteInvoiceFunction":             api.DeleteInvoice,
	"DeleteInvoiceByExternalIdFunction": api.DeleteInvoiceByExternalID,
	"UpdateInvoiceStatusFunction":       api.UpdateInvoiceStatus,
	"CreateSubscriptionEventFunction":   api.CreateSubscriptionEvent,
	"ListSubscriptionEventsFunction":    api.ListSubscriptionEvents,
	"UpdateSubscriptionEventFunction":   api.UpdateSubscriptionEvent,
	"DeleteSubscriptionEventFunction":   api.DeleteSubscriptionEvent,
	"ImportCustomerInvoicesFunction":    api.ImportCustomerInvoices,
	"ListInvoicesFunction":              api.ListInvoices,
	"CreateInvoiceTransactionFunction":  api.CreateInvoiceTransaction,
}
