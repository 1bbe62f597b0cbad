package engine

import "time"

// stepKind orders changes at one instant: cancellations first, so a cancellation and a new
// service period starting at the same instant read as "cancelled, then started again".
type stepKind int

const (
	stepCancel stepKind = iota
	stepSet             // the subscription's MRR becomes value
	stepAdd             // value is added to the subscription's MRR
	stepTouch           // plan and quantity change only (trial items)
)

// step is one change to one subscription.
type step struct {
	at        time.Time
	order     int // event_order
	kind      stepKind
	seq       int // input order
	sub       *subscription
	price     price // stepSet, stepAdd
	plan      Plan
	quantity  int64
	periodEnd time.Time
	autoChurn bool
}

func stepLess(a, b *step) int {
	if c := a.at.Compare(b.at); c != 0 {
		return c
	}
	if a.order != b.order {
		return a.order - b.order
	}
	if a.kind == stepCancel || b.kind == stepCancel {
		return int(a.kind) - int(b.kind)
	}
	return a.seq - b.seq
}

// valueSteps turns a subscription's line items into steps (§1.5): a non-prorated
// item sets the MRR (several for the same period on one invoice are summed), a prorated
// "full" item sets it, "differential" and "differential_mrr" items add to it, trial items only
// change plan and quantity.
func (s *subscription) valueSteps(forceSetFirst map[int]bool) []*step {
	var out []*step
	var last *step
	var lastInvoice int
	lastPlain := false // last step came from a non-prorated subscription item
	for _, it := range s.items {
		st := &step{at: it.ServicePeriodStart, order: it.EventOrder, seq: it.seq, sub: s, plan: it.plan,
			quantity: it.Quantity, periodEnd: it.ServicePeriodEnd}
		switch {
		case it.Type == ItemTrial:
			st.kind = stepTouch
		case !it.Prorated || it.ProrationType == ProrationFull:
			st.kind, st.price = stepSet, it.price.clone()
		default:
			st.kind, st.price = stepAdd, it.price.clone()
		}
		if forceSetFirst[it.seq] && st.kind == stepAdd {
			st.kind = stepSet // the first item after a connection starts fresh, it is not a delta
		}
		plain := it.Type == ItemSubscription && !it.Prorated
		if last != nil && plain && lastPlain && lastInvoice == it.invoice &&
			last.at.Equal(st.at) && last.periodEnd.Equal(st.periodEnd) && last.order == st.order {
			last.price.native.Add(last.price.native, st.price.native) // same invoice and day: same currency and rate
			last.quantity += st.quantity
			continue
		}
		out = append(out, st)
		last, lastInvoice, lastPlain = st, it.invoice, plain
	}
	return out
}
