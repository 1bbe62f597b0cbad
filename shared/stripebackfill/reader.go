package stripebackfill

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v84"
	"github.com/stripe/stripe-go/v84/form"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/stripesource"
)

// Defaults of Options.
const (
	// DefaultRate is the requests a second one connection's backfill sends: below
	// Stripe's published 25 a second per account in test mode and per endpoint, and far
	// below its 100 in live mode, so the merchant's own integration keeps the rest.
	DefaultRate = 20
	// DefaultPageSize is Stripe's largest page.
	DefaultPageSize = 100
	// DefaultCustomersPerPage is how many customers one page of a step reads; a page's
	// progress is saved before the next.
	DefaultCustomersPerPage = 20
)

// Options configure a Reader. The zero value reads Stripe's API at DefaultRate.
type Options struct {
	// APIBase is the API's base URL: "" is Stripe's (https://api.stripe.com); tests and
	// the local stack give stripe-mock's.
	APIBase string
	// Rate is the most requests a second the reader sends (0: DefaultRate).
	Rate float64
	// PageSize is the limit of every list request (0: DefaultPageSize); tests make it
	// small to follow lists over several pages.
	PageSize int64
	// CustomersPerPage is the limit of a page of customers (0: DefaultCustomersPerPage).
	CustomersPerPage int64
	// Transport sends the requests (nil: http.DefaultTransport).
	Transport http.RoundTripper
	// Now and Sleep are the limiter's clock (nil: the wall clock); tests make time pass
	// without waiting.
	Now   func() time.Time
	Sleep func(context.Context, time.Duration) error
}

// Reader reads one Stripe account with one API key.
type Reader struct {
	client    *stripe.Client
	backend   stripe.Backend
	key       string
	pageSize  int64
	customers int64
	transport *transport
	now       func() time.Time
}

// NewReader returns a reader of the Stripe account of apiKey (a restricted read key).
func NewReader(apiKey string, o Options) *Reader {
	next := o.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	now, sleep := o.Now, o.Sleep
	if now == nil {
		now = time.Now
	}
	if sleep == nil {
		sleep = sleepCtx
	}
	t := &transport{next: next, limit: newLimiter(cmp.Or(o.Rate, DefaultRate), now, sleep)}
	backend := stripe.GetBackendWithConfig(stripe.APIBackend, &stripe.BackendConfig{
		URL:               stripe.String(cmp.Or(o.APIBase, stripe.APIURL)),
		HTTPClient:        &http.Client{Transport: t, Timeout: 30 * time.Second},
		MaxNetworkRetries: stripe.Int64(2),
		LeveledLogger:     &stripe.LeveledLogger{Level: stripe.LevelNull},
	})
	client := stripe.NewClient(apiKey, stripe.WithBackends(&stripe.Backends{API: backend, Connect: backend,
		Uploads: backend, MeterEvents: backend}))
	return &Reader{client: client, backend: backend, key: apiKey, pageSize: cmp.Or(o.PageSize, DefaultPageSize),
		customers: cmp.Or(o.CustomersPerPage, DefaultCustomersPerPage), transport: t, now: now}
}

// Requests is how many requests the reader has sent (each retry counted).
func (r *Reader) Requests() int64 { return r.transport.requests.Load() }

func (r *Reader) list() stripe.ListParams { return stripe.ListParams{Limit: stripe.Int64(r.pageSize)} }

// Prices reads every recurring price of the account, active or not, with its product
// (its name names the plan when the price has no nickname).
func (r *Reader) Prices(ctx context.Context) (map[string]*stripe.Price, error) {
	p := &stripe.PriceListParams{ListParams: r.list(), Type: stripe.String(string(stripe.PriceTypeRecurring))}
	p.AddExpand("data.product")
	out := map[string]*stripe.Price{}
	for price, err := range r.client.V1Prices.List(ctx, p) {
		if err != nil {
			return nil, fmt.Errorf("stripebackfill: prices: %w", err)
		}
		out[price.ID] = price
	}
	return out, nil
}

// Customers reads one page of customers, newest first, after the customer startingAfter
// ("" from the first); more says whether Stripe has more after the page.
func (r *Reader) Customers(ctx context.Context, startingAfter string) (page []*stripe.Customer, more bool, err error) {
	p := &stripe.CustomerListParams{ListParams: stripe.ListParams{Limit: stripe.Int64(r.customers)}}
	if startingAfter != "" {
		p.StartingAfter = stripe.String(startingAfter)
	}
	// One page, read as stripe-go's own listings read each of theirs, for its has_more.
	q := &form.Values{}
	form.AppendTo(q, p)
	var list stripe.CustomerList
	if err := r.backend.CallRaw(http.MethodGet, "/v1/customers", r.key, []byte(q.Encode()), &stripe.Params{Context: ctx}, &list); err != nil {
		return nil, false, fmt.Errorf("stripebackfill: customers: %w", err)
	}
	return list.Data, list.HasMore, nil
}

// Customer reads everything of one customer and maps it: the customer (and its metadata
// as custom attributes), the plans of its
// subscriptions' prices, the cancellations of its subscriptions, its issued invoices with
// their lines and payments, the refunds of its charges, and what its subscription
// schedules scheduled. prices are the account's
// recurring prices (Prices); a price they lack (one that was deleted) is read on its own.
func (r *Reader) Customer(ctx context.Context, c *stripe.Customer, prices map[string]*stripe.Price) (stripesource.Records, model.StripeBackfillCounts, error) {
	var recs stripesource.Records
	var n model.StripeBackfillCounts
	cat := stripesource.Catalog{Prices: maps.Clone(prices), Subscriptions: map[string]*stripe.Subscription{}}
	subs, err := r.subscriptions(ctx, c.ID)
	if err != nil {
		return recs, n, err
	}
	n.Customers, n.Subscriptions = 1, len(subs)
	recs.Customers = append(recs.Customers, stripesource.Customer(c, subs))
	recs.Attributes = append(recs.Attributes, stripesource.Metadata(c.ID, c.Metadata, nil))
	plans := map[string]bool{}
	for _, s := range subs {
		cat.AddSubscription(s)
		for _, it := range s.Items.Data {
			if it.Price == nil || plans[it.Price.ID] || usageBilled(it.Price) {
				continue
			}
			if p, ok, err := stripesource.Plan(it.Price); err != nil {
				return recs, n, err
			} else if ok {
				plans[p.ExternalID] = true
				recs.Plans = append(recs.Plans, p)
			}
		}
	}
	paidBy := map[string]string{} // payment intent or charge id -> invoice id
	invoices, err := r.invoices(ctx, c.ID)
	if err != nil {
		return recs, n, err
	}
	for _, inv := range invoices {
		if inv.Status == stripe.InvoiceStatusDraft || inv.Status == "" {
			continue
		}
		lines, err := r.lines(ctx, inv)
		if err != nil {
			return recs, n, err
		}
		if err := r.payments(ctx, inv); err != nil {
			return recs, n, err
		}
		mapped, err := r.mapInvoice(ctx, inv, lines, &cat)
		if err != nil {
			return recs, n, err
		}
		for _, p := range mapped.Plans {
			if !plans[p.ExternalID] {
				plans[p.ExternalID] = true
				recs.Plans = append(recs.Plans, p)
			}
		}
		mapped.Plans = nil
		recs.Add(mapped)
		n.Invoices++
		n.LineItems += len(mapped.LineItems)
		n.InvoicePayments += len(mapped.Transactions)
		for _, p := range inv.Payments.Data {
			if p.Payment == nil {
				continue
			}
			if p.Payment.PaymentIntent != nil && p.Payment.PaymentIntent.ID != "" {
				paidBy[p.Payment.PaymentIntent.ID] = inv.ID
			}
			if p.Payment.Charge != nil && p.Payment.Charge.ID != "" {
				paidBy[p.Payment.Charge.ID] = inv.ID
			}
		}
	}
	refunds, err := r.refunds(ctx, c.ID, paidBy)
	if err != nil {
		return recs, n, err
	}
	recs.Transactions = append(recs.Transactions, refunds...)
	n.Refunds = len(refunds)
	for _, s := range subs {
		recs.Events = append(recs.Events, stripesource.Cancellations(s, false, time.Time{})...)
	}
	scheduled, err := r.schedules(ctx, c.ID, subs, &cat)
	if err != nil {
		return recs, n, err
	}
	recs.Events = append(recs.Events, scheduled...)
	return recs, n, nil
}

// usageBilled: a metered price, whose usage carries no MRR and makes no plan.
func usageBilled(p *stripe.Price) bool {
	return p.Recurring == nil || p.Recurring.UsageType == stripe.PriceRecurringUsageTypeMetered || p.Recurring.Meter != ""
}

// subscriptions reads the customer's subscriptions of every status, each with all its
// items.
func (r *Reader) subscriptions(ctx context.Context, customerID string) ([]*stripe.Subscription, error) {
	p := &stripe.SubscriptionListParams{ListParams: r.list(), Customer: stripe.String(customerID),
		Status: stripe.String("all")}
	var out []*stripe.Subscription
	for s, err := range r.client.V1Subscriptions.List(ctx, p) {
		if err != nil {
			return nil, fmt.Errorf("stripebackfill: subscriptions of %s: %w", customerID, err)
		}
		if s.Items == nil {
			s.Items = &stripe.SubscriptionItemList{}
		}
		if s.Items.HasMore {
			items := &stripe.SubscriptionItemListParams{ListParams: r.list(), Subscription: stripe.String(s.ID)}
			var all []*stripe.SubscriptionItem
			for it, err := range r.client.V1SubscriptionItems.List(ctx, items) {
				if err != nil {
					return nil, fmt.Errorf("stripebackfill: items of %s: %w", s.ID, err)
				}
				all = append(all, it)
			}
			s.Items.Data, s.Items.HasMore = all, false
		}
		out = append(out, s)
	}
	return out, nil
}

// invoices reads the customer's invoices of every status, with their first payments.
func (r *Reader) invoices(ctx context.Context, customerID string) ([]*stripe.Invoice, error) {
	p := &stripe.InvoiceListParams{ListParams: r.list(), Customer: stripe.String(customerID)}
	p.AddExpand("data.payments")
	var out []*stripe.Invoice
	for inv, err := range r.client.V1Invoices.List(ctx, p) {
		if err != nil {
			return nil, fmt.Errorf("stripebackfill: invoices of %s: %w", customerID, err)
		}
		out = append(out, inv)
	}
	return out, nil
}

// lines are the invoice's lines: those it came with, or, when Stripe cut them short
// (has_more), all of them from /v1/invoices/{id}/lines.
func (r *Reader) lines(ctx context.Context, inv *stripe.Invoice) ([]*stripe.InvoiceLineItem, error) {
	if inv.Lines == nil {
		return nil, nil
	}
	if !inv.Lines.HasMore {
		return inv.Lines.Data, nil
	}
	p := &stripe.InvoiceListLinesParams{ListParams: r.list(), Invoice: stripe.String(inv.ID)}
	var out []*stripe.InvoiceLineItem
	for l, err := range r.client.V1Invoices.ListLines(ctx, p) {
		if err != nil {
			return nil, fmt.Errorf("stripebackfill: lines of %s: %w", inv.ID, err)
		}
		out = append(out, l)
	}
	return out, nil
}

// payments completes the invoice's payments from /v1/invoice_payments when the
// invoice came without them or with only the first ones.
func (r *Reader) payments(ctx context.Context, inv *stripe.Invoice) error {
	if inv.Payments != nil && !inv.Payments.HasMore {
		return nil
	}
	p := &stripe.InvoicePaymentListParams{ListParams: r.list(), Invoice: stripe.String(inv.ID)}
	var all []*stripe.InvoicePayment
	for pay, err := range r.client.V1InvoicePayments.List(ctx, p) {
		if err != nil {
			return fmt.Errorf("stripebackfill: payments of %s: %w", inv.ID, err)
		}
		all = append(all, pay)
	}
	inv.Payments = &stripe.InvoicePaymentList{Data: all}
	return nil
}

// mapInvoice maps an invoice, reading the prices its lines name that the catalog lacks
// (each once).
func (r *Reader) mapInvoice(ctx context.Context, inv *stripe.Invoice, lines []*stripe.InvoiceLineItem, cat *stripesource.Catalog) (stripesource.Records, error) {
	var recs stripesource.Records
	err := r.withPrices(ctx, cat, "invoice "+inv.ID, len(lines)+1, func() (err error) {
		recs, err = stripesource.Invoice(inv, lines, *cat)
		return err
	})
	return recs, err
}

// withPrices runs a mapping until it no longer lacks a price, reading each price it
// lacks into the catalog (at most tries times).
func (r *Reader) withPrices(ctx context.Context, cat *stripesource.Catalog, what string, tries int, mapping func() error) error {
	for range tries {
		err := mapping()
		if !errors.Is(err, stripesource.ErrUnknownPrice) {
			return err
		}
		id := err.Error()[strings.LastIndex(err.Error(), ": ")+2:]
		if id == "" || strings.Contains(id, "/") {
			return fmt.Errorf("stripebackfill: %s: a subscription line without a price", what)
		}
		price, err := r.client.V1Prices.Retrieve(ctx, id, nil)
		if err != nil {
			return fmt.Errorf("stripebackfill: price %s of %s: %w", id, what, err)
		}
		cat.Prices[id] = price
	}
	return fmt.Errorf("stripebackfill: %s: prices missing", what)
}

// schedules are the events of the customer's subscription schedules as they stand now
// (stripesource.Schedule), decided at each schedule's creation; a price a phase names
// that the catalog lacks is read. They are listed only for a customer one of whose
// subscriptions names a schedule (a request saved for every other customer): a schedule
// that has not started its subscription yet is left to its webhook events.
func (r *Reader) schedules(ctx context.Context, customerID string, subs []*stripe.Subscription, cat *stripesource.Catalog) ([]model.ImportEvent, error) {
	if !slices.ContainsFunc(subs, func(s *stripe.Subscription) bool { return s.Schedule != nil && s.Schedule.ID != "" }) {
		return nil, nil
	}
	items := map[string]map[string]string{} // subscription id -> item ids by price id
	for _, s := range subs {
		items[s.ID] = map[string]string{}
		for _, it := range s.Items.Data {
			if it.Price != nil {
				items[s.ID][it.Price.ID] = it.ID
			}
		}
	}
	p := &stripe.SubscriptionScheduleListParams{ListParams: r.list(), Customer: stripe.String(customerID)}
	now := r.now()
	var out []model.ImportEvent
	for sc, err := range r.client.V1SubscriptionSchedules.List(ctx, p) {
		if err != nil {
			return nil, fmt.Errorf("stripebackfill: subscription schedules of %s: %w", customerID, err)
		}
		var its map[string]string
		if sc.Subscription != nil {
			its = items[sc.Subscription.ID]
		}
		var events []model.ImportEvent
		err := r.withPrices(ctx, cat, "subscription schedule "+sc.ID, len(sc.Phases)*2+1, func() (err error) {
			events, err = stripesource.Schedule(sc, its, *cat, now, time.Unix(sc.Created, 0))
			return err
		})
		if err != nil {
			return nil, err
		}
		out = append(out, events...)
	}
	return out, nil
}

// refunds are the refund transactions of the customer's refunded charges, each on the
// invoice its payment paid (refunds of charges that paid no invoice are left out).
func (r *Reader) refunds(ctx context.Context, customerID string, paidBy map[string]string) ([]model.ImportTransaction, error) {
	p := &stripe.ChargeListParams{ListParams: r.list(), Customer: stripe.String(customerID)}
	var out []model.ImportTransaction
	for ch, err := range r.client.V1Charges.List(ctx, p) {
		if err != nil {
			return nil, fmt.Errorf("stripebackfill: charges of %s: %w", customerID, err)
		}
		if ch.AmountRefunded == 0 {
			continue
		}
		invoice := paidBy[ch.ID]
		if invoice == "" && ch.PaymentIntent != nil {
			invoice = paidBy[ch.PaymentIntent.ID]
		}
		if invoice == "" {
			continue
		}
		rp := &stripe.RefundListParams{ListParams: r.list(), Charge: stripe.String(ch.ID)}
		for rf, err := range r.client.V1Refunds.List(ctx, rp) {
			if err != nil {
				return nil, fmt.Errorf("stripebackfill: refunds of %s: %w", ch.ID, err)
			}
			if t, ok := stripesource.Refund(rf, invoice); ok {
				out = append(out, t)
			}
		}
	}
	return out, nil
}
