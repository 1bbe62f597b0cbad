package accountseries

import (
	"time"

	"github.com/subsight/subsight/shared/metrics/engine"
)

func at(s string) time.Time {
	for _, layout := range []string{time.DateOnly, "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	panic(s)
}

// mv is a movement of the customer's MRR from before to after on one subscription.
func mv(when, typ string, before, after int64, plan string) engine.Movement {
	m := engine.Movement{At: at(when), Type: typ, CustomerMRRBefore: before, CustomerMRR: after, Amount: after - before,
		PlanUUID: plan, PreviousPlanUUID: plan, PayingBefore: before > 0, PayingAfter: after > 0,
		SubscriptionUUID: "sub-" + plan, SubscriptionExternalID: "ext-" + plan, Description: typ + " " + plan}
	m.SubscriptionMRRBefore, m.SubscriptionMRRAfter = before, after
	if typ == engine.NewBusiness {
		m.PreviousPlanUUID, m.FirstPayment = "", true
	}
	return m
}

type customer struct {
	Attrs     CustomerAttrs
	Movements []engine.Movement
}

// portfolio is the four customers whose monthly metrics are hand-computed in
// TestHandComputedMonthly: A, C and D in the US, B in Germany.
func portfolio() []customer {
	c := func(id, country string, ms ...engine.Movement) customer {
		return customer{CustomerAttrs{UUID: "cus_" + id, Name: "Customer " + id, ExternalID: "x-" + id,
			DataSourceUUID: "ds_1", Country: country, PlanExternalIDs: map[string]string{"P1": "gold", "P2": "silver"}}, ms}
	}
	return []customer{
		c("A", "US", mv("2024-01-05", engine.NewBusiness, 0, 1000, "P1"), mv("2024-02-10", engine.Expansion, 1000, 1500, "P1")),
		c("B", "DE", mv("2024-01-20", engine.NewBusiness, 0, 2000, "P1"), mv("2024-03-03", engine.Churn, 2000, 0, "P1")),
		c("C", "US", mv("2024-02-01", engine.NewBusiness, 0, 3000, "P2"), mv("2024-02-15", engine.Churn, 3000, 0, "P2"),
			mv("2024-03-10", engine.Reactivation, 0, 3000, "P2")),
		c("D", "US", mv("2023-12-15", engine.NewBusiness, 0, 4000, "P1"), mv("2024-01-25", engine.Contraction, 4000, 3000, "P1")),
	}
}

// subMove is a movement of one subscription (plan, previous plan and the subscription's
// MRR before and after) that moves the customer's MRR from before to after.
func subMove(when, typ string, before, after int64, plan, prevPlan string, subBefore, subAfter int64) engine.Movement {
	return engine.Movement{At: at(when), Type: typ, CustomerMRRBefore: before, CustomerMRR: after, Amount: after - before,
		PlanUUID: plan, PreviousPlanUUID: prevPlan, SubscriptionMRRBefore: subBefore, SubscriptionMRRAfter: subAfter,
		PayingBefore: before > 0, PayingAfter: after > 0, FirstPayment: typ == engine.NewBusiness,
		SubscriptionUUID: "sub-" + plan, SubscriptionExternalID: "ext-" + plan, Description: typ + " " + plan}
}

// multiPlanPortfolio: customers paying on several plans (hand computations below).
//
//	E (US): P1 1000 from 10 Jan; adds P2 500 on 20 Jan; cancels P1 on 5 Mar.
//	F (DE): P1 2000 from 1 Feb; switches to P2 at 2500 on 1 Mar.
//	G (US): P3 800 from 5 Jan; adds P2 300 on 15 Feb; cancels P2 on 20 Mar.
func multiPlanPortfolio() []customer {
	c := func(id, country string, ms ...engine.Movement) customer {
		return customer{CustomerAttrs{UUID: "cus_" + id, Name: "Customer " + id, ExternalID: "x-" + id, DataSourceUUID: "ds_1",
			Country: country, PlanExternalIDs: map[string]string{"P1": "gold", "P2": "silver", "P3": "bronze"}}, ms}
	}
	return []customer{
		c("E", "US", subMove("2024-01-10", engine.NewBusiness, 0, 1000, "P1", "", 0, 1000),
			subMove("2024-01-20", engine.Expansion, 1000, 1500, "P2", "", 0, 500),
			subMove("2024-03-05", engine.Contraction, 1500, 500, "P1", "P1", 1000, 0)),
		c("F", "DE", subMove("2024-02-01", engine.NewBusiness, 0, 2000, "P1", "", 0, 2000),
			subMove("2024-03-01", engine.Expansion, 2000, 2500, "P2", "P1", 2000, 2500)),
		c("G", "US", subMove("2024-01-05", engine.NewBusiness, 0, 800, "P3", "", 0, 800),
			subMove("2024-02-15", engine.Expansion, 800, 1100, "P2", "", 0, 300),
			subMove("2024-03-20", engine.Contraction, 1100, 800, "P2", "P2", 300, 0)),
	}
}
