package imports

import (
	"context"

	"github.com/subsight/subsight/shared/model"
)

// Progress is what GET json_imports shows of an import.
type Progress struct {
	Status    string
	Customers []model.ImportCustomerStatus
}

// Progress reads the customer entries of an import and derives its status: queued
// until a customer is done, processing until all are (a customer whose message went
// to the dead-letter queue counts as done, with status failed), then completed.
func (p *Pipeline) Progress(ctx context.Context, imp model.Import) (Progress, error) {
	done, err := p.Store.ImportCustomerStatuses(ctx, imp.AccountID, imp.ID)
	if err != nil {
		return Progress{}, err
	}
	pr := Progress{Status: model.ImportProcessing, Customers: done}
	switch {
	case !imp.Queued:
		pr.Status = model.ImportQueued
	case len(done) >= imp.Customers:
		pr.Status = model.ImportCompleted
	case len(done) == 0:
		pr.Status = model.ImportQueued
	}
	return pr, nil
}
