package model

import (
	"bytes"
	"encoding/json"
	"maps"
	"time"

	"github.com/subsight/subsight/shared/timefmt"
)

// UserEdits is what a billing record (an invoice, line item or transaction) keeps of
// the changes made to it through the API's update operations, which ChartMogul calls
// user edits and summarises as edit_history_summary, and whether a user created it.
// Imports (json_imports, invoice imports) are the data source's own data: they neither
// record edits nor mark records user-created.
type UserEdits struct {
	UserCreated bool
	EditHistory *EditHistory
}

// EditHistory is the summary of a record's edits: for each field an edit changed, its
// value before the first edit and after the latest one (a field edited back to its
// first value leaves the summary), and who made the latest edit, when and through
// which operation.
type EditHistory struct {
	Changes map[string]EditedValue
	Author  string    // e-mail of the team member the edit is attributed to
	At      time.Time // UTC
	Path    string    // the operation, such as "PATCH /v1/line_items/{line_item_uuid}"
}

// EditedValue is one field's first and latest values, as JSON.
type EditedValue struct {
	Original json.RawMessage
	Edited   json.RawMessage
}

// Edit is one update operation's change of a record: its fields before and after,
// as the API renders them, by whom, when and through which operation.
type Edit struct {
	Before, After map[string]any
	Author        string
	At            time.Time
	Path          string
}

// Record adds an edit to the summary and reports whether the record changed: fields
// whose JSON is the same before and after are no change.
func (u *UserEdits) Record(e Edit) bool {
	changed := false
	next := EditHistory{Changes: map[string]EditedValue{}}
	if u.EditHistory != nil {
		next = *u.EditHistory
		next.Changes = maps.Clone(u.EditHistory.Changes)
	}
	for field, after := range e.After {
		a, errA := json.Marshal(after)
		b, errB := json.Marshal(e.Before[field])
		if errA != nil || errB != nil || bytes.Equal(a, b) {
			continue
		}
		changed = true
		v, seen := next.Changes[field]
		if !seen {
			v.Original = b
		}
		v.Edited = a
		if bytes.Equal(v.Original, v.Edited) {
			delete(next.Changes, field)
		} else {
			next.Changes[field] = v
		}
	}
	if !changed {
		return false
	}
	next.Author, next.At, next.Path = e.Author, e.At.UTC(), e.Path
	u.EditHistory = &next
	return true
}

// Summary is edit_history_summary as ChartMogul shows it: values_changed (per field,
// original_value and edited_value), latest_edit_author and latest_edit_performed_at;
// nil for a record never edited.
func (u UserEdits) Summary() map[string]any {
	h := u.EditHistory
	if h == nil {
		return nil
	}
	changed := make(map[string]any, len(h.Changes))
	for field, v := range h.Changes {
		changed[field] = map[string]any{"original_value": v.Original, "edited_value": v.Edited}
	}
	return map[string]any{"values_changed": changed, "latest_edit_author": h.Author,
		"latest_edit_performed_at": timefmt.Millis(h.At)}
}

// EditableFields are an invoice's fields an update operation can change, keyed and
// formatted as the API shows them.
func (inv Invoice) EditableFields() map[string]any {
	return map[string]any{"date": timefmt.Millis(inv.Date), "due_date": timefmt.MillisPtr(inv.DueDate),
		"currency": inv.Currency, "collection_method": nullIfEmpty(inv.CollectionMethod), "status": nullIfEmpty(inv.Status)}
}

// nullIfEmpty is s, or JSON null for "" (a field the API leaves out or shows as null
// while unset).
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// EditableFields are a line item's fields, keyed and formatted as the API shows them.
func (li LineItem) EditableFields() map[string]any {
	return map[string]any{"type": li.Type, "subscription_external_id": li.SubscriptionExternalID,
		"subscription_set_external_id": li.SubscriptionSetExternalID, "plan_uuid": li.PlanUUID,
		"service_period_start": timefmt.MillisPtr(li.ServicePeriodStart),
		"service_period_end":   timefmt.MillisPtr(li.ServicePeriodEnd), "amount_in_cents": li.AmountInCents,
		"quantity": li.Quantity, "prorated": li.Prorated, "proration_type": li.ProrationType,
		"cancelled_at": timefmt.MillisPtr(li.CancelledAt), "discount_amount_in_cents": li.DiscountAmountInCents,
		"discount_code": li.DiscountCode, "discount_description": li.DiscountDescription,
		"tax_amount_in_cents": li.TaxAmountInCents, "transaction_fees_in_cents": li.TransactionFeesInCents,
		"transaction_fees_currency": li.TransactionFeesCurrency, "description": li.Description,
		"account_code": li.AccountCode, "event_order": li.EventOrder, "balance_transfer": li.BalanceTransfer}
}

// EditableFields are a transaction's fields, keyed and formatted as the API shows them.
func (t Transaction) EditableFields() map[string]any {
	return map[string]any{"type": t.Type, "result": t.Result, "date": timefmt.Millis(t.Date),
		"amount_in_cents": t.AmountInCents, "transaction_fees_in_cents": t.TransactionFeesInCents,
		"transaction_fees_currency": t.TransactionFeesCurrency}
}
