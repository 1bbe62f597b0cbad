package routes

import "github.com/subsight/subsight/shared/api"

// recordAPIs are the line item and transaction operations, the disabled states of
// invoices, line items, transactions and subscription events, invoice updates, the
// json_imports listing, PUT plans and the activities export. A by-external-id route
// is served by the handler of its by-uuid twin.
var recordAPIs = map[string]API{
	"CreateInvoiceLineItemFunction":                    api.CreateInvoiceLineItem,
	"GetLineItemFunction":                              api.GetLineItem,
	"GetLineItemByExternalIdFunction":                  api.GetLineItem,
	"UpdateLineItemFunction":                           api.UpdateLineItem,
	"UpdateLineItemByExternalIdFunction":               api.UpdateLineItem,
	"DeleteLineItemFunction":                           api.DeleteLineItem,
	"DeleteLineItemByExternalIdFunction":               api.DeleteLineItem,
	"SetLineItemDisabledFunction":                      api.SetLineItemDisabled,
	"SetLineItemDisabledByExternalIdFunction":          api.SetLineItemDisabled,
	"GetTransactionFunction":                           api.GetTransaction,
	"GetTransactionByExternalIdFunction":               api.GetTransaction,
	"UpdateTransactionFunction":                        api.UpdateTransaction,
	"UpdateTransactionByExternalIdFunction":            api.UpdateTransaction,
	"DeleteTransactionFunction":                        api.DeleteTransaction,
	"DeleteTransactionByExternalIdFunction":            api.DeleteTransaction,
	"SetTransactionDisabledFunction":                   api.SetTransactionDisabled,
	"SetTransactionDisabledByExternalIdFunction":       api.SetTransactionDisabled,
	"SetInvoiceDisabledFunction":                       api.SetInvoiceDisabled,
	"SetInvoiceDisabledByExternalIdFunction":           api.SetInvoiceDisabled,
	"UpdateInvoiceFunction":                            api.UpdateInvoice,
	"UpdateInvoiceByExternalIdFunction":                api.UpdateInvoice,
	"DeleteCustomerInvoicesFunction":                   api.DeleteCustomerInvoices,
	"SetSubscriptionEventDisabledFunction":             api.SetSubscriptionEventDisabled,
	"SetSubscriptionEventDisabledByExternalIdFunction": api.SetSubscriptionEventDisabled,
	"ListJsonImportsFunction":                          api.ListJSONImports,
	"PutPlanFunction":                                  api.UpdatePlan,
	"CreateActivitiesExportFunction":                   api.CreateActivitiesExport,
	"GetActivitiesExportFunction":                      api.GetActivitiesExport,
}
