package billing

import (
	"context"
	"errors"
	"fmt"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// The edit histories (docs/api.md, "Edit histories"): an update operation's change of
// an invoice, line item or transaction is a user edit, recorded on the record after the
// change is applied: the fields it changed (their first and latest values), the team
// member it is attributed to, when, and the operation (the route) that made it.

// editRule records an edit (its author, time and operation filled in) on next, the
// invoice as stored after the change, from before, the invoice as it was; it reports
// whether anything was recorded.
type editRule func(before model.Invoice, next *model.Invoice, e model.Edit) bool

// recordEdits applies rule to the invoice as stored now (after) and saves it when the
// rule recorded something; a concurrent change makes it read the invoice again. It
// returns the invoice as stored.
func recordEdits(ctx context.Context, d *api.Deps, r *apigw.Request, before, after model.Invoice, rule editRule) (model.Invoice, error) {
	author, err := actingMember(ctx, d, r.AccountID)
	if err != nil {
		return model.Invoice{}, err
	}
	for range statusAttempts {
		next := cloneInvoice(after)
		if !rule(before, &next, model.Edit{Author: author, At: d.Now(), Path: r.Event.RouteKey}) {
			return after, nil
		}
		next.UpdatedAt = d.Now()
		switch err := storage(d).SaveInvoice(ctx, after, next); {
		case err == nil:
			return next, nil
		case !errors.Is(err, store.ErrConflict):
			return model.Invoice{}, err
		}
		if after, err = storage(d).GetInvoice(ctx, r.AccountID, after.UUID); err != nil {
			return model.Invoice{}, err
		}
	}
	return model.Invoice{}, fmt.Errorf("record edit of %s: the invoice kept changing", after.UUID)
}

// invoiceEdit compares the invoices' own fields.
func invoiceEdit(before model.Invoice, next *model.Invoice, e model.Edit) bool {
	e.Before, e.After = before.EditableFields(), next.EditableFields()
	return next.UserEdits.Record(e)
}

// recordEdit compares the kind's record uuid in both invoices.
func (k recordKind) recordEdit(uuid string) editRule {
	return func(before model.Invoice, next *model.Invoice, e model.Edit) bool {
		i, j := k.find(&before, uuid), k.find(next, uuid)
		if i < 0 || j < 0 {
			return false
		}
		e.Before, e.After = k.fields(before, i), k.fields(*next, j)
		return k.edits(next, j).Record(e)
	}
}

// wholeInvoiceEdit compares the invoice and each of its line items and transactions
// that both versions have; the records only next has are user-created.
func wholeInvoiceEdit(before model.Invoice, next *model.Invoice, e model.Edit) bool {
	changed := invoiceEdit(before, next, e)
	for _, k := range []recordKind{lineItems(), transactions()} {
		for j := range k.count(*next) {
			uuid := k.uuidOf(next.AccountID, next.DataSourceUUID, next.UUID, k.key(*next, j))
			if k.find(&before, uuid) < 0 {
				changed = markUserCreated(k.edits(next, j)) || changed
				continue
			}
			changed = k.recordEdit(uuid)(before, next, e) || changed
		}
	}
	return changed
}

// createdByUser marks the invoice and all its records user-created.
func createdByUser(_ model.Invoice, next *model.Invoice, _ model.Edit) bool {
	changed := markUserCreated(&next.UserEdits)
	for _, k := range []recordKind{lineItems(), transactions()} {
		for j := range k.count(*next) {
			changed = markUserCreated(k.edits(next, j)) || changed
		}
	}
	return changed
}

// recordsCreatedByUser marks the kind's records uuids user-created.
func (k recordKind) recordsCreatedByUser(uuids []string) editRule {
	return func(_ model.Invoice, next *model.Invoice, _ model.Edit) bool {
		changed := false
		for _, uuid := range uuids {
			if j := k.find(next, uuid); j >= 0 {
				changed = markUserCreated(k.edits(next, j)) || changed
			}
		}
		return changed
	}
}

func markUserCreated(u *model.UserEdits) bool {
	if u.UserCreated {
		return false
	}
	u.UserCreated = true
	return true
}
