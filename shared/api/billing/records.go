package billing

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/timefmt"
)

// The billing records a client can disable (invoices, line items, transactions and
// subscription events) share the mechanics of their operations: each is found by its
// id in the path or by data_source_uuid and external_id, PATCH …/disabled_state
// toggles it through setDisabled, and its customer is recomputed afterwards
// (docs/api.md, "Disabled records").

// externalRef reads the data_source_uuid and external_id that name a record instead of
// its uuid (query parameters; chartmogul-python sends an event's in the body, given in
// sent) and checks the data source.
func externalRef(ctx context.Context, d *api.Deps, r *apigw.Request, sent disabledBody) (dsUUID, externalID string, err error) {
	dsUUID, externalID = r.Query("data_source_uuid"), r.Query("external_id")
	if dsUUID == "" {
		dsUUID = sent.DataSourceUUID
	}
	if externalID == "" {
		externalID = sent.ExternalID
	}
	if dsUUID == "" {
		return "", "", apperr.MissingParam("data_source_uuid")
	}
	if externalID == "" {
		return "", "", apperr.MissingParam("external_id")
	}
	if _, err := api.DataSource(ctx, d, r.AccountID, dsUUID); err != nil {
		return "", "", err
	}
	return dsUUID, externalID, nil
}

// disabledFields render a record's disabled state as ChartMogul's newer records carry
// it: disabled, disabled_at (UTC, milliseconds) and disabled_by (null while enabled).
func disabledFields(s model.DisabledState) []jsonobj.Field {
	var by any
	if s.DisabledBy != "" {
		by = s.DisabledBy
	}
	return []jsonobj.Field{{Key: "disabled", Value: s.Disabled}, {Key: "disabled_at", Value: timefmt.MillisPtr(s.DisabledAt)},
		{Key: "disabled_by", Value: by}}
}

// actingMember is whom a change made through the API is attributed to (disabled_by):
// as for a note without author_email, the account's first team member, since API keys
// belong to the account and not to a person; none without a team member.
func actingMember(ctx context.Context, d *api.Deps, accountID string) (string, error) {
	members, err := storage(d).ListMembers(ctx, accountID)
	if err != nil {
		return "", err
	}
	m, _ := model.FirstMember(members)
	return m.Email, nil
}

// disabledBody is the body of PATCH …/disabled_state.
type disabledBody struct {
	Disabled       *bool  `json:"disabled"`
	DataSourceUUID string `json:"data_source_uuid"`
	ExternalID     string `json:"external_id"`
}

// disabling is one kind of record's part in PATCH …/disabled_state.
type disabling[T any] struct {
	// find reads the record the request (with its body) names; a 4xx when there is none.
	find func(ctx context.Context, b disabledBody) (T, error)
	// state returns the disabled state of next, a copy of the record found that may be
	// changed without touching it.
	state func(next *T) *model.DisabledState
	// save writes next over old, ErrConflict when the record changed since it was read.
	save func(ctx context.Context, old, next T) error
	// owner is the record's customer and what tells this change from others (the
	// recomputation's nonce).
	owner  func(T) (customerUUID, version string)
	render func(T) jsonobj.Object
}

// setDisabled is PATCH …/disabled_state for every kind of record: the body
// {"disabled": true|false} sets the state (setting the current state again changes
// nothing), the customer is recomputed so that the record stops or starts counting
// (docs/metrics-engine.md §1.7), and the answer is 200 with the record.
func setDisabled[T any](ctx context.Context, d *api.Deps, r *apigw.Request, k disabling[T]) (apigw.Response, error) {
	var b disabledBody
	if err := r.Decode(&b); err != nil {
		return apigw.Response{}, err
	}
	if b.Disabled == nil {
		return apigw.Response{}, apperr.MissingParam("disabled")
	}
	by := ""
	if *b.Disabled {
		var err error
		if by, err = actingMember(ctx, d, r.AccountID); err != nil {
			return apigw.Response{}, err
		}
	}
	for range statusAttempts {
		old, err := k.find(ctx, b)
		if err != nil {
			return apigw.Response{}, err
		}
		next := old
		if k.state(&next).SetDisabled(*b.Disabled, d.Now(), by) {
			if err := k.save(ctx, old, next); errors.Is(err, store.ErrConflict) {
				continue
			} else if err != nil {
				return apigw.Response{}, err
			}
		}
		// Sent also when nothing changed: a retry after a failed send must still
		// recompute; the nonce names the stored state, so repeats are deduplicated.
		customerUUID, version := k.owner(next)
		job := jobs.Recompute(r.AccountID, customerUUID, "disabled:"+strconv.FormatBool(*b.Disabled)+":"+version)
		if err := d.Jobs.Send(ctx, job); err != nil {
			return apigw.Response{}, err
		}
		return apigw.JSON(http.StatusOK, k.render(next))
	}
	return apigw.Response{}, errors.New("set disabled state: the record kept changing")
}

// heldRecord is a line item or transaction with the invoice that holds it (they are
// stored inside their invoice).
type heldRecord struct {
	inv  model.Invoice
	uuid string
}

// recordKind is what the line item and transaction operations need to know of their
// kind of record; lineItems and transactions are the two.
type recordKind struct {
	name       string // in messages: "Line item"
	param      string // of the 404
	prefix     string // of the uuid
	pathParam  string
	payloadKey string // of json_imports
	uuidOf     func(accountID, dsUUID, invoiceUUID, key string) string
	find       func(inv *model.Invoice, uuid string) int
	count      func(inv model.Invoice) int
	key        func(inv model.Invoice, index int) string
	state      func(inv *model.Invoice, index int) *model.DisabledState
	edits      func(inv *model.Invoice, index int) *model.UserEdits
	fields     func(inv model.Invoice, index int) map[string]any // as edits compare them
	remove     func(inv model.Invoice, index int) model.Invoice
	json       func(inv model.Invoice, index int) jsonobj.Object
	// created renders the answer to adding the record when it differs from json.
	created func(inv model.Invoice, index int) jsonobj.Object
	// revise follows a change (to now) or removal (now nil) of the record at index of
	// inv (as it was) in the customer's other records.
	revise func(ctx context.Context, d *api.Deps, inv model.Invoice, index int, now *model.Invoice) error
}

func (k recordKind) notFound() *apperr.Error {
	return apperr.NotFound(k.param, "%s not found", k.name)
}

// locate finds the record the request names: by the uuid in the path, or by the
// data_source_uuid and external_id of the query string (its uuid is derived from
// them, so both go through its locator).
func (k recordKind) locate(ctx context.Context, d *api.Deps, r *apigw.Request) (heldRecord, error) {
	uuid := r.PathParam(k.pathParam)
	if uuid == "" {
		dsUUID, ext, err := externalRef(ctx, d, r, disabledBody{})
		if err != nil {
			return heldRecord{}, err
		}
		uuid = k.uuidOf(r.AccountID, dsUUID, "", model.LineItemKey(ext, 0))
	}
	get := func(ctx context.Context, id string) (model.Invoice, error) {
		return storage(d).InvoiceOfRecord(ctx, r.AccountID, id)
	}
	inv, err := api.LoadByID(ctx, uuid, k.prefix, errInvalidInvoiceUUID(), k.notFound(), get)
	if err != nil {
		return heldRecord{}, err
	}
	return heldRecord{inv: inv, uuid: uuid}, nil
}

// index is the record's position in its invoice (locate made sure it is there).
func (k recordKind) index(h heldRecord) int { return k.find(&h.inv, h.uuid) }

// render is the standalone record (GET /v1/line_items/{uuid} and the like): the
// record as its invoice shows it, with its disabled state.
func (k recordKind) render(h heldRecord) jsonobj.Object {
	i := k.index(h)
	return append(k.json(h.inv, i), disabledFields(*k.state(&h.inv, i))...)
}

// renderWithEdits is render with the record's edit_history_summary.
func (k recordKind) renderWithEdits(h heldRecord) jsonobj.Object {
	return append(k.render(h), invoiceView{edits: true}.editFields(*k.edits(&h.inv, k.index(h)))...)
}

// disabling is the kind's part in setDisabled: the record is saved with its invoice.
func (k recordKind) disabling(ctx context.Context, d *api.Deps, r *apigw.Request) disabling[heldRecord] {
	return disabling[heldRecord]{
		find: func(ctx context.Context, _ disabledBody) (heldRecord, error) { return k.locate(ctx, d, r) },
		state: func(next *heldRecord) *model.DisabledState {
			next.inv = cloneInvoice(next.inv)
			next.inv.UpdatedAt = d.Now()
			return k.state(&next.inv, k.index(*next))
		},
		save: func(ctx context.Context, old, next heldRecord) error {
			return storage(d).SaveInvoice(ctx, old.inv, next.inv)
		},
		owner: func(h heldRecord) (string, string) {
			return h.inv.CustomerUUID, h.uuid + ":" + version(h.inv.UpdatedAt.UnixNano())
		},
		render: k.render,
	}
}

// cloneInvoice copies the invoice's line items and transactions, so that a change of
// the copy leaves the invoice as read untouched.
func cloneInvoice(inv model.Invoice) model.Invoice {
	inv.LineItems = append([]model.LineItem(nil), inv.LineItems...)
	inv.Transactions = append([]model.Transaction(nil), inv.Transactions...)
	return inv
}

func version(n int64) string { return strconv.FormatInt(n, 10) }

// withRecords completes a kind with the accessors of the invoice's slice that holds its
// records.
func withRecords[T editable](k recordKind, list func(*model.Invoice) *[]T, key func(*T) string,
	state func(*T) *model.DisabledState, edits func(*T) *model.UserEdits, render func(T) jsonobj.Object) recordKind {
	k.count = func(inv model.Invoice) int { return len(*list(&inv)) }
	k.key = func(inv model.Invoice, i int) string { return key(&(*list(&inv))[i]) }
	k.state = func(inv *model.Invoice, i int) *model.DisabledState { return state(&(*list(inv))[i]) }
	k.edits = func(inv *model.Invoice, i int) *model.UserEdits { return edits(&(*list(inv))[i]) }
	k.fields = func(inv model.Invoice, i int) map[string]any { return (*list(&inv))[i].EditableFields() }
	k.remove = func(inv model.Invoice, i int) model.Invoice {
		l := list(&inv)
		*l = slices.Delete(*l, i, i+1)
		return inv
	}
	k.json = func(inv model.Invoice, i int) jsonobj.Object { return render((*list(&inv))[i]) }
	return k
}

// editable is a record whose edits are recorded.
type editable interface{ EditableFields() map[string]any }

// lineItems and transactions are functions, not package variables: a variable's
// initializer is linked into every binary of the package, and these reach the store's
// invoice code, which only the record operations need (docs/architecture.md).
func lineItems() recordKind {
	return withRecords(recordKind{name: "Line item", param: "line_item", prefix: ids.LineItem,
		pathParam: "line_item_uuid", payloadKey: "line_items", uuidOf: model.LineItemUUID,
		find: (*model.Invoice).LineItemIndex, revise: reviseLineItem},
		func(inv *model.Invoice) *[]model.LineItem { return &inv.LineItems },
		func(li *model.LineItem) string { return li.Key },
		func(li *model.LineItem) *model.DisabledState { return &li.DisabledState },
		func(li *model.LineItem) *model.UserEdits { return &li.UserEdits }, lineItemJSON)
}

func transactions() recordKind {
	return withRecords(recordKind{name: "Transaction", param: "transaction", prefix: ids.Transaction,
		pathParam: "transaction_uuid", payloadKey: "transactions", uuidOf: model.TransactionUUID,
		find:    (*model.Invoice).TransactionIndex,
		created: func(inv model.Invoice, i int) jsonobj.Object { return createdTransactionJSON(inv.Transactions[i]) }},
		func(inv *model.Invoice) *[]model.Transaction { return &inv.Transactions },
		func(t *model.Transaction) string { return t.Key },
		func(t *model.Transaction) *model.DisabledState { return &t.DisabledState },
		func(t *model.Transaction) *model.UserEdits { return &t.UserEdits }, transactionJSON)
}

// SetSubscriptionEventDisabled is PATCH /v1/subscription_events/{id}/disabled_state and
// PATCH /v1/subscription_events/disabled_state, which names the event by
// data_source_uuid and external_id in the body (chartmogul-python) or the query string.
func SetSubscriptionEventDisabled(d *api.Deps) apigw.Endpoint {
	return apigw.Endpoint{Family: apperr.FamilyB, Handler: func(ctx context.Context, r *apigw.Request) (apigw.Response, error) {
		find := func(ctx context.Context, sent disabledBody) (model.SubscriptionEvent, error) {
			if id := r.PathParam("id"); id != "" {
				return findEvent(ctx, d, r.AccountID, map[string]any{"id": id})
			}
			dsUUID, ext, err := externalRef(ctx, d, r, sent)
			if err != nil {
				return model.SubscriptionEvent{}, err
			}
			return findEvent(ctx, d, r.AccountID, map[string]any{"data_source_uuid": dsUUID, "external_id": ext})
		}
		return setDisabled(ctx, d, r, disabling[model.SubscriptionEvent]{
			find: find,
			state: func(next *model.SubscriptionEvent) *model.DisabledState {
				next.UpdatedAt = d.Now()
				return &next.DisabledState
			},
			save: storage(d).SaveSubscriptionEvent,
			owner: func(e model.SubscriptionEvent) (string, string) {
				return e.CustomerUUID, strconv.FormatInt(e.ID, 10) + ":" + version(e.UpdatedAt.UnixNano())
			},
			render: func(e model.SubscriptionEvent) jsonobj.Object {
				return append(eventJSON(e), disabledFields(e.DisabledState)...)
			},
		})
	}}
}
