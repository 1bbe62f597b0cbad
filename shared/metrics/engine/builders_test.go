package engine

func withQuantity(it LineItem, q int64) LineItem { it.Quantity = q; return it }

func prorated(it LineItem, kind string) LineItem {
	it.Prorated, it.ProrationType = true, kind
	return it
}

func trial(it LineItem) LineItem { it.Type = ItemTrial; return it }

func withTax(it LineItem, tax, discount int64) LineItem {
	it.TaxAmountInCents, it.DiscountAmountInCents, it.TransactionFeesInCents = tax, discount, 30
	return it
}

func withDue(inv Invoice, due string) Invoice { inv.DueDate = at(due); return inv }

func failed(inv Invoice, date string) Invoice {
	inv.Transactions = append(inv.Transactions, Transaction{Type: TransactionPayment, Result: ResultFailed, Date: at(date)})
	return inv
}

func eur(inv Invoice) Invoice { inv.Currency = "EUR"; return inv }

func fx(in Input, day string, rate float64) Input {
	in.Rates = RateTable{day + "/EUR": rate}
	return in
}

func withSettings(in Input, f func(*Settings)) Input { f(&in.Settings); return in }

func withHistory(in Input, ext string, dates ...string) Input {
	h := CancellationHistory{DataSourceUUID: "ds_1", SubscriptionExternalID: ext}
	for _, d := range dates {
		h.Dates = append(h.Dates, at(d))
	}
	in.CancellationHistory = append(in.CancellationHistory, h)
	return in
}

func withEvents(in Input, events ...SubscriptionEvent) Input {
	in.Events = append(in.Events, events...)
	return in
}

func event(id, kind, recorded, effective string) SubscriptionEvent {
	return SubscriptionEvent{ID: id, DataSourceUUID: "ds_1", SubscriptionExternalID: "sub", EventType: kind,
		EventDate: at(recorded), EffectiveDate: at(effective)}
}

func refund(inv Invoice, amount int64) Invoice {
	inv.Transactions = append(inv.Transactions, Transaction{Type: TransactionRefund, Result: ResultSuccessful, Date: inv.Date, AmountInCents: &amount})
	return inv
}

func retry(inv Invoice, date string) Invoice {
	inv.Transactions = append(inv.Transactions, Transaction{Type: TransactionPayment, Result: ResultSuccessful, Date: at(date)})
	return inv
}

func retraction(id, target, recorded string) SubscriptionEvent {
	e := event(id, EventRetracted, recorded, recorded)
	e.RetractedEventID = target
	return e
}

func retracted(e SubscriptionEvent) SubscriptionEvent { e.Retracted = true; return e }

func priced(e SubscriptionEvent, plan Plan, amount int64) SubscriptionEvent {
	e.PlanUUID, e.AmountInCents, e.Quantity, e.Currency = plan.UUID, amount, 1, "USD"
	return e
}

func zeroChurn(s *Settings) { s.ChurnWhenZeroMRR = true }

func recognition(r string) func(*Settings) { return func(s *Settings) { s.ChurnRecognition = r } }

func window(w string) func(*Settings) {
	return func(s *Settings) { s.ProximateMovementReclassification = w }
}

func autoChurn(days int) func(*Settings) {
	return func(s *Settings) { s.AutoChurnSubscription, s.AutoChurnAfterDays = true, days }
}
