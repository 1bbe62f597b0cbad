package imports

import (
	"context"
	"errors"
	"strconv"

	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// ApplyPlans creates or updates the payload's plans before any customer message is
// queued (the Stripe source applies the plans of its prices with it too, importID then
// naming the event). A plan that cannot be applied (its interval would change while invoices use
// it) is reported in status_details.plans; the others are applied.
func (p *Pipeline) ApplyPlans(ctx context.Context, accountID, importID string, ds model.DataSource, plans []model.ImportPlan) (model.KindStatus, error) {
	st := model.KindStatus{Status: model.RecordsImported}
	for i, pl := range plans {
		msg, err := p.applyPlan(ctx, accountID, importID, ds, i, pl)
		if err != nil {
			return st, err
		}
		if msg != "" {
			st.Status = model.RecordsFailed
			st.Errors = append(st.Errors, model.RecordError{ExternalID: pl.ExternalID, Message: msg})
		}
	}
	return st, nil
}

// applyPlan returns a record error message, or an error when the store failed.
func (p *Pipeline) applyPlan(ctx context.Context, accountID, importID string, ds model.DataSource, i int, pl model.ImportPlan) (string, error) {
	for attempt := 0; attempt < 3; attempt++ {
		if pl.ExternalID != "" {
			old, err := p.Store.GetPlanByExternalID(ctx, accountID, ds.UUID, pl.ExternalID)
			if err == nil {
				return p.updatePlan(ctx, old, pl)
			}
			if !errors.Is(err, store.ErrNotFound) {
				return "", err
			}
		}
		np := model.Plan{AccountID: accountID, DataSourceUUID: ds.UUID, System: ds.System, ExternalID: pl.ExternalID,
			Name: pl.Name, IntervalCount: pl.IntervalCount, IntervalUnit: pl.IntervalUnit, CreatedAt: p.Now()}
		if pl.ExternalID == "" {
			// Derived from the import and position: a retried intake finds the same plan.
			np.UUID = ids.Plan + model.DerivedUUID("plan", accountID, ds.UUID, importID, strconv.Itoa(i))
			np.ExternalID = model.DefaultPlanExternalID(np.UUID)
		} else {
			np.UUID = model.NewPlanUUID()
		}
		switch err := p.Store.CreatePlan(ctx, np); {
		case err == nil:
			return "", nil
		case errors.Is(err, store.ErrConflict) && pl.ExternalID == "":
			return "", nil // created by the earlier attempt
		case errors.Is(err, store.ErrConflict):
			continue // created concurrently: update it
		case errors.Is(err, store.ErrDataSourceNotLive):
			return "The data source is being deleted", nil
		default:
			return "", err
		}
	}
	return "", errors.New("imports: plan kept changing concurrently")
}

func (p *Pipeline) updatePlan(ctx context.Context, old model.Plan, pl model.ImportPlan) (string, error) {
	if old.Name == pl.Name && old.IntervalCount == pl.IntervalCount && old.IntervalUnit == pl.IntervalUnit {
		return "", nil
	}
	_, err := p.Store.UpdatePlan(ctx, old, store.PlanUpdate{Name: &pl.Name, IntervalCount: &pl.IntervalCount, IntervalUnit: &pl.IntervalUnit})
	switch {
	case errors.Is(err, store.ErrPlanReferenced):
		return "The interval of a plan used by invoices cannot be changed", nil
	case errors.Is(err, store.ErrNotFound):
		return "The plan was deleted while it was being updated", nil
	}
	return "", err
}
