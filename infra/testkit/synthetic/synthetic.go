// Package synthetic makes the customers of the Metrics API benchmarks: engine results
// that stand for two years of monthly invoices, reproducible from an index.
package synthetic

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// Storage is what Source needs to create a data source and its plans.
type Storage interface {
	store.DataSources
	store.Plans
}

// Source creates a data source "Bench" with five monthly plans (external ids bench-0 …
// bench-4, names Bench 0 … Bench 4) and returns its uuid and the plans' uuids.
func Source(ctx context.Context, st Storage, accountID string) (string, []string, error) {
	ds := model.NewDataSource(accountID, "Bench", time.Now())
	if err := st.CreateDataSource(ctx, ds); err != nil {
		return "", nil, err
	}
	plans := make([]string, 5)
	for i := range plans {
		p := model.Plan{AccountID: accountID, UUID: model.NewPlanUUID(), DataSourceUUID: ds.UUID,
			ExternalID: fmt.Sprintf("bench-%d", i), Name: fmt.Sprintf("Bench %d", i), IntervalCount: 1,
			IntervalUnit: "month", CreatedAt: time.Now()}
		if err := st.CreatePlan(ctx, p); err != nil {
			return "", nil, err
		}
		plans[i] = p.UUID
	}
	return ds.UUID, plans, nil
}

// Customer is one customer on one monthly subscription over 2023–2024: it
// starts in a random month, changes price now and then, may move to another plan, churn
// and come back. It stands for the engine's result of two years of monthly invoices.
func Customer(i int, plans []string) (*engine.Result, accountseries.CustomerAttrs) {
	rng := rand.New(rand.NewPCG(uint64(i), 42))
	countries := []string{"US", "DE", "FR", "GB", "ES", "IT", "NL", "CA", "AU", "JP"}
	plan := plans[rng.IntN(len(plans))]
	attrs := accountseries.CustomerAttrs{UUID: fmt.Sprintf("cus_bench-%06d", i), Name: fmt.Sprintf("Bench %d", i),
		ExternalID: fmt.Sprintf("b-%d", i), DataSourceUUID: "ds_bench", Country: countries[rng.IntN(len(countries))],
		PlanExternalIDs: map[string]string{}}
	for j, p := range plans {
		attrs.PlanExternalIDs[p] = fmt.Sprintf("bench-%d", j)
	}
	var ms []engine.Movement
	var mrr int64
	everPaid := false
	add := func(at time.Time, typ, newPlan string, after int64) {
		m := engine.Movement{At: at, Type: typ, CustomerMRRBefore: mrr, CustomerMRR: after, Amount: after - mrr,
			PlanUUID: newPlan, PreviousPlanUUID: plan, SubscriptionUUID: "sub_" + attrs.UUID,
			SubscriptionExternalID: attrs.ExternalID, SubscriptionMRRBefore: mrr, SubscriptionMRRAfter: after,
			PayingBefore: mrr > 0, PayingAfter: after > 0, Description: typ}
		if typ == engine.NewBusiness {
			m.PreviousPlanUUID, m.FirstPayment = "", true
		}
		ms, mrr, plan = append(ms, m), after, newPlan
	}
	start := rng.IntN(24)
	for month := start; month < 24; month++ {
		at := time.Date(2023, time.Month(1+month), 1+i%28, 10, 0, 0, 0, time.UTC)
		switch {
		case mrr == 0 && !everPaid:
			add(at, engine.NewBusiness, plan, int64(1000+rng.IntN(90)*100))
			everPaid = true
		case mrr == 0 && rng.IntN(5) == 0:
			add(at, engine.Reactivation, plan, int64(1000+rng.IntN(90)*100))
		case mrr > 0 && rng.IntN(30) == 0:
			add(at, engine.Churn, plan, 0)
		case mrr > 0 && rng.IntN(10) == 0:
			add(at, engine.Expansion, plan, mrr+int64(100*(1+rng.IntN(20))))
		case mrr > 1000 && rng.IntN(15) == 0:
			add(at, engine.Contraction, plan, mrr-500)
		case mrr > 0 && rng.IntN(40) == 0: // an upgrade to another plan
			add(at, engine.Expansion, plans[rng.IntN(len(plans))], mrr+1000)
		}
	}
	return &engine.Result{Movements: ms, MRR: mrr}, attrs
}
