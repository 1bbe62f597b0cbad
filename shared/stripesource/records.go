package stripesource

import (
	"errors"
	"fmt"
	"time"

	"github.com/stripe/stripe-go/v84"
	"github.com/subsight/subsight/shared/model"
)

// Records are what Stripe objects become: the records of a json_import, and the statuses
// of invoices voided or marked uncollectible, which an import cannot carry (they are set
// as PUT .../invoices/{external_id}/status sets them).
type Records struct {
	model.ImportPayload
	InvoiceStatuses []InvoiceStatus
	// Attributes are customers' metadata as custom attributes, which an import cannot
	// carry either.
	Attributes []CustomerAttributes
}

// InvoiceStatus is a status (model.InvoiceVoided, model.InvoiceWrittenOff, or
// InvoiceIssued) to set on the invoice with that external id.
type InvoiceStatus struct {
	InvoiceExternalID string
	Status            string
}

// InvoiceIssued is the status of an invoice that counts (neither voided nor written
// off): a Stripe invoice paid after it was marked uncollectible goes back to it.
const InvoiceIssued = ""

// Add appends other's records to r.
func (r *Records) Add(other Records) {
	r.Customers = append(r.Customers, other.Customers...)
	r.Plans = append(r.Plans, other.Plans...)
	r.Invoices = append(r.Invoices, other.Invoices...)
	r.LineItems = append(r.LineItems, other.LineItems...)
	r.Transactions = append(r.Transactions, other.Transactions...)
	r.Events = append(r.Events, other.Events...)
	r.InvoiceStatuses = append(r.InvoiceStatuses, other.InvoiceStatuses...)
	r.Attributes = append(r.Attributes, other.Attributes...)
}

// Catalog holds the Stripe objects an invoice line names only by id: the prices (an
// invoice line carries its price's id, not its interval or usage type) and the
// subscriptions (to find the subscription item of a proration billed as an invoice item).
type Catalog struct {
	Prices        map[string]*stripe.Price
	Subscriptions map[string]*stripe.Subscription
	// UnknownPricesOneTime maps a subscription line whose price is missing as a one_time
	// line instead of failing with ErrUnknownPrice: the caller's last resort when the
	// price cannot be had (docs/stripe.md, "Applying events").
	UnknownPricesOneTime bool
}

// AddSubscription records s and the prices of its items (a subscription object carries
// them whole).
func (c *Catalog) AddSubscription(s *stripe.Subscription) {
	if c.Subscriptions == nil {
		c.Subscriptions = map[string]*stripe.Subscription{}
	}
	if c.Prices == nil {
		c.Prices = map[string]*stripe.Price{}
	}
	c.Subscriptions[s.ID] = s
	if s.Items == nil {
		return
	}
	for _, it := range s.Items.Data {
		if it.Price != nil && it.Price.ID != "" {
			c.Prices[it.Price.ID] = it.Price
		}
	}
}

// ErrUnknownPrice: a line names a price the catalog lacks; the caller fetches it and maps
// again.
var ErrUnknownPrice = errors.New("stripesource: price not in catalog")

func (c Catalog) price(id string) (*stripe.Price, error) {
	if p := c.Prices[id]; p != nil {
		return p, nil
	}
	return nil, fmt.Errorf("%w: %s", ErrUnknownPrice, id)
}

// unix is a Stripe timestamp (Unix seconds) in UTC; nil for 0, Stripe's "not set".
func unix(s int64) *time.Time {
	if s == 0 {
		return nil
	}
	t := time.Unix(s, 0).UTC()
	return &t
}

// firstSet is the first non-zero Stripe timestamp of ts, as a time.
func firstSet(ts ...int64) *time.Time {
	for _, s := range ts {
		if s != 0 {
			return unix(s)
		}
	}
	return nil
}
