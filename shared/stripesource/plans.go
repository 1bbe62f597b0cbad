package stripesource

import (
	"fmt"

	"github.com/stripe/stripe-go/v84"
	"github.com/subsight/subsight/shared/model"
)

// Plan is the plan of a recurring Stripe price: its id as external id, a week as seven
// days. ok is false for a one-off price, which makes no plan.
func Plan(p *stripe.Price) (plan model.ImportPlan, ok bool, err error) {
	if p == nil || p.Recurring == nil {
		return model.ImportPlan{}, false, nil
	}
	count := int(max(p.Recurring.IntervalCount, 1))
	unit := string(p.Recurring.Interval)
	switch p.Recurring.Interval {
	case stripe.PriceRecurringIntervalDay, stripe.PriceRecurringIntervalMonth, stripe.PriceRecurringIntervalYear:
	case stripe.PriceRecurringIntervalWeek:
		unit, count = "day", count*7
	default:
		return model.ImportPlan{}, false, fmt.Errorf("stripesource: price %s: unknown interval %q", p.ID, p.Recurring.Interval)
	}
	return model.ImportPlan{ExternalID: p.ID, Name: planName(p), IntervalCount: count, IntervalUnit: unit}, true, nil
}

// planName: the price's nickname, else its product's name when the product is expanded,
// else the price id (a plan needs a name).
func planName(p *stripe.Price) string {
	switch {
	case p.Nickname != "":
		return p.Nickname
	case p.Product != nil && p.Product.Name != "":
		return p.Product.Name
	}
	return p.ID
}

// metered: usage billed in arrears, which carries no MRR (docs/stripe.md).
func metered(p *stripe.Price) bool {
	return p.Recurring != nil && (p.Recurring.UsageType == stripe.PriceRecurringUsageTypeMetered || p.Recurring.Meter != "")
}
