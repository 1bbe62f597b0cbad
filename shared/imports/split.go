package imports

import (
	"context"
	"fmt"

	"github.com/subsight/subsight/shared/model"
)

// split groups a validated payload into one Part per customer, in order of first
// appearance. Line items and transactions follow their invoice's customer; those of
// invoices absent from the payload are routed to the customer of the stored invoice
// (an earlier import), and one referencing no invoice at all is a client error.
func (p *Pipeline) split(ctx context.Context, accountID, dsUUID string, pl model.ImportPayload) ([]Part, error) {
	var parts []Part
	index := map[string]int{}
	part := func(customer string) *Part {
		i, ok := index[customer]
		if !ok {
			i = len(parts)
			index[customer] = i
			parts = append(parts, Part{CustomerExternalID: customer})
		}
		return &parts[i]
	}
	for i := range pl.Customers {
		part(pl.Customers[i].ExternalID).Customer = &pl.Customers[i]
	}
	invoiceCustomer := map[string]string{}
	for _, inv := range pl.Invoices {
		invoiceCustomer[inv.ExternalID] = inv.CustomerExternalID
		pt := part(inv.CustomerExternalID)
		pt.Invoices = append(pt.Invoices, inv)
	}
	if err := p.resolveEarlierInvoices(ctx, accountID, dsUUID, pl, invoiceCustomer); err != nil {
		return nil, err
	}
	for _, li := range pl.LineItems {
		pt := part(invoiceCustomer[li.InvoiceExternalID])
		pt.LineItems = append(pt.LineItems, li)
	}
	for _, t := range pl.Transactions {
		pt := part(invoiceCustomer[t.InvoiceExternalID])
		pt.Transactions = append(pt.Transactions, t)
	}
	for _, e := range pl.Events {
		pt := part(e.CustomerExternalID)
		pt.Events = append(pt.Events, e)
	}
	return parts, nil
}

// resolveEarlierInvoices adds to known the customers of the stored invoices that line
// items and transactions reference without the payload holding them (one batch read).
func (p *Pipeline) resolveEarlierInvoices(ctx context.Context, accountID, dsUUID string, pl model.ImportPayload, known map[string]string) error {
	type ref struct {
		record, invoice string
	}
	var refs []ref
	for i, li := range pl.LineItems {
		if _, ok := known[li.InvoiceExternalID]; !ok {
			refs = append(refs, ref{fmt.Sprintf("line_items[%d]", i), li.InvoiceExternalID})
		}
	}
	for i, t := range pl.Transactions {
		if _, ok := known[t.InvoiceExternalID]; !ok {
			refs = append(refs, ref{fmt.Sprintf("transactions[%d]", i), t.InvoiceExternalID})
		}
	}
	if len(refs) == 0 {
		return nil
	}
	uuids := make([]string, len(refs))
	for i, r := range refs {
		uuids[i] = model.InvoiceUUID(accountID, dsUUID, r.invoice)
	}
	stored, err := p.Store.GetInvoices(ctx, accountID, uuids)
	if err != nil {
		return err
	}
	for i, r := range refs {
		inv, ok := stored[uuids[i]]
		if !ok {
			return &model.FieldError{Record: r.record, Field: "invoice_external_id",
				Message: fmt.Sprintf("no invoice %q in this import or an earlier one", r.invoice)}
		}
		known[r.invoice] = inv.CustomerExternalID
	}
	return nil
}
