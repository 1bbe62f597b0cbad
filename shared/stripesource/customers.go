package stripesource

import (
	"github.com/stripe/stripe-go/v84"
	"github.com/subsight/subsight/shared/model"
)

// Customer maps a Stripe customer; subs are the customer's subscriptions known so far,
// whose earliest trial start is the free-trial start and the lead date (the customer's
// creation is the lead date of one who never had a trial). Empty Stripe fields are left
// unsent, so they do not erase what an earlier record set.
func Customer(c *stripe.Customer, subs []*stripe.Subscription) model.ImportCustomer {
	out := model.ImportCustomer{ExternalID: c.ID, Name: nonEmpty(c.Name), Email: nonEmpty(c.Email),
		Company: nonEmpty(c.BusinessName), LeadCreatedAt: unix(c.Created)}
	if a := c.Address; a != nil {
		out.Country, out.State, out.City, out.Zip = nonEmpty(a.Country), nonEmpty(a.State), nonEmpty(a.City), nonEmpty(a.PostalCode)
	}
	var trial int64
	for _, s := range subs {
		if s.TrialStart != 0 && (trial == 0 || s.TrialStart < trial) {
			trial = s.TrialStart
		}
	}
	if trial != 0 {
		out.FreeTrialStartedAt, out.LeadCreatedAt = unix(trial), unix(trial)
	}
	return out
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
