package stripesync

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/stripesource"
)

// maxMisses is how many deliveries of an event may wait for another event (ErrNotYet)
// before it is applied without it (an invoice whose price is still unknown: its line
// as one_time) or dropped (a payment or refund whose invoice never came).
const maxMisses = 3

// invoice applies the invoice.* events: the invoice, its lines and its status, unless
// a later snapshot of it was applied (a higher status rank, or the same rank from a
// later event); invoice.payment_failed adds the failed payment of its attempt whatever
// the snapshot. Drafts are not issued yet: nothing.
func (a *applying) invoice(ctx context.Context, ev stripe.Event) error {
	var inv stripe.Invoice
	if err := stripesource.Object(ev, &inv); err != nil {
		return dropped("%v", err)
	}
	if inv.Customer == nil || inv.Customer.ID == "" {
		return dropped("invoice %s names no customer", inv.ID)
	}
	rank := invoiceRank(inv.Status)
	if rank == 0 {
		return nil
	}
	customerID := inv.Customer.ID
	objs, err := a.objects(ctx, inv.ID, customerID)
	if err != nil {
		return err
	}
	if a.gone(objs[customerID]) {
		return nil
	}
	st := objs[inv.ID]
	next := st
	var recs stripesource.Records
	if !stale(st, ev.Created, rank) {
		r, complete, err := a.mapInvoice(ctx, &inv, &next)
		if errors.Is(err, ErrNotYet) {
			if err := a.save(ctx, st, next); err != nil {
				return err
			}
			return err
		}
		if err != nil {
			return err
		}
		recs = r
		next.Customer = customerID
		if complete {
			// Without a price, the snapshot stays unapplied: the invoice's next event
			// maps it again, and its lines, keyed by their Stripe ids, become
			// subscription lines.
			next = applied(next, ev.Created, rank)
			next.Misses = 0
		}
	}
	if ev.Type == stripe.EventTypeInvoicePaymentFailed {
		recs.Transactions = append(recs.Transactions, stripesource.FailedPayment(&inv, time.Unix(ev.Created, 0)))
	}
	if len(recs.Invoices)+len(recs.Transactions) > 0 {
		if err := a.apply(ctx, customerID, recs); err != nil {
			return err
		}
		if err := a.stayAnonymised(ctx, objs[customerID]); err != nil {
			return err
		}
	}
	if inv.Payments != nil {
		for _, p := range inv.Payments.Data {
			if err := a.link(ctx, p.Payment, inv.ID, customerID); err != nil {
				return err
			}
		}
	}
	return a.save(ctx, st, next)
}

// mapInvoice maps an invoice with every line and the catalog its lines need; a price
// still unknown is ErrNotYet (counted in st.Misses) until maxMisses, then its lines
// are one_time and complete is false.
func (a *applying) mapInvoice(ctx context.Context, inv *stripe.Invoice, st *store.StripeObject) (recs stripesource.Records, complete bool, err error) {
	lines, err := a.lines(ctx, inv)
	if err != nil {
		return recs, false, err
	}
	cat, err := a.catalog(ctx, lines)
	if err != nil {
		return recs, false, err
	}
	recs, err = stripesource.Invoice(inv, lines, cat)
	complete = err == nil
	if errors.Is(err, stripesource.ErrUnknownPrice) {
		if st.Misses < maxMisses {
			st.Misses++
			return recs, false, fmt.Errorf("%w: %v", ErrNotYet, err)
		}
		slog.WarnContext(ctx, "stripe invoice applied with lines of unknown prices as one_time", "account_id", a.conn.AccountID,
			"data_source_uuid", a.conn.DataSourceUUID, "invoice", inv.ID, "reason", err.Error())
		cat.UnknownPricesOneTime = true
		recs, err = stripesource.Invoice(inv, lines, cat)
	}
	if err != nil {
		return recs, false, dropped("%v", err)
	}
	// The catalog's prices have their plans: they were applied when the prices joined it.
	recs.Plans = nil
	return recs, complete, nil
}

// lines are every line of the invoice: the event holds the first page, the reader the
// rest; without a reader the first page is mapped (and the gap logged).
func (a *applying) lines(ctx context.Context, inv *stripe.Invoice) ([]*stripe.InvoiceLineItem, error) {
	if inv.Lines == nil {
		return nil, nil
	}
	if !inv.Lines.HasMore {
		return inv.Lines.Data, nil
	}
	r, err := a.stripeReader(ctx)
	if err != nil {
		return nil, err
	}
	if r == nil {
		slog.WarnContext(ctx, "stripe invoice has more lines than its event and no API key reads them", "account_id",
			a.conn.AccountID, "data_source_uuid", a.conn.DataSourceUUID, "invoice", inv.ID, "lines", len(inv.Lines.Data))
		return inv.Lines.Data, nil
	}
	return r.InvoiceLines(ctx, inv.ID)
}

// catalog holds the prices the lines name (from the data source's catalog, else read
// through the reader and added) and the subscriptions whose prorations are billed as
// invoice items.
func (a *applying) catalog(ctx context.Context, lines []*stripe.InvoiceLineItem) (stripesource.Catalog, error) {
	cat := stripesource.Catalog{Prices: map[string]*stripe.Price{}, Subscriptions: map[string]*stripe.Subscription{}}
	var priceIDs, subIDs []string
	for _, l := range lines {
		if l.Pricing == nil || l.Pricing.PriceDetails == nil || l.Pricing.PriceDetails.Price == "" || l.Parent == nil {
			continue
		}
		switch d := l.Parent.InvoiceItemDetails; {
		case l.Parent.SubscriptionItemDetails != nil:
		case d != nil && d.Proration && d.Subscription != "":
			subIDs = append(subIDs, d.Subscription)
		default:
			continue
		}
		priceIDs = append(priceIDs, l.Pricing.PriceDetails.Price)
	}
	if len(priceIDs) == 0 {
		return cat, nil
	}
	prices, err := a.knownPrices(ctx, priceIDs)
	if err != nil {
		return cat, err
	}
	cat.Prices = prices
	objs, err := a.objects(ctx, subIDs...)
	if err != nil {
		return cat, err
	}
	for id, o := range objs {
		s := &stripe.Subscription{ID: id, Items: &stripe.SubscriptionItemList{}}
		for price, item := range o.Items {
			s.Items.Data = append(s.Items.Data, &stripe.SubscriptionItem{ID: item, Price: &stripe.Price{ID: price}})
		}
		cat.Subscriptions[id] = s
	}
	return cat, nil
}

// knownPrices are the prices of ids from the data source's catalog, else read through
// the reader and added to it; one still unknown (no reader) is left out.
func (a *applying) knownPrices(ctx context.Context, ids []string) (map[string]*stripe.Price, error) {
	out := map[string]*stripe.Price{}
	if len(ids) == 0 {
		return out, nil
	}
	known, err := a.Store.GetStripePrices(ctx, a.conn.AccountID, a.conn.DataSourceUUID, ids)
	if err != nil {
		return out, err
	}
	for id, p := range known {
		out[id] = priceOf(p)
	}
	var fetched []*stripe.Price
	for _, id := range ids {
		if out[id] != nil {
			continue
		}
		r, err := a.stripeReader(ctx)
		if err != nil || r == nil {
			return out, err
		}
		p, err := r.Price(ctx, id)
		if err != nil {
			return out, err
		}
		out[id] = p
		fetched = append(fetched, p)
	}
	return out, a.storePrices(ctx, fetched)
}

// invoicePayment applies invoice_payment.paid: a payment of the invoice it names, capped
// at what the stored invoice's other successful payments leave of its total
// (stripesource.CapPayment). The customer is the stored invoice's; an invoice not
// stored yet is ErrNotYet (its invoice.finalized usually precedes it), and the payment is
// dropped after maxMisses deliveries.
func (a *applying) invoicePayment(ctx context.Context, ev stripe.Event) error {
	var p stripe.InvoicePayment
	if err := stripesource.Object(ev, &p); err != nil {
		return dropped("%v", err)
	}
	tx, ok := stripesource.Payment(&p)
	if !ok {
		return nil
	}
	objs, err := a.objects(ctx, p.ID, p.Invoice.ID)
	if err != nil {
		return err
	}
	// A customer deleted in Stripe, known from the invoice's state, took its invoices.
	customerID := objs[p.Invoice.ID].Customer
	if gone, err := a.removed(ctx, customerID); err != nil || gone {
		return err
	}
	// The stored invoice, whole in one item, gives what is left to pay (and the customer
	// of a backfilled invoice); Stripe's amounts would not: the event names the invoice
	// by id only, and Stripe's total is not the import's under billing credits.
	inv, err := a.Store.GetInvoice(ctx, a.conn.AccountID, model.InvoiceUUID(a.conn.AccountID, a.conn.DataSourceUUID, p.Invoice.ID))
	if errors.Is(err, store.ErrNotFound) {
		return a.miss(ctx, objs[p.ID], "invoice payment %s: invoice %s not applied", p.ID, p.Invoice.ID)
	}
	if err != nil {
		return err
	}
	if customerID == "" {
		customerID = inv.CustomerExternalID
		if gone, err := a.removed(ctx, customerID); err != nil || gone {
			return err
		}
	}
	left := inv.Total() - inv.Settled(tx.Type, model.LineItemKey(tx.ExternalID, tx.Position))
	if tx, ok = stripesource.CapPayment(tx, ok, left); ok {
		if err := a.apply(ctx, customerID, stripesource.Records{ImportPayload: model.ImportPayload{Transactions: []model.ImportTransaction{tx}}}); err != nil {
			return err
		}
	}
	return a.link(ctx, p.Payment, p.Invoice.ID, customerID)
}

// miss counts one more delivery of an object's event that waits for another: ErrNotYet
// until maxMisses, then dropped.
func (a *applying) miss(ctx context.Context, st store.StripeObject, format string, args ...any) error {
	if st.Misses >= maxMisses {
		return dropped(format, args...)
	}
	next := st
	next.Misses++
	if err := a.save(ctx, st, next); err != nil {
		return err
	}
	return fmt.Errorf("%w: "+format, append([]any{ErrNotYet}, args...)...)
}

// customerOfInvoice is the Stripe customer of an invoice: from its state when an
// invoice event was applied, else from the stored invoice (a backfill applied it); ""
// when it is not stored.
func (a *applying) customerOfInvoice(ctx context.Context, st store.StripeObject) (string, error) {
	if st.Customer != "" {
		return st.Customer, nil
	}
	inv, err := a.Store.GetInvoice(ctx, a.conn.AccountID, model.InvoiceUUID(a.conn.AccountID, a.conn.DataSourceUUID, st.ID))
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	return inv.CustomerExternalID, err
}

// link notes the invoice and customer a payment intent or charge paid: a refund names
// them, not the invoice.
func (a *applying) link(ctx context.Context, p *stripe.InvoicePaymentPayment, invoiceID, customerID string) error {
	if p == nil {
		return nil
	}
	var ids []string
	if p.PaymentIntent != nil {
		ids = append(ids, p.PaymentIntent.ID)
	}
	if p.Charge != nil {
		ids = append(ids, p.Charge.ID)
	}
	objs, err := a.objects(ctx, ids...)
	if err != nil {
		return err
	}
	for _, o := range objs {
		next := o
		next.Invoice, next.Customer = invoiceID, customerID
		if err := a.save(ctx, o, next); err != nil {
			return err
		}
	}
	return nil
}

// refund applies refund.created and .updated.
func (a *applying) refund(ctx context.Context, ev stripe.Event) error {
	var r stripe.Refund
	if err := stripesource.Object(ev, &r); err != nil {
		return dropped("%v", err)
	}
	return a.applyRefund(ctx, &r, ev.Created)
}

// chargeRefunded applies the refunds a charge.refunded event's charge lists (each also
// has its refund.created event: the same records).
func (a *applying) chargeRefunded(ctx context.Context, ev stripe.Event) error {
	var ch stripe.Charge
	if err := stripesource.Object(ev, &ch); err != nil {
		return dropped("%v", err)
	}
	if ch.Refunds == nil {
		return nil
	}
	for _, r := range ch.Refunds.Data {
		if r.Charge == nil {
			r.Charge = &stripe.Charge{ID: ch.ID}
		}
		if r.PaymentIntent == nil && ch.PaymentIntent != nil {
			r.PaymentIntent = ch.PaymentIntent
		}
		if err := a.applyRefund(ctx, r, ev.Created); err != nil {
			return err
		}
	}
	return nil
}

// applyRefund applies a refund snapshot unless a later one was: a refund transaction
// of the invoice its payment intent or charge paid (noted when the payment was
// applied, else read through the reader). A refund whose invoice is not known yet is
// ErrNotYet, and dropped after maxMisses deliveries (a refund of a charge no invoice
// holds has no place in the metrics).
func (a *applying) applyRefund(ctx context.Context, r *stripe.Refund, created int64) error {
	var pi, ch string
	if r.PaymentIntent != nil {
		pi = r.PaymentIntent.ID
	}
	if r.Charge != nil {
		ch = r.Charge.ID
	}
	objs, err := a.objects(ctx, r.ID, pi, ch)
	if err != nil {
		return err
	}
	st := objs[r.ID]
	if stale(st, created, 0) {
		return nil
	}
	invoiceID, customerID := objs[pi].Invoice, objs[pi].Customer
	if invoiceID == "" {
		invoiceID, customerID = objs[ch].Invoice, objs[ch].Customer
	}
	if invoiceID == "" {
		rd, err := a.stripeReader(ctx)
		if err != nil {
			return err
		}
		if rd != nil {
			if invoiceID, err = rd.InvoiceOfPayment(ctx, pi, ch); err != nil {
				return err
			}
			if invoiceID != "" {
				if customerID, err = a.customerOfInvoice(ctx, store.StripeObject{ID: invoiceID}); err != nil {
					return err
				}
			}
		}
	}
	if customerID == "" {
		return a.miss(ctx, st, "refund %s: no applied invoice paid by %s %s", r.ID, pi, ch)
	}
	if gone, err := a.removed(ctx, customerID); err != nil || gone {
		return err
	}
	tx, ok := stripesource.Refund(r, invoiceID)
	if ok {
		if err := a.apply(ctx, customerID, stripesource.Records{ImportPayload: model.ImportPayload{Transactions: []model.ImportTransaction{tx}}}); err != nil {
			return err
		}
	}
	next := applied(st, created, 0)
	next.Invoice, next.Customer, next.Misses = invoiceID, customerID, 0
	return a.save(ctx, st, next)
}
