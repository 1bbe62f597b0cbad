package recompute

import (
	"context"

	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/parallel"
	"github.com/subsight/subsight/shared/store"
)

// checkPage is the customer listing's page size while checking, checkConcurrency how
// many customers of a page are recomputed at once.
const (
	checkPage        = 200
	checkConcurrency = 8
)

// CheckSeries recomputes every customer of the account from its stored records, as
// the next recomputation would (writing nothing), sums what they contribute to the
// account series, and compares that with the stored series. Run on a quiet account
// (no recomputation in flight), any difference is a lost, doubled or corrupted
// contribution. With fold, what the bulk shards hold is first folded into the read copy
// (the one write it makes).
func (r *Recomputer) CheckSeries(ctx context.Context, series *accountseries.Series, accountID string, fold bool) (accountseries.Verification, error) {
	acc, err := r.store.GetAccount(ctx, accountID)
	if err != nil {
		return accountseries.Verification{}, err
	}
	tally := accountseries.NewTally(accountseries.Calendar(acc))
	var start store.PageToken
	for {
		page, err := r.store.ListCustomers(ctx, accountID, store.CustomerFilter{}, checkPage, start)
		if err != nil {
			return accountseries.Verification{}, err
		}
		results := make([]engine.Result, len(page.Items))
		attrs := make([]accountseries.CustomerAttrs, len(page.Items))
		errs := make([]error, len(page.Items))
		parallel.For(len(page.Items), checkConcurrency, func(i int) {
			var plans map[string]engine.Plan
			results[i], plans, errs[i] = r.compute(ctx, acc, page.Items[i].UUID)
			attrs[i] = seriesAttrs(page.Items[i], plans)
		})
		for i := range page.Items {
			if errs[i] != nil {
				return accountseries.Verification{}, errs[i]
			}
			tally.Add(&results[i], attrs[i])
		}
		if !page.HasMore || page.Next == nil {
			break
		}
		start = page.Next
	}
	return series.Verify(ctx, accountID, tally, fold)
}
