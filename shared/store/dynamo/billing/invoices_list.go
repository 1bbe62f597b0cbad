package billing

import (
	"cmp"
	"context"
	"slices"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/crm"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// invoicePosition is where an invoice listing stopped: every invoice of customer
// customerUUID up to (date, uuid) was read, all of them when uuid is empty, and none
// of a later customer. customerKey is that customer's token in the customer listing,
// where the customers that follow start (nil for a one-customer listing).
type invoicePosition struct {
	customerKey  store.PageToken
	customerUUID string
	date         int64 // the invoice date (Unix seconds), as the billing index has it
	uuid         string
}

// invoicePageRequests bounds the DynamoDB requests one page starts; a round of the walk
// (customers, their indexes, the next invoices) costs two to five.
const invoicePageRequests = 8

// ListInvoices reads one page of the account's invoices from start: customer by
// customer in the customer listing's order, and within a customer by date, then uuid.
// Next is where the next page starts: after the last invoice returned, or where the
// reading stopped when HasMore; nil for an empty last page. Total is known only when
// it costs no more requests. Invoices have no account-wide index (one would double
// their write cost), so a round reads a slice of customers (one Query), their billing
// indexes (one BatchGetItem) and the next invoices (one BatchGetItem per 100). The
// rounds stop at invoicePageRequests requests: a page that is not full by then comes
// back short, with HasMore and Next where the reading stopped. An external id needs no
// walk: its invoice uuid is derived, one per data source.
func (s *Store) ListInvoices(ctx context.Context, accountID string, f store.InvoiceFilter, limit int, start store.PageToken) (store.Page[model.Invoice], error) {
	after, err := invoicePositionOf(start)
	if err != nil {
		return store.Page[model.Invoice]{}, err
	}
	var p invoicePage
	if f.ExternalID != "" {
		p, err = s.invoicesByExternalID(ctx, accountID, f, limit, after)
	} else {
		w := &invoiceWalk{s: s, accountID: accountID, f: f, limit: limit}
		p, err = w.run(ctx, after)
	}
	return store.Page[model.Invoice]{Items: p.invoices, Next: invoiceToken(p.next), HasMore: p.hasMore, Total: p.total,
		TotalKnown: p.totalKnown}, err
}

// invoicePage is a page of ListInvoices before its position becomes a token.
type invoicePage struct {
	invoices   []model.Invoice
	next       *invoicePosition
	hasMore    bool
	total      int
	totalKnown bool
}

func (s *Store) invoicesByExternalID(ctx context.Context, accountID string, f store.InvoiceFilter, limit int, after *invoicePosition) (invoicePage, error) {
	sources := []string{f.DataSourceUUID}
	if f.DataSourceUUID == "" {
		all, err := s.dataSources.ListDataSources(ctx, accountID)
		if err != nil {
			return invoicePage{}, err
		}
		sources = sources[:0]
		for _, ds := range all {
			sources = append(sources, ds.UUID)
		}
	}
	uuids := make([]string, len(sources))
	for i, ds := range sources {
		uuids[i] = model.InvoiceUUID(accountID, ds, f.ExternalID)
	}
	found, err := s.GetInvoices(ctx, accountID, uuids)
	if err != nil {
		return invoicePage{}, err
	}
	var all []invoicePosition
	for _, inv := range found {
		if f.CustomerUUID == "" || inv.CustomerUUID == f.CustomerUUID {
			all = append(all, invoicePosition{customerUUID: inv.CustomerUUID, date: inv.Date.Unix(), uuid: inv.UUID})
		}
	}
	slices.SortFunc(all, comparePosition)
	p := invoicePage{total: len(all), totalKnown: true}
	for i, at := range all {
		if after != nil && comparePosition(at, *after) <= 0 {
			continue
		}
		if len(p.invoices) == limit {
			p.hasMore = true
			break
		}
		p.invoices = append(p.invoices, found[at.uuid])
		p.next = &all[i]
	}
	return p, nil
}

// comparePosition orders invoices by date, then uuid.
func comparePosition(a, b invoicePosition) int {
	if c := cmp.Compare(a.date, b.date); c != 0 {
		return c
	}
	return cmp.Compare(a.uuid, b.uuid)
}

// customerRef is a customer whose invoices the walk lists.
type customerRef struct {
	uuid string
	key  store.PageToken // in the customer listing
}

// invoiceWalk is one page of ListInvoices without an external id.
type invoiceWalk struct {
	s         *Store
	accountID string
	f         store.InvoiceFilter
	limit     int
	requests  int
	nextKey   store.PageToken // where the customers not yet read start
	done      bool            // no customers left to read
	indexed   int             // invoices in the indexes read
	batch     int             // customers the next Query reads at least
	batchEnd  invoicePosition // the end of the last customers read
}

func (w *invoiceWalk) run(ctx context.Context, after *invoicePosition) (invoicePage, error) {
	var refs []customerRef
	var trim *invoicePosition // the customer the page resumes in, and where
	switch {
	case w.f.CustomerUUID != "":
		w.done = true
		if after == nil || after.uuid != "" {
			refs, trim = []customerRef{{uuid: w.f.CustomerUUID}}, after
		}
	case after != nil:
		w.nextKey = after.customerKey
		if after.uuid != "" {
			refs, trim = []customerRef{{uuid: after.customerUUID, key: after.customerKey}}, after
		}
	}
	var got []model.Invoice
	var gotAt, pending []invoicePosition
	var read invoicePosition // the last position consumed
	for len(got) <= w.limit && w.requests < invoicePageRequests {
		if len(pending) == 0 {
			if len(refs) == 0 {
				if w.done {
					break
				}
				var err error
				if refs, err = w.nextCustomers(ctx, w.limit+1-len(got)); err != nil {
					return invoicePage{}, err
				}
				if len(refs) == 0 {
					read = invoicePosition{customerKey: w.nextKey}
				}
				continue
			}
			var err error
			if pending, err = w.candidates(ctx, refs, trim); err != nil {
				return invoicePage{}, err
			}
			refs, trim, read = nil, nil, w.batchEnd
			continue
		}
		take := pending[:min(len(pending), w.limit+1-len(got))]
		uuids := make([]string, len(take))
		for i, c := range take {
			uuids[i] = c.uuid
		}
		found, err := w.s.GetInvoices(ctx, w.accountID, uuids)
		if err != nil {
			return invoicePage{}, err
		}
		w.requests += (len(uuids) + 99) / 100
		for _, c := range take {
			inv, ok := found[c.uuid]
			if ok && inv.CustomerUUID == c.customerUUID && (w.f.DataSourceUUID == "" || inv.DataSourceUUID == w.f.DataSourceUUID) {
				got, gotAt = append(got, inv), append(gotAt, c)
			}
			read = c
		}
		if pending = pending[len(take):]; len(pending) == 0 {
			read = w.batchEnd
		}
	}
	p := invoicePage{invoices: got}
	switch {
	case len(got) > w.limit:
		p.invoices, p.hasMore, p.next = got[:w.limit], true, &gotAt[w.limit-1]
	case len(pending) > 0 || len(refs) > 0 || !w.done:
		p.hasMore, p.next = true, &read
	case len(got) > 0:
		p.next = &gotAt[len(got)-1]
	}
	if after == nil {
		switch {
		case !p.hasMore:
			p.total, p.totalKnown = len(got), true
		case w.f.DataSourceUUID == "" && w.done && len(refs) == 0:
			// Every index was read (an index of a merged customer lists all its sources).
			p.total, p.totalKnown = w.indexed, true
		}
	}
	return p, nil
}

// nextCustomers reads more customers of the listing with one Query: n, or four
// times as many as the last time when that was not enough (customers without
// invoices), at most 100 (one BatchGetItem of their indexes).
func (w *invoiceWalk) nextCustomers(ctx context.Context, n int) ([]customerRef, error) {
	q := crm.CustomerQuery(w.accountID, store.CustomerFilter{DataSourceUUID: w.f.DataSourceUUID})
	q.MaxRequests = 1
	n = min(max(n, w.batch), 100)
	w.batch = n * 4
	page, err := table.ShardedPage(ctx, w.s.t, q, n, w.nextKey, crm.CustomerItem.Customer, nil)
	if err != nil {
		return nil, err
	}
	w.requests += len(q.PKs)
	w.nextKey, w.done = page.Next, !page.HasMore
	refs := make([]customerRef, len(page.Items))
	for i, c := range page.Items {
		refs[i] = customerRef{uuid: c.UUID, key: store.PageToken{keys.GSI1SK: keys.CustomerOrder(c.ID)}}
	}
	return refs, nil
}

// candidates reads the billing indexes of refs (one BatchGetItem per 100) and lists
// their invoices in listing order, those of trim's customer after trim.
func (w *invoiceWalk) candidates(ctx context.Context, refs []customerRef, trim *invoicePosition) ([]invoicePosition, error) {
	keyList := make([]map[string]types.AttributeValue, len(refs))
	for i, r := range refs {
		keyList[i] = table.KeyAttrs(keys.BillingIndex(w.accountID, r.uuid))
	}
	raw, err := w.s.t.BatchGet(ctx, keyList)
	if err != nil {
		return nil, err
	}
	w.requests += (len(keyList) + 99) / 100
	var items []BillingIndexItem
	if err := attributevalue.UnmarshalListOfMaps(raw, &items); err != nil {
		return nil, err
	}
	byPK := make(map[string]BillingIndexItem, len(items))
	for _, it := range items {
		byPK[it.PK] = it
	}
	var out []invoicePosition
	for _, r := range refs {
		idx := byPK[keys.BillingIndex(w.accountID, r.uuid).PK].Index(w.accountID, r.uuid)
		w.indexed += len(idx.Invoices)
		for _, u := range idx.SortedInvoiceUUIDs() {
			at := invoicePosition{customerKey: r.key, customerUUID: r.uuid, date: idx.Invoices[u], uuid: u}
			if trim == nil || r.uuid != trim.customerUUID || comparePosition(at, *trim) > 0 {
				out = append(out, at)
			}
		}
	}
	last := refs[len(refs)-1]
	w.batchEnd = invoicePosition{customerKey: last.key, customerUUID: last.uuid}
	return out, nil
}
