package imports

import (
	"context"
	"errors"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// ErrStatusTransition: the invoice may not go from its status to the one asked
// (model.InvoiceStatusTransitionAllowed).
var ErrStatusTransition = errors.New("imports: invoice status transition not allowed")

// statusAttempts bounds the re-reads when the invoice changes between read and write.
const statusAttempts = 3

// SetInvoiceStatus sets the status of a stored invoice (voided, written_off: what an
// import cannot carry), re-reading it when it changed meanwhile; an unchanged status is
// not written again. It returns the invoice before and after; store.ErrNotFound when
// there is no such invoice, ErrStatusTransition when the change is refused.
func (p *Pipeline) SetInvoiceStatus(ctx context.Context, accountID, invoiceUUID, status string) (model.Invoice, model.Invoice, error) {
	return p.setInvoiceStatus(ctx, accountID, invoiceUUID, status, model.InvoiceStatusTransitionAllowed)
}

// SetSourceInvoiceStatus sets the status a billing system reports for its invoice, ""
// included: a written-off invoice paid after all counts again. Only a voided invoice is
// final (ErrStatusTransition). The API's own transitions stay those of SetInvoiceStatus.
func (p *Pipeline) SetSourceInvoiceStatus(ctx context.Context, accountID, invoiceUUID, status string) (model.Invoice, model.Invoice, error) {
	return p.setInvoiceStatus(ctx, accountID, invoiceUUID, status, func(from, to string) bool {
		return from == to || from != model.InvoiceVoided
	})
}

func (p *Pipeline) setInvoiceStatus(ctx context.Context, accountID, invoiceUUID, status string, allowed func(from, to string) bool) (model.Invoice, model.Invoice, error) {
	for range statusAttempts {
		inv, err := p.Store.GetInvoice(ctx, accountID, invoiceUUID)
		if err != nil {
			return model.Invoice{}, model.Invoice{}, err
		}
		if !allowed(inv.Status, status) {
			return model.Invoice{}, model.Invoice{}, ErrStatusTransition
		}
		if inv.Status == status {
			return inv, inv, nil
		}
		updated, err := p.Store.SetInvoiceStatus(ctx, inv, status, p.Now())
		if !errors.Is(err, store.ErrConflict) {
			return inv, updated, err
		}
	}
	return model.Invoice{}, model.Invoice{}, errors.New("imports: set invoice status: the invoice kept changing")
}
