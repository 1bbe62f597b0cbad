package stripesync

import (
	"context"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/shared/store"
)

// Ranks of an invoice's statuses: an invoice goes draft → open → paid, void or
// uncollectible, and an uncollectible one may still be paid or voided; paid and void are
// final. So an uncollectible snapshot never overrides a paid or void one, whatever the
// order the events arrive in, and void wins over everything. Other objects have rank 0.
func invoiceRank(s stripe.InvoiceStatus) int {
	switch s {
	case stripe.InvoiceStatusOpen:
		return 1
	case stripe.InvoiceStatusUncollectible:
		return 2
	case stripe.InvoiceStatusPaid:
		return 3
	case stripe.InvoiceStatusVoid:
		return 4
	}
	return 0
}

// stale: an object's snapshot of an event created at created, with status rank rank,
// is older than the one applied last.
func stale(o store.StripeObject, created int64, rank int) bool {
	if o.Version == 0 {
		return false
	}
	return rank < o.Rank || rank == o.Rank && created < o.Created
}

// applied notes the snapshot applied: o's created and rank move forward only.
func applied(o store.StripeObject, created int64, rank int) store.StripeObject {
	if !stale(o, created, rank) {
		o.Created, o.Rank = created, rank
	}
	return o
}

// objects reads the state of Stripe objects; an unknown one comes back with its id and
// version 0.
func (a *applying) objects(ctx context.Context, ids ...string) (map[string]store.StripeObject, error) {
	var want []string
	for _, id := range ids {
		if id != "" {
			want = append(want, id)
		}
	}
	got := map[string]store.StripeObject{}
	if len(want) > 0 {
		var err error
		if got, err = a.Store.GetStripeObjects(ctx, a.conn.AccountID, a.conn.DataSourceUUID, want); err != nil {
			return nil, err
		}
	}
	for _, id := range want {
		if _, ok := got[id]; !ok {
			got[id] = store.StripeObject{ID: id}
		}
	}
	return got, nil
}

// save writes an object's state if it changed from old. A conflict (another delivery
// of the same customer's events wrote it meanwhile) is an error: the event is applied
// again, which its records' keys make harmless.
func (a *applying) save(ctx context.Context, old, next store.StripeObject) error {
	if same(old, next) {
		return nil
	}
	_, err := a.Store.PutStripeObject(ctx, a.conn.AccountID, a.conn.DataSourceUUID, next)
	return err
}

func same(a, b store.StripeObject) bool {
	if a.Created != b.Created || a.Rank != b.Rank || a.Customer != b.Customer || a.Invoice != b.Invoice ||
		a.TrialStart != b.TrialStart || a.Deleted != b.Deleted || a.Misses != b.Misses || len(a.Items) != len(b.Items) {
		return false
	}
	for k, v := range a.Items {
		if b.Items[k] != v {
			return false
		}
	}
	return true
}
