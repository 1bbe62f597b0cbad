package model

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/ids"
)

// Invoice is an imported invoice with its line items and transactions.
type Invoice struct {
	AccountID          string
	UUID               string
	DataSourceUUID     string
	CustomerUUID       string
	CustomerExternalID string
	ExternalID         string
	Date               time.Time
	DueDate            *time.Time
	Currency           string
	CollectionMethod   string
	Status             string // "", InvoiceVoided or InvoiceWrittenOff: see invoice_status.go
	DisabledState
	UserEdits
	LineItems    []LineItem
	Transactions []Transaction
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// LineItem is one line of an invoice. Key is its identity within the invoice (its
// external id, or its position when it has none).
type LineItem struct {
	UUID             string
	Key              string
	SubscriptionUUID string
	PlanUUID         string
	LineItemFields
	DisabledState
	UserEdits
}

// Transaction is a payment or refund of an invoice.
type Transaction struct {
	UUID string
	Key  string
	TransactionFields
	DisabledState
	UserEdits
}

// InvoiceUUID is the id of the invoice with an external id in a data source. Being
// derived, it is the same for every import that sends the invoice again.
func InvoiceUUID(accountID, dsUUID, externalID string) string {
	return ids.Invoice + DerivedUUID("invoice", accountID, dsUUID, externalID)
}

// SubscriptionUUID is the id of the subscription with an external id in a data source.
func SubscriptionUUID(accountID, dsUUID, externalID string) string {
	return ids.Subscription + DerivedUUID("subscription", accountID, dsUUID, externalID)
}

// LineItemKey identifies a line item within its invoice: its external id, or for one
// sent without, its position among those of its batch.
func LineItemKey(externalID string, position int) string {
	if externalID != "" {
		return "x:" + externalID
	}
	return "p:" + strconv.Itoa(position)
}

// LineItemUUID is the id of a line item of an invoice. One with an external id gets an
// id derived from its data source and external id, which ChartMogul keeps unique per
// data source: a request that names it by data_source_uuid and external_id finds its
// locator (docs/data-model.md) without knowing the invoice. One without gets an id
// derived from its invoice and position.
func LineItemUUID(accountID, dsUUID, invoiceUUID, key string) string {
	return ids.LineItem + recordUUID("line_item", accountID, dsUUID, invoiceUUID, key)
}

// TransactionUUID is the id of a transaction of an invoice, derived as a line item's.
func TransactionUUID(accountID, dsUUID, invoiceUUID, key string) string {
	return ids.Transaction + recordUUID("transaction", accountID, dsUUID, invoiceUUID, key)
}

func recordUUID(kind, accountID, dsUUID, invoiceUUID, key string) string {
	if ext, ok := strings.CutPrefix(key, "x:"); ok {
		return DerivedUUID(kind, accountID, dsUUID, ext)
	}
	return DerivedUUID(kind, invoiceUUID, key)
}

// LineItemIndex is the position of the invoice's line item with that uuid, -1 if none.
func (inv *Invoice) LineItemIndex(uuid string) int {
	return slices.IndexFunc(inv.LineItems, func(li LineItem) bool { return li.UUID == uuid })
}

// TransactionIndex is the position of the invoice's transaction with that uuid, -1 if none.
func (inv *Invoice) TransactionIndex(uuid string) int {
	return slices.IndexFunc(inv.Transactions, func(t Transaction) bool { return t.UUID == uuid })
}

// Total is the sum of the line items' amounts.
func (inv *Invoice) Total() int64 {
	var t int64
	for _, li := range inv.LineItems {
		t += li.AmountInCents
	}
	return t
}

// Settled is the sum of the successful transactions of one type (payment or refund);
// a transaction without an amount counts the whole invoice.
func (inv *Invoice) Settled(kind string, except string) int64 {
	total := inv.Total()
	var s int64
	for _, t := range inv.Transactions {
		if t.Type != kind || t.Result != "successful" || t.Key == except {
			continue
		}
		if t.AmountInCents != nil {
			s += *t.AmountInCents
		} else {
			s += total
		}
	}
	return s
}

// UpsertLineItem replaces the line item with the same key or appends it. A replaced
// line item keeps its disabled state (no import or update field sets it) and, unless
// li brings its own, its user edits: an import is the source's data, not an edit.
func (inv *Invoice) UpsertLineItem(li LineItem) {
	for i := range inv.LineItems {
		if inv.LineItems[i].Key == li.Key {
			li.DisabledState = inv.LineItems[i].DisabledState
			if li.UserEdits == (UserEdits{}) {
				li.UserEdits = inv.LineItems[i].UserEdits
			}
			inv.LineItems[i] = li
			return
		}
	}
	inv.LineItems = append(inv.LineItems, li)
}

// UpsertTransaction replaces the transaction with the same key or appends it,
// keeping the replaced one's disabled state and, as UpsertLineItem, its user edits.
func (inv *Invoice) UpsertTransaction(t Transaction) {
	for i := range inv.Transactions {
		if inv.Transactions[i].Key == t.Key {
			t.DisabledState = inv.Transactions[i].DisabledState
			if t.UserEdits == (UserEdits{}) {
				t.UserEdits = inv.Transactions[i].UserEdits
			}
			inv.Transactions[i] = t
			return
		}
	}
	inv.Transactions = append(inv.Transactions, t)
}

// PlanUUIDs are the plans the invoice's line items use.
func (inv *Invoice) PlanUUIDs() []string {
	var out []string
	seen := map[string]bool{}
	for _, li := range inv.LineItems {
		if li.PlanUUID != "" && !seen[li.PlanUUID] {
			seen[li.PlanUUID] = true
			out = append(out, li.PlanUUID)
		}
	}
	return out
}
