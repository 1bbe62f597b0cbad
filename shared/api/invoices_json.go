package api

import (
	"slices"

	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/timefmt"
)

// invoiceJSON renders an invoice as the Import API shows it (docs/api.md, "Objects");
// withCustomer adds customer_uuid, which only the /v1/invoices views carry.
func invoiceJSON(inv model.Invoice, withCustomer bool) jsonobj.Object {
	lines := make([]jsonobj.Object, len(inv.LineItems))
	for i, li := range inv.LineItems {
		lines[i] = lineItemJSON(li)
	}
	txs := make([]jsonobj.Object, len(inv.Transactions))
	for i, t := range inv.Transactions {
		txs[i] = transactionJSON(t)
	}
	o := jsonobj.Object{
		{Key: "uuid", Value: inv.UUID},
		{Key: "date", Value: timefmt.Millis(inv.Date)},
		{Key: "due_date", Value: timefmt.MillisPtr(inv.DueDate)},
		{Key: "errors", Value: struct{}{}},
		{Key: "external_id", Value: inv.ExternalID},
		{Key: "currency", Value: inv.Currency},
	}
	if inv.CollectionMethod != "" {
		o = append(o, jsonobj.Field{Key: "collection_method", Value: inv.CollectionMethod})
	}
	// A newer optional field of ChartMogul's: shown once the invoice was voided or written off.
	if inv.Status != "" {
		o = append(o, jsonobj.Field{Key: "status", Value: inv.Status})
	}
	if withCustomer {
		o = append(o, jsonobj.Field{Key: "customer_uuid", Value: inv.CustomerUUID})
	}
	return append(o, jsonobj.Field{Key: "line_items", Value: lines}, jsonobj.Field{Key: "transactions", Value: txs})
}

func lineItemJSON(li model.LineItem) jsonobj.Object {
	o := jsonobj.Object{
		{Key: "uuid", Value: li.UUID},
		{Key: "external_id", Value: nullable(li.ExternalID)},
		{Key: "type", Value: li.Type},
	}
	if li.Type == "one_time" {
		o = append(o, jsonobj.Field{Key: "description", Value: nullable(li.Description)})
	} else {
		o = append(o,
			jsonobj.Field{Key: "subscription_uuid", Value: nullable(li.SubscriptionUUID)},
			jsonobj.Field{Key: "subscription_external_id", Value: nullable(li.SubscriptionExternalID)})
		if li.SubscriptionSetExternalID != "" {
			o = append(o, jsonobj.Field{Key: "subscription_set_external_id", Value: li.SubscriptionSetExternalID})
		}
		o = append(o,
			jsonobj.Field{Key: "prorated", Value: li.Prorated},
			jsonobj.Field{Key: "proration_type", Value: nullable(li.ProrationType)},
			jsonobj.Field{Key: "service_period_start", Value: timefmt.MillisPtr(li.ServicePeriodStart)},
			jsonobj.Field{Key: "service_period_end", Value: timefmt.MillisPtr(li.ServicePeriodEnd)},
			jsonobj.Field{Key: "plan_uuid", Value: nullable(li.PlanUUID)})
		if li.CancelledAt != nil {
			o = append(o, jsonobj.Field{Key: "cancelled_at", Value: timefmt.Millis(*li.CancelledAt)})
		}
	}
	return append(o,
		jsonobj.Field{Key: "amount_in_cents", Value: li.AmountInCents},
		jsonobj.Field{Key: "quantity", Value: li.Quantity},
		jsonobj.Field{Key: "discount_code", Value: li.DiscountCode},
		jsonobj.Field{Key: "discount_amount_in_cents", Value: li.DiscountAmountInCents},
		jsonobj.Field{Key: "tax_amount_in_cents", Value: li.TaxAmountInCents},
		jsonobj.Field{Key: "transaction_fees_in_cents", Value: li.TransactionFeesInCents},
		jsonobj.Field{Key: "account_code", Value: li.AccountCode},
		jsonobj.Field{Key: "transaction_fees_currency", Value: li.TransactionFeesCurrency},
		jsonobj.Field{Key: "discount_description", Value: li.DiscountDescription},
		jsonobj.Field{Key: "event_order", Value: li.EventOrder})
}

// createdTransactionJSON is the answer to adding a transaction to an invoice: the
// recorded answer leaves transaction_fees_currency out unless it was given.
func createdTransactionJSON(t model.Transaction) jsonobj.Object {
	o := transactionJSON(t)
	if t.TransactionFeesCurrency == nil {
		o = slices.DeleteFunc(o, func(f jsonobj.Field) bool { return f.Key == "transaction_fees_currency" })
	}
	return o
}

func transactionJSON(t model.Transaction) jsonobj.Object {
	return jsonobj.Object{
		{Key: "uuid", Value: t.UUID},
		{Key: "external_id", Value: nullable(t.ExternalID)},
		{Key: "amount_in_cents", Value: t.AmountInCents},
		{Key: "type", Value: t.Type},
		{Key: "date", Value: timefmt.Millis(t.Date)},
		{Key: "result", Value: t.Result},
		{Key: "transaction_fees_in_cents", Value: t.TransactionFeesInCents},
		{Key: "transaction_fees_currency", Value: t.TransactionFeesCurrency},
	}
}
