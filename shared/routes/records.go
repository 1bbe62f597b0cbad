package routes

import (
	"github.com/subsight/subsight/shared/api/billing"
	"github.com/subsight/subsight/shared/api/jsonimports"
	"github.com/subsight/subsight/shared/api/metricsapi"
)

// recordAPIs are the line item and transaction operations, the disabled states of
// invoices, line items, transactions and subscription events, invoice updates, the
// json_imports listing, PUT plans and the activities export. A by-external-id route
// is served by the handler of its by-uuid twin.
var recordAPIs = map[string]API{
	"CreateInvoiceLineItemFunction":                    billing.CreateInvoiceLineItem,
	"GetLineItemFunction":                              billing.GetLineItem,
	"GetLineItemByExternalIdFunction":                  billing.GetLineItem,
	"UpdateLineItemFunction":                           billing.UpdateLineItem,
	"UpdateLineItemByExternalIdFunction":               billing.UpdateLineItem,
	"DeleteLineItemFunction":                           billing.DeleteLineItem,
	"DeleteLineItemByExternalIdFunction":               billing.DeleteLineItem,
	"SetLineItemDisabledFunction":                      billing.SetLineItemDisabled,
	"SetLineItemDisabledByExternalIdFunction":          billing.SetLineItemDisabled,
	"GetTransactionFunction":                           billing.GetTransaction,
	"GetTransactionByExternalIdFunction":               billing.GetTransaction,
	"UpdateTransactionFunction":                        billing.UpdateTransaction,
	"UpdateTransactionByExternalIdFunction":            billing.UpdateTransaction,
	"DeleteTransactionFunction":                        billing.DeleteTransaction,
	"DeleteTransactionByExternalIdFunction":            billing.DeleteTransaction,
	"SetTransactionDisabledFunction":                   billing.SetTransactionDisabled,
	"SetTransactionDisabledByExternalIdFunction":       billing.SetTransactionDisabled,
	"SetInvoiceDisabledFunction":                       billing.SetInvoiceDisabled,
	"SetInvoiceDisabledByExternalIdFunction":           billing.SetInvoiceDisabled,
	"UpdateInvoiceFunction":                            billing.UpdateInvoice,
	"UpdateInvoiceByExternalIdFunction":                billing.UpdateInvoice,
	"DeleteCustomerInvoicesFunction":                   billing.DeleteCustomerInvoices,
	"SetSubscriptionEventDisabledFunction":             billing.SetSubscriptionEventDisabled,
	"SetSubscriptionEventDisabledByExternalIdFunction": billing.SetSubscriptionEventDisabled,
	"ListJsonImportsFunction":                          jsonimports.ListJSONImports,
	"PutPlanFunction":                                  billing.UpdatePlan,
	"CreateActivitiesExportFunction":                   metricsapi.CreateActivitiesExport,
	"GetActivitiesExportFunction":                      metricsapi.GetActivitiesExport,
}
