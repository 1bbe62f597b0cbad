package api

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/subsight/subsight/shared/apigw"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/jsonobj"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/store"
)

// Listing is what a listing reads from its query string besides cursor and per_page:
// the scope its filters make (a cursor only continues the listing and filters that
// made it), the names of its other parameters (filters, flags, and paging parameters
// of its own such as start-after), and whether it serves ChartMogul's legacy page=N.
type Listing struct {
	Scope  string
	Params []string
	Legacy bool
}

// Paging is where a listing request starts. Every listing reads it with ReadCursor and
// answers through Render, which writes its cursor, so the paging parameters are read and
// written in one place (docs/api.md, "Pagination").
type Paging struct {
	scope   string
	Start   store.PageToken // nil: from the beginning (of the page=N walk)
	PerPage int
	// Page is the page number the answer names: 1, or N for page=N; 0 when a cursor
	// was sent (the answer then carries no legacy page keys).
	Page int
}

// Bounds of the legacy page=N walk: page N reads the (N-1)×per_page entries before it,
// so at most maxLegacySkip entries are skipped (page 51 at 200 per page), in reads of
// at most legacySkipChunk entries, and at most maxLegacySkipReads of them (a listing
// that bounds its reads per call can return fewer entries than asked).
const (
	maxLegacySkip      = 10000
	legacySkipChunk    = 1000
	maxLegacySkipReads = 40
)

// ReadCursor is the one reader of a listing's paging parameters. per_page: default
// 200, larger is 200, below 1 or not a whole number a 400. cursor: no cursor (or an
// empty one) is the first page; a cursor that this account did not get from this
// listing, or that names another account's partition, is a 400. page (legacy listings
// only): a whole number from 1, not with a cursor, and at most maxLegacySkip entries
// before it. Any other parameter that names a way of paging (page, offset, limit,
// start-after, ...) that the listing does not serve is a 400 rather than ignored, so
// that no consumer can loop on a first page.
func ReadCursor(d *Deps, r *apigw.Request, l Listing) (Paging, error) {
	p := Paging{scope: l.Scope, Page: 1}
	for name := range r.Event.QueryStringParameters {
		if name == "cursor" || name == "per_page" || slices.Contains(l.Params, name) || (l.Legacy && name == "page") {
			continue
		}
		if pagingParam(name) {
			return p, apperr.BadRequest(name, "Parameter %q is not supported by this listing: page with cursor and per_page", name)
		}
	}
	var err error
	if p.PerPage, err = r.PerPage(); err != nil {
		return p, err
	}
	raw := r.Query("cursor")
	if l.Legacy && r.HasQuery("page") {
		if raw != "" {
			return p, apperr.BadRequest("page", "Parameter \"page\" cannot be combined with \"cursor\"")
		}
		n, err := strconv.Atoi(r.Query("page"))
		if err != nil || n < 1 {
			return p, apperr.BadRequest("page", "Invalid value for parameter \"page\": %q", r.Query("page"))
		}
		if (n-1)*p.PerPage > maxLegacySkip {
			return p, apperr.BadRequest("page", "Parameter \"page\" is too large: page × per_page may not pass %d entries; "+
				"continue with the cursor of an earlier page", maxLegacySkip)
		}
		p.Page = n
		return p, nil
	}
	if raw == "" {
		return p, nil
	}
	position, err := d.Cursors.Decode(r.AccountID, l.Scope, raw)
	// A correctly signed cursor is checked again: its token may name only the account's
	// partitions, and well-formed positions.
	if err != nil || !keys.PositionOwnedBy(position, r.AccountID) || !store.PageToken(position).WellFormed() {
		return p, apperr.BadRequest("cursor", "Invalid cursor")
	}
	p.Start, p.Page = position, 0
	return p, nil
}

// NoPaging is ReadCursor's check for a listing that is not paged (data sources): every
// paging parameter is a 400.
func NoPaging(r *apigw.Request) error {
	for name := range r.Event.QueryStringParameters {
		if pagingParam(name) {
			return apperr.BadRequest(name, "Parameter %q is not supported: this listing is not paged", name)
		}
	}
	return nil
}

// pagingWords are the names (lower case, without - _ [ ]) of query parameters that ask
// for a page in one API or another; a name containing pagingStems is one too.
var (
	pagingWords = []string{"skip", "start", "since", "sinceid", "until", "next", "size", "count", "from",
		"max", "maxresults", "top", "first", "last", "take"}
	pagingStems = []string{"page", "cursor", "offset", "limit", "after", "before", "token"}
)

// pagingParam tells whether a query parameter's name asks for a page.
func pagingParam(name string) bool {
	n := strings.Map(func(r rune) rune {
		if strings.ContainsRune("-_[]. ", r) {
			return -1
		}
		return r
	}, strings.ToLower(name))
	if slices.Contains(pagingWords, n) {
		return true
	}
	for _, s := range pagingStems {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// Legacy tells whether the answer carries the legacy page keys: no cursor was sent
// (the first page, or page=N).
func (p Paging) Legacy() bool { return p.Page > 0 }

// Skipped is how many entries come before the page asked for with page=N.
func (p Paging) Skipped() int { return max(p.Page-1, 0) * p.PerPage }

// nextCursor is the one writer of cursors: the signed cursor of where the listing
// continues (a page's Next); nil when next is.
func (p Paging) nextCursor(d *Deps, r *apigw.Request, next store.PageToken) (*string, error) {
	return d.Cursors.Encode(r.AccountID, p.scope, next)
}

// TotalPages is a legacy total_pages: exact (at least 1) when the listing knows its
// size or the page reaches its end, null otherwise.
func TotalPages[T any](p Paging, page store.Page[T]) any {
	switch {
	case page.TotalKnown:
		return max(1, (page.Total+p.PerPage-1)/p.PerPage)
	case !page.HasMore:
		return max(1, (p.Skipped()+len(page.Items)+p.PerPage-1)/p.PerPage)
	}
	return nil
}

// ReadPage reads the page the request asks for with list (the listing's store call:
// up to limit entries after start). For page=N it first reads past the (N-1)×per_page
// entries before it, so that page costs what walking there costs, within the bounds
// above; a page beyond the end is empty, without more, and knows the listing's size.
func ReadPage[T any](p Paging, list func(limit int, start store.PageToken) (store.Page[T], error)) (store.Page[T], error) {
	start, want := p.Start, p.Skipped()
	for skipped, reads := 0, 0; skipped < want; reads++ {
		if reads == maxLegacySkipReads {
			return store.Page[T]{}, apperr.BadRequest("page", "Parameter \"page\" is too large for this filter: "+
				"continue with the cursor of an earlier page")
		}
		part, err := list(min(want-skipped, legacySkipChunk), start)
		if err != nil {
			return part, err
		}
		skipped += len(part.Items)
		if !part.HasMore {
			return store.Page[T]{Items: []T{}, Total: skipped, TotalKnown: true}, nil
		}
		start = part.Next
	}
	return list(p.PerPage, start)
}

// FilteredListing is the listing name whose filters are the query parameters named:
// their values make its scope.
func FilteredListing(r *apigw.Request, name string, filters []string) Listing {
	values := map[string]string{}
	for _, f := range filters {
		values[f] = r.Query(f)
	}
	return Listing{Scope: ListScope(name, values), Params: filters}
}

// ListScope names a listing and its filters (the non-empty ones).
func ListScope(name string, filters map[string]string) string {
	v := url.Values{}
	for k, f := range filters {
		if f != "" {
			v.Set(k, f)
		}
	}
	return name + "?" + v.Encode()
}

// Page is one page of a listing as its answer shows it; every listing answers through
// Paging.Render.
type Page struct {
	// Head comes before the entries (a customer's Import-API records: customer_uuid).
	Head jsonobj.Object
	// Key names the entries ("entries", "plans", ...).
	Key     string
	Entries any
	// Legacy are the keys of the first page and of page=N (not of a page after a
	// cursor) that follow the entries; LegacyAfterHasMore those that follow has_more
	// where the layout puts has_more before the cursor.
	Legacy, LegacyAfterHasMore jsonobj.Object
	// Next is where the listing continues (a store page's Next), HasMore whether it does.
	Next    store.PageToken
	HasMore bool
	Layout  Layout
	// CursorOnlyWithMore leaves the cursor null on the last page whatever Next is.
	CursorOnlyWithMore bool
}

// Layout is where a listing's answer puts has_more and the cursor, as ChartMogul's
// recorded answers do.
type Layout int

const (
	// CursorThenHasMore ends every page with cursor, has_more.
	CursorThenHasMore Layout = iota
	// LegacyHasMoreThenCursor ends the first page and page=N with has_more,
	// LegacyAfterHasMore, cursor, and a page after a cursor as CursorThenHasMore
	// (customers, a customer's subscriptions and activities).
	LegacyHasMoreThenCursor
	// HasMoreThenCursor ends every page with has_more, LegacyAfterHasMore, cursor (the
	// account's activities).
	HasMoreThenCursor
)

// Render is the one writer of a listing's page: 200 with head, the entries, the
// legacy keys on the first page and page=N, and the signed cursor of where the
// listing continues and has_more, in the page's layout.
func (p Paging) Render(d *Deps, r *apigw.Request, page Page) (apigw.Response, error) {
	var cursor *string
	if page.HasMore || !page.CursorOnlyWithMore {
		c, err := p.nextCursor(d, r, page.Next)
		if err != nil {
			return apigw.Response{}, err
		}
		cursor = c
	}
	body := append(slices.Clone(page.Head), jsonobj.Field{Key: page.Key, Value: page.Entries})
	legacy := p.Legacy()
	if legacy {
		body = append(body, page.Legacy...)
	}
	hasMore, next := jsonobj.Field{Key: "has_more", Value: page.HasMore}, jsonobj.Field{Key: "cursor", Value: cursor}
	if page.Layout == HasMoreThenCursor || page.Layout == LegacyHasMoreThenCursor && legacy {
		body = append(body, hasMore)
		if legacy {
			body = append(body, page.LegacyAfterHasMore...)
		}
		return apigw.JSON(http.StatusOK, append(body, next))
	}
	return apigw.JSON(http.StatusOK, append(body, next, hasMore))
}

// Each renders every item of a page.
func Each[T any](items []T, render func(T) any) []any {
	out := make([]any, len(items))
	for i, v := range items {
		out[i] = render(v)
	}
	return out
}

// PageCount is the legacy current_page and total_pages of a listing that counts its
// pages (plans, plan groups, a plan group's plans, one customer's Import-API records),
// on the first page and page=N only: total_pages is exact when the listing knows its
// size or the page reaches its end, else count's (null without count).
func PageCount[T any](p Paging, page store.Page[T], count func() (int, error)) (jsonobj.Object, error) {
	if !p.Legacy() {
		return nil, nil
	}
	var total any
	switch {
	case page.TotalKnown:
		total = (page.Total + p.PerPage - 1) / p.PerPage
	case !page.HasMore:
		total = (p.Skipped() + len(page.Items) + p.PerPage - 1) / p.PerPage
	case count != nil:
		n, err := count()
		if err != nil {
			return nil, err
		}
		total = (n + p.PerPage - 1) / p.PerPage
	}
	return jsonobj.Object{{Key: "current_page", Value: p.Page}, {Key: "total_pages", Value: total}}, nil
}
