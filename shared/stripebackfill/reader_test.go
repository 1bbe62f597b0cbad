package stripebackfill_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/infra/testkit/stripemock"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/stripebackfill"
)

// fixturePrice is the price of stripe-mock's subscription item fixture (and of its
// price fixture, whose listed copies get ids of their own).
const fixturePrice = "price_1PgafmB7WZ01zgkW6dKueIc5"

// issued makes stripe-mock's fixtures a history the reader reads all of: invoices paid
// (the fixture is a draft, which is never read further), with more lines and payments
// than they carry (has_more, so both are paged from their own listings), lines of a
// subscription item, paid payments, refunded charges and succeeded refunds. More says
// whether invoices claim more lines and payments than they carry.
func issued(more bool) func(string, map[string]any) {
	return func(path string, o map[string]any) {
		switch {
		case path == "/v1/invoices":
			o["status"] = "paid"
			lines, payments := o["lines"].(map[string]any), o["payments"].(map[string]any)
			lines["has_more"], payments["has_more"] = more, more
			for _, l := range lines["data"].([]any) {
				subscriptionLine(l.(map[string]any), o["id"].(string))
			}
			for _, p := range payments["data"].([]any) {
				paidPayment(p.(map[string]any), o["id"].(string))
			}
		case strings.HasSuffix(path, "/lines"):
			subscriptionLine(o, strings.Split(path, "/")[3])
		case path == "/v1/invoice_payments":
			paidPayment(o, "")
		case path == "/v1/subscriptions":
			// Each subscription's items are its own (the fixture's are one item).
			for _, it := range o["items"].(map[string]any)["data"].([]any) {
				it := it.(map[string]any)
				it["id"] = fmt.Sprintf("%v_%v", it["id"], o["id"])
			}
		case path == "/v1/charges" && more:
			o["amount_refunded"], o["payment_intent"] = 500, "pi_1"
		case path == "/v1/refunds":
			o["status"], o["amount"], o["currency"], o["created"] = "succeeded", 500, "usd", 1767312000
		}
	}
}

// subscriptionLine makes a line one of the invoice's subscription item (ids of its own),
// at the subscription items' price (stripe-mock's line has both kinds of parent and no
// price).
func subscriptionLine(o map[string]any, invoice string) {
	o["id"] = fmt.Sprintf("%v_%s", o["id"], invoice) // a line is one invoice's
	o["parent"] = map[string]any{"type": "subscription_item_details", "subscription_item_details": map[string]any{
		"subscription": "sub_" + invoice, "subscription_item": "si_" + invoice, "proration": false}}
	o["pricing"] = map[string]any{"type": "price_details", "price_details": map[string]any{"price": fixturePrice, "product": "prod_1"}}
	o["period"] = map[string]any{"start": 1767225600, "end": 1769904000}
}

// paidPayment makes a payment paid, for an amount the invoice's lines cover: an
// invoice here has at least two lines of 1000 and at most three payments.
func paidPayment(o map[string]any, invoice string) {
	if invoice != "" {
		o["id"] = fmt.Sprintf("%v_%s", o["id"], invoice) // a payment is one invoice's
	}
	o["status"], o["currency"], o["amount_paid"] = "paid", "usd", 500
	o["payment"] = map[string]any{"type": "payment_intent", "payment_intent": "pi_1"}
	o["status_transitions"] = map[string]any{"paid_at": 1767225600}
}

func noWait(context.Context, time.Duration) error { return nil }

// TestReaderFollowsEveryList: with lists of three objects read two at a time, every
// list (prices, customers, subscriptions, invoices, lines, payments, charges, refunds)
// is followed to its end, each request is one stripe-mock takes (it refuses malformed
// ones), and what was read is mapped.
func TestReaderFollowsEveryList(t *testing.T) {
	mock := stripemock.ForTest(t)
	pager := stripemock.NewPager(t, mock.URL, 3, issued(true))
	r := stripebackfill.NewReader(stripemock.Key, stripebackfill.Options{APIBase: pager.URL(), PageSize: 2,
		CustomersPerPage: 2, Sleep: noWait})
	ctx := context.Background()

	prices, err := r.Prices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(prices) != 3 {
		t.Errorf("prices = %d, want 3", len(prices))
	}
	var customers []*stripe.Customer
	after := ""
	for pages := 0; ; pages++ {
		page, more, err := r.Customers(ctx, after)
		if err != nil {
			t.Fatal(err)
		}
		customers = append(customers, page...)
		if !more {
			break
		}
		after = page[len(page)-1].ID
		if pages > 3 {
			t.Fatal("the customers listing does not end")
		}
	}
	if len(customers) != 3 {
		t.Fatalf("customers = %d, want 3", len(customers))
	}
	before := pager.Total()
	recs, n, err := r.Customer(ctx, customers[0], prices)
	if err != nil {
		t.Fatal(err)
	}
	want := model.StripeBackfillCounts{Customers: 1, Subscriptions: 3, Invoices: 3, LineItems: 9, InvoicePayments: 9, Refunds: 9}
	if n != want {
		t.Errorf("counts = %+v, want %+v", n, want)
	}
	if len(recs.Customers) != 1 || recs.Customers[0].ExternalID != customers[0].ID {
		t.Errorf("customers = %+v", recs.Customers)
	}
	if len(recs.Invoices) != 3 || len(recs.LineItems) != 9 || len(recs.Transactions) != 18 {
		t.Errorf("invoices %d, lines %d, transactions %d; want 3, 9, 18", len(recs.Invoices), len(recs.LineItems), len(recs.Transactions))
	}
	if len(recs.Plans) != 1 || recs.Plans[0].ExternalID != fixturePrice {
		t.Errorf("plans = %+v, want the subscription items' price", recs.Plans)
	}
	for _, li := range recs.LineItems {
		if li.Type != "subscription" || li.PlanExternalID != fixturePrice {
			t.Errorf("line %s: type %s plan %s", li.ExternalID, li.Type, li.PlanExternalID)
		}
	}
	// Each list of three takes two pages: subscriptions, invoices, charges, and per
	// invoice its lines and payments, per charge its refunds.
	if got, want := pager.Total()-before, 2+2+3*(2+2)+2+3*2; got != want {
		t.Errorf("requests for one customer = %d, want %d: %v", got, want, pager.Requests())
	}
	if got := r.Requests(); got != int64(pager.Total()) {
		t.Errorf("reader counted %d requests, the mock received %d", got, pager.Total())
	}
	if refused := pager.Refused(); len(refused) > 0 {
		t.Errorf("stripe-mock refused: %v", refused)
	}
}

// BenchmarkRequestsPerCustomer reads, on stripe-mock, customers with a year of monthly
// invoices (one subscription, twelve paid invoices whose lines and payments come with
// them, twelve charges of which one was refunded) the way a step reads them, and reports
// the requests each customer costs and the customers a second that Stripe's read rate
// allows at the backfill's 20 requests a second and at Stripe's 25 (docs/benchmarks.md).
func BenchmarkRequestsPerCustomer(b *testing.B) {
	mock := stripemock.ForTest(b)
	const customers = 40
	patch := issued(false)
	pager := stripemock.NewPager(b, mock.URL, 1, func(path string, o map[string]any) {
		patch(path, o)
		if path == "/v1/charges" && strings.HasSuffix(o["id"].(string), "_0") {
			o["amount_refunded"], o["payment_intent"] = 500, "pi_1"
		}
	})
	pager.Sizes = map[string]int{"/v1/customers": customers, "/v1/prices": 5, "/v1/invoices": 12, "/v1/charges": 12}
	ctx := context.Background()
	var perCustomer float64
	for b.Loop() {
		before := pager.Total()
		r := stripebackfill.NewReader(stripemock.Key, stripebackfill.Options{APIBase: pager.URL(), Sleep: noWait})
		prices, err := r.Prices(ctx)
		if err != nil {
			b.Fatal(err)
		}
		after, more, read := "", true, 0
		for more {
			var page []*stripe.Customer
			if page, more, err = r.Customers(ctx, after); err != nil {
				b.Fatal(err)
			}
			for _, c := range page {
				if _, _, err := r.Customer(ctx, c, prices); err != nil {
					b.Fatal(err)
				}
			}
			read += len(page)
			after = page[len(page)-1].ID
		}
		perCustomer = float64(pager.Total()-before) / float64(read)
	}
	b.ReportMetric(perCustomer, "requests/customer")
	b.ReportMetric(stripebackfill.DefaultRate/perCustomer, "customers/s@20rps")
	b.ReportMetric(25/perCustomer, "customers/s@25rps")
	if refused := pager.Refused(); len(refused) > 0 {
		b.Errorf("stripe-mock refused: %v", refused)
	}
}

// TestSingleReads: the reads the live sync makes of what an event does not carry, each
// a request stripe-mock takes.
func TestSingleReads(t *testing.T) {
	mock := stripemock.ForTest(t)
	pager := stripemock.NewPager(t, mock.URL, 3, nil)
	r := stripebackfill.NewReader(stripemock.Key, stripebackfill.Options{APIBase: pager.URL(), PageSize: 2, Sleep: noWait})
	ctx := context.Background()
	if p, err := r.Price(ctx, fixturePrice); err != nil || p.ID == "" || p.Recurring == nil {
		t.Errorf("price: %+v %v", p, err)
	}
	if lines, err := r.InvoiceLines(ctx, "in_1"); err != nil || len(lines) != 3 {
		t.Errorf("lines: %d %v, want 3 over two pages", len(lines), err)
	}
	if inv, err := r.InvoiceOfPayment(ctx, "pi_1", ""); err != nil || inv == "" {
		t.Errorf("invoice of a payment intent: %q %v", inv, err)
	}
	// stripe-mock's charge has no payment intent: no invoice to find.
	if inv, err := r.InvoiceOfPayment(ctx, "", "ch_1"); err != nil || inv != "" {
		t.Errorf("invoice of a charge without payment intent: %q %v", inv, err)
	}
	if refused := pager.Refused(); len(refused) > 0 {
		t.Errorf("stripe-mock refused: %v", refused)
	}
}
