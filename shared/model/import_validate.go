package model

import (
	"fmt"

	"github.com/subsight/subsight/shared/jsonbody"
)

// The enumerations of json_imports.
var (
	LineItemTypes     = []string{"subscription", "one_time", "trial"}
	ProrationTypes    = []string{"differential", "full", "differential_mrr"}
	CollectionMethods = []string{"automatic", "manual"}
	TransactionTypes  = []string{"payment", "refund"}
	TransactionResult = []string{"successful", "failed"}
)

// importArrays are the record arrays of a json_imports body, in validation order.
var importArrays = []string{"customers", "plans", "invoices", "line_items", "transactions", "subscription_events"}

// ParseImport decodes (jsonbody) and validates a whole json_imports body. Nothing of
// it may be applied unless it returns no error; the error is the decoder's
// *apperr.Error or a *FieldError naming the first offending record and field.
func ParseImport(body []byte) (ImportPayload, error) {
	var top map[string]any
	if err := jsonbody.Decode(body, &top); err != nil {
		return ImportPayload{}, err
	}
	return ValidateImport(top)
}

// ValidateImport validates a decoded json_imports body (numbers as json.Number, as
// jsonbody leaves them), so that a route holding a decoded body never parses it again.
func ValidateImport(top map[string]any) (ImportPayload, error) {
	var p ImportPayload
	root := &record{m: top}
	p.ExternalID = root.str("external_id", true, MaxExternalIDLen)
	if root.err != nil {
		return p, root.err
	}
	arrays := map[string][]any{}
	for _, name := range importArrays {
		v, ok := top[name]
		if !ok || v == nil {
			continue
		}
		list, ok := v.([]any)
		if !ok {
			return p, &FieldError{Field: name, Message: "must be an array"}
		}
		arrays[name] = list
	}
	v := importValidator{p: &p, invoiceTotals: map[string]int64{}, invoiceSeen: map[string]bool{}}
	steps := []struct {
		name string
		each func(*record)
	}{
		{"customers", v.customer}, {"plans", v.plan}, {"invoices", v.invoice},
		{"line_items", v.lineItem}, {"transactions", v.transaction}, {"subscription_events", v.event},
	}
	for _, step := range steps {
		v.seen = map[string]bool{}
		for i, raw := range arrays[step.name] {
			r, err := newRecord(fmt.Sprintf("%s[%d]", step.name, i), raw)
			if err != nil {
				return p, err
			}
			step.each(r)
			if r.err != nil {
				return p, r.err
			}
		}
	}
	return p, v.checkPayments()
}

type importValidator struct {
	p    *ImportPayload
	seen map[string]bool // external ids of the array being read
	// invoiceSeen holds the payload's invoice external ids; invoiceTotals the sum of
	// their line items' amounts.
	invoiceSeen   map[string]bool
	invoiceTotals map[string]int64
	positions     map[string]int
}

// unique records an external id of the current array and fails on a repeat.
func (v *importValidator) unique(r *record, field, id string) {
	if id == "" {
		return
	}
	if v.seen[id] {
		r.fail(field, "%q appears more than once in this import", id)
	}
	v.seen[id] = true
}

func (v *importValidator) customer(r *record) {
	c := ImportCustomer{ExternalID: r.str("external_id", true, MaxExternalIDLen)}
	v.unique(r, "external_id", c.ExternalID)
	c.Name = r.optStr("name", MaxTextLength)
	c.Company = r.optStr("company", MaxTextLength)
	c.City = r.optStr("city", MaxTextLength)
	c.Zip = r.optStr("zip", MaxTextLength)
	c.State = r.optStr("state", MaxTextLength)
	if e := r.optStr("email", 0); e != nil {
		email, err := EmailAddress(*e)
		if err != nil {
			r.fail("email", "The value provided does not appear to be a valid email address.")
		}
		c.Email = &email
	}
	if s := r.optStr("country", 0); s != nil {
		code, err := Country(*s)
		if err != nil {
			r.fail("country", "%q is not an ISO 3166-1 alpha-2 country code", *s)
		}
		c.Country = &code
	}
	c.LeadCreatedAt = r.date("lead_created_at", false)
	c.FreeTrialStartedAt = r.date("free_trial_started_at", false)
	if c.LeadCreatedAt != nil && c.FreeTrialStartedAt != nil && c.FreeTrialStartedAt.Before(*c.LeadCreatedAt) {
		r.fail("free_trial_started_at", "The free trial cannot start before the lead was created")
	}
	v.p.Customers = append(v.p.Customers, c)
}

func (v *importValidator) plan(r *record) {
	pl := ImportPlan{ExternalID: r.str("external_id", false, MaxExternalIDLen)}
	v.unique(r, "external_id", pl.ExternalID)
	name, err := ValidPlanName(r.str("name", true, 0))
	if err != nil && r.err == nil {
		r.fail("name", "%s", err.Error())
	}
	pl.Name = name
	if !r.present("interval_count") {
		r.fail("interval_count", "is required")
	} else if n, err := ParseIntervalCount(r.m["interval_count"]); err != nil {
		r.fail("interval_count", "%s", err.Error())
	} else {
		pl.IntervalCount = n
	}
	pl.IntervalUnit = r.enum("interval_unit", true, IntervalUnits...)
	v.p.Plans = append(v.p.Plans, pl)
}

func (v *importValidator) invoice(r *record) {
	inv := ImportInvoice{
		ExternalID:         r.str("external_id", true, MaxExternalIDLen),
		CustomerExternalID: r.str("customer_external_id", true, MaxExternalIDLen),
	}
	v.unique(r, "external_id", inv.ExternalID)
	if d := r.date("date", true); d != nil {
		inv.Date = *d
	}
	inv.DueDate = r.date("due_date", false)
	inv.Currency = r.currency("currency", true)
	inv.CollectionMethod = r.enum("collection_method", false, CollectionMethods...)
	v.invoiceSeen[inv.ExternalID] = true
	v.p.Invoices = append(v.p.Invoices, inv)
}

// ReadLineItemFields validates the values of one line item (json_imports and the
// invoice import API share the rules); plan is read by the caller.
func readLineItemFields(r *record) LineItemFields {
	li := LineItemFields{
		ExternalID: r.str("external_id", false, MaxExternalIDLen),
		Type:       r.enum("type", true, LineItemTypes...),
	}
	amount, _ := r.integer("amount_in_cents", true, MinInt32, MaxInt32)
	li.AmountInCents = amount
	li.Quantity = 1
	if q, ok := r.integer("quantity", false, MinInt32, MaxInt32); ok {
		if q == 0 {
			r.fail("quantity", "must not be 0")
		}
		li.Quantity = q
	}
	recurring := li.Type == "subscription" || li.Type == "trial"
	li.SubscriptionExternalID = r.str("subscription_external_id", recurring, MaxExternalIDLen)
	li.SubscriptionSetExternalID = r.str("subscription_set_external_id", false, MaxExternalIDLen)
	li.ServicePeriodStart = r.date("service_period_start", recurring)
	li.ServicePeriodEnd = r.date("service_period_end", false)
	if li.ServicePeriodStart != nil && li.ServicePeriodEnd != nil && !li.ServicePeriodEnd.After(*li.ServicePeriodStart) {
		r.fail("service_period_end", "must be after service_period_start")
	}
	li.Prorated = r.boolean("prorated", false)
	li.ProrationType = r.enum("proration_type", false, ProrationTypes...)
	li.CancelledAt = r.date("cancelled_at", false)
	li.DiscountAmountInCents, _ = r.integer("discount_amount_in_cents", false, 0, MaxInt32)
	li.DiscountCode = r.str("discount_code", false, MaxTextLength)
	li.DiscountDescription = r.optStr("discount_description", MaxTextLength)
	li.TaxAmountInCents, _ = r.integer("tax_amount_in_cents", false, 0, MaxInt32)
	li.TransactionFeesInCents, _ = r.integer("transaction_fees_in_cents", false, 0, MaxInt32)
	if r.present("transaction_fees_currency") {
		c := r.currency("transaction_fees_currency", false)
		li.TransactionFeesCurrency = &c
	}
	li.Description = r.str("description", false, MaxTextLength)
	li.AccountCode = r.str("account_code", false, MaxTextLength)
	li.EventOrder = r.optInt("event_order", MinInt32, MaxInt32)
	if r.present("balance_transfer") {
		bt := r.boolean("balance_transfer", false)
		li.BalanceTransfer = &bt
	}
	return li
}

func (v *importValidator) lineItem(r *record) {
	li := ImportLineItem{InvoiceExternalID: r.str("invoice_external_id", true, MaxExternalIDLen)}
	li.LineItemFields = readLineItemFields(r)
	recurring := li.Type == "subscription" || li.Type == "trial"
	li.PlanExternalID = r.str("plan_external_id", recurring, MaxExternalIDLen)
	if li.ExternalID != "" {
		v.unique(r, "external_id", li.InvoiceExternalID+"\x00"+li.ExternalID)
	}
	li.Position = v.position("li", li.InvoiceExternalID)
	if r.err == nil {
		v.invoiceTotals[li.InvoiceExternalID] += li.AmountInCents
	}
	v.p.LineItems = append(v.p.LineItems, li)
}

// position numbers the records of one invoice (per kind) in payload order.
func (v *importValidator) position(kind, invoice string) int {
	if v.positions == nil {
		v.positions = map[string]int{}
	}
	k := kind + "\x00" + invoice
	n := v.positions[k]
	v.positions[k] = n + 1
	return n
}

// ReadTransactionFields validates the values of one transaction.
func readTransactionFields(r *record) TransactionFields {
	t := TransactionFields{
		ExternalID: r.str("external_id", false, MaxExternalIDLen),
		Type:       r.enum("type", true, TransactionTypes...),
		Result:     r.enum("result", true, TransactionResult...),
	}
	if d := r.date("date", true); d != nil {
		t.Date = *d
	}
	t.AmountInCents = r.optInt("amount_in_cents", 0, MaxInt32)
	t.TransactionFeesInCents = r.optInt("transaction_fees_in_cents", 0, MaxInt32)
	if r.present("transaction_fees_currency") {
		c := r.currency("transaction_fees_currency", false)
		t.TransactionFeesCurrency = &c
	}
	return t
}

func (v *importValidator) transaction(r *record) {
	t := ImportTransaction{InvoiceExternalID: r.str("invoice_external_id", true, MaxExternalIDLen)}
	t.TransactionFields = readTransactionFields(r)
	if t.ExternalID != "" {
		v.unique(r, "external_id", t.InvoiceExternalID+"\x00"+t.ExternalID)
	}
	t.Position = v.position("tr", t.InvoiceExternalID)
	v.p.Transactions = append(v.p.Transactions, t)
}

func (v *importValidator) event(r *record) {
	e := ImportEvent{Position: len(v.p.Events), EventFields: readEventFields(r, true)}
	v.unique(r, "external_id", e.ExternalID)
	v.p.Events = append(v.p.Events, e)
}

// checkPayments enforces that the successful payments (and refunds) of an invoice of
// the payload do not add up to more than its line items. Transactions of invoices
// from earlier imports are checked when they are applied.
func (v *importValidator) checkPayments() error {
	paid := map[string]int64{}
	refunded := map[string]int64{}
	for i, t := range v.p.Transactions {
		if !v.invoiceSeen[t.InvoiceExternalID] || t.Result != "successful" {
			continue
		}
		total := v.invoiceTotals[t.InvoiceExternalID]
		amount := total
		if t.AmountInCents != nil {
			amount = *t.AmountInCents
		}
		sums := paid
		if t.Type == "refund" {
			sums = refunded
		}
		sums[t.InvoiceExternalID] += amount
		if sums[t.InvoiceExternalID] > max(total, 0) {
			return &FieldError{Record: fmt.Sprintf("transactions[%d]", i), Field: "amount_in_cents",
				Message: fmt.Sprintf("the %ss of invoice %q add up to more than its amount (%d)", t.Type, t.InvoiceExternalID, total)}
		}
	}
	return nil
}

// ExcessPayment tells whether adding a successful transaction to an invoice whose
// line items total total and whose successful transactions of the same type already
// add up to sum would exceed the invoiced amount.
func ExcessPayment(total, sum int64, amount *int64) bool {
	a := total
	if amount != nil {
		a = *amount
	}
	return sum+a > max(total, 0)
}
