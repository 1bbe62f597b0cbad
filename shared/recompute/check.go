package recompute

import (
	"context"

	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/store"
)

// checkPage is the customer listing's page size while checking.
const checkPage = 200

// CheckSeries recomputes every customer of the account from its stored records, as
// the next recomputation would (writing nothing), sums what they contribute to the
// account series, and compares that with the stored series. Run on a quiet account
// (no recomputation in flight), any difference is a lost, doubled or corrupted
// contribution.
func (r *Recomputer) CheckSeries(ctx context.Context, series *accountseries.Series, accountID string) (accountseries.Verification, error) {
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
		for _, c := range page.Items {
			res, plans, err := r.compute(ctx, acc, c.UUID)
			if err != nil {
				return accountseries.Verification{}, err
			}
			tally.Add(&res, seriesAttrs(c, plans))
		}
		if !page.HasMore || page.Next == nil {
			break
		}
		start = page.Next
	}
	return series.Verify(ctx, accountID, tally)
}
