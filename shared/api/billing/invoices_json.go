package billing

import (
	"slices"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/timefmt"
)

// invoiceJSON renders an invoice as the Import API shows it (docs/api.md, "Objects");
// withCustomer adds customer_uuid, which only the /v1/invoices views carry.
func invoiceJSON(inv model.Invoice, withCustomer bool) jsonobj.Object {
	return invoiceView{customer: withCustomer}.render(inv)
}

// invoiceView is how an invoice is rendered: customer adds customer_uuid; withDisabled
// (a request's with_disabled=true) shows the disabled line items and transactions, which
// are otherwise left out, and every record's disabled state.
type invoiceView struct{ customer, withDisabled bool }

// invoiceViewOf reads with_disabled.
func invoiceViewOf(r *apigw.Request, customer bool) (invoiceView, error) {
	withDisabled, err := api.Flag(r, "with_disabled")
	return invoiceView{customer: customer, withDisabled: withDisabled}, err
}

// shows tells whether a listing shows the invoice: a disabled one only with with_disabled.
func (v invoiceView) shows(inv model.Invoice) bool { return v.withDisabled || !inv.Disabled }

func (v invoiceView) render(inv model.Invoice) jsonobj.Object {
	lines := []jsonobj.Object{}
	for _, li := range inv.LineItems {
		if v.withDisabled {
			lines = append(lines, append(lineItemJSON(li), disabledFields(li.DisabledState)...))
		} else if !li.Disabled {
			lines = append(lines, lineItemJSON(li))
		}
	}
	txs := []jsonobj.Object{}
	for _, t := range inv.Transactions {
		if v.withDisabled {
			txs = append(txs, append(transactionJSON(t), disabledFields(t.DisabledState)...))
		} else if !t.Disabled {
			txs = append(txs, transactionJSON(t))
		}
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
	if v.withDisabled {
		o = append(o, disabledFields(inv.DisabledState)...)
	}
	if v.customer {
		o = append(o, jsonobj.Field{Key: "customer_uuid", Value: inv.CustomerUUID})
	}
	return append(o, jsonobj.Field{Key: "line_items", Value: lines}, jsonobj.Field{Key: "transactions", Value: txs})
}

func lineItemJSON(li model.LineItem) jsonobj.Object {
	o := jsonobj.Object{
		{Key: "uuid", Value: li.UUID},
		{Key: "external_id", Value: api.Nullable(li.ExternalID)},
		{Key: "type", Value: li.Type},
	}
	if li.Type == "one_time" {
		o = append(o, jsonobj.Field{Key: "description", Value: api.Nullable(li.Description)})
	} else {
		o = append(o,
			jsonobj.Field{Key: "subscription_uuid", Value: api.Nullable(li.SubscriptionUUID)},
			jsonobj.Field{Key: "subscription_external_id", Value: api.Nullable(li.SubscriptionExternalID)})
		if li.SubscriptionSetExternalID != "" {
			o = append(o, jsonobj.Field{Key: "subscription_set_external_id", Value: li.SubscriptionSetExternalID})
		}
		o = append(o,
			jsonobj.Field{Key: "prorated", Value: li.Prorated},
			jsonobj.Field{Key: "proration_type", Value: api.Nullable(li.ProrationType)},
			jsonobj.Field{Key: "service_period_start", Value: timefmt.MillisPtr(li.ServicePeriodStart)},
			jsonobj.Field{Key: "service_period_end", Value: timefmt.MillisPtr(li.ServicePeriodEnd)},
			jsonobj.Field{Key: "plan_uuid", Value: api.Nullable(li.PlanUUID)})
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
		{Key: "external_id", Value: api.Nullable(t.ExternalID)},
		{Key: "amount_in_cents", Value: t.AmountInCents},
		{Key: "type", Value: t.Type},
		{Key: "date", Value: timefmt.Millis(t.Date)},
		{Key: "result", Value: t.Result},
		{Key: "transaction_fees_in_cents", Value: t.TransactionFeesInCents},
		{Key: "transaction_fees_currency", Value: t.TransactionFeesCurrency},
	}
}
