// Package metricsfilter answers the filters of a Metrics API request (`geo`, `plans`
// and the ChartMogul Filter Language in `filters`) with the aggregate of the series
// they select, which series.Compute turns into the answer. It has no AWS code: it
// reads through Storage and the account series.
//
// Two ways, chosen per request (docs/metrics-api.md, "Filters"):
//
//   - Stored series: countries and plans (from `geo`, `plans`, and CFL's region,
//     country, plan and plan_group conditions) read the pre-aggregated country, plan
//     and plan-combination segments: a bounded number of requests, whatever the number
//     of customers.
//   - Selected customers: any other CFL condition selects customers by attribute. The
//     account's customers are read (the listing's shards at once), the condition is
//     checked on each, and the matching customers' own contributions (their series
//     records, 100 per BatchGetItem) are summed: exactly the series of an account
//     holding only them. At most MaxCustomers may match, in an account of at most
//     MaxListed customers; more is a 400.
package metricsfilter

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/apperr"
	"github.com/subsight/subsight/shared/cfl"
	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/metrics/series"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// Storage is what the filters read besides the series.
type Storage interface {
	store.Plans
	store.PlanGroups
	store.AttributeDefinitions
	EachCustomer(ctx context.Context, accountID string, fn func(model.Customer) error) error
}

// Bounds of one request.
const (
	// MaxSegments bounds the country × plan pairs of the stored-series way.
	MaxSegments = 100
	// MaxSeriesRead bounds the stored series one request reads: the country × plan
	// pairs plus the plan-combination series (accountseries.Series.FilterSegments).
	MaxSeriesRead = 300
	// MaxCustomers bounds the customers whose contributions one request sums, and
	// MaxListed the account's customers one request lists to find them: at their
	// measured CPU (docs/benchmarks.md, "Filtered metrics"), both at once take about 5 s
	// of the 10 s a Metrics API function has at 512 MB.
	MaxCustomers = 3000
	MaxListed    = 50000
)

// Request is a request's filters: countries (`geo`, upper case), plans (`plans`, as
// written: uuids, external ids or names) and the CFL expression (`filters`).
type Request struct {
	Countries []string
	Plans     []string
	Filters   string
}

// Reader answers filters on one store and its series.
type Reader struct {
	store  Storage
	series *accountseries.Series
}

// New is a Reader on st and its series.
func New(st Storage, s *accountseries.Series) *Reader { return &Reader{store: st, series: s} }

// Aggregate returns the aggregate of the series the request selects over [from, to]
// (civil dates of the account). A client's mistake is an *apperr.Error naming its
// parameter.
func (r *Reader) Aggregate(ctx context.Context, acc model.Account, req Request, from, to time.Time) (*series.Aggregate, error) {
	q, err := r.compile(ctx, acc, req.Filters)
	if err != nil {
		return nil, err
	}
	plans, restricted, err := r.plans(ctx, acc.ID, req.Plans, q.Plans)
	if err != nil {
		return nil, err
	}
	if restricted && len(plans) == 0 {
		return series.NewAggregate(), nil // the plans name nothing: the series of no customer
	}
	countries, onlyGeo := q.Countries()
	if !q.SelectsCustomers() || onlyGeo {
		switch {
		case !onlyGeo:
			countries = req.Countries
		case len(req.Countries) > 0: // geo and CFL countries: both hold
			countries = slices.DeleteFunc(countries, func(c string) bool { return !slices.Contains(req.Countries, c) })
		}
		if onlyGeo && len(countries) == 0 {
			return series.NewAggregate(), nil // no country passes every condition
		}
		return r.stored(ctx, acc.ID, countries, plans, from, to)
	}
	var matched []string
	listed := 0
	err = r.store.EachCustomer(ctx, acc.ID, func(c model.Customer) error {
		if listed++; listed > MaxListed {
			return errTooManyListed
		}
		if q.Matches(c) && (len(req.Countries) == 0 || slices.Contains(req.Countries, c.Country)) {
			if matched = append(matched, c.UUID); len(matched) > MaxCustomers {
				return errTooManyCustomers
			}
		}
		return nil
	})
	switch {
	case errors.Is(err, errTooManyCustomers):
		return nil, apperr.BadRequest("filters", "The filters select more than %d customers; narrow them "+
			"(geo, plans or more conditions)", MaxCustomers)
	case errors.Is(err, errTooManyListed):
		return nil, apperr.BadRequest("filters", "Filters on customer attributes are answered for accounts of up to %d "+
			"customers; this one has more (region, country, plan and plan_group conditions, geo and plans are not limited)", MaxListed)
	case err != nil:
		return nil, err
	}
	return r.series.LoadCustomers(ctx, acc.ID, matched, plans, from, to)
}

var (
	errTooManyCustomers = errors.New("too many customers")
	errTooManyListed    = errors.New("too many customers listed")
)

// compile parses and checks the CFL expression against the account's custom
// attributes and time zone; an empty expression selects everything.
func (r *Reader) compile(ctx context.Context, acc model.Account, expr string) (cfl.Query, error) {
	if expr == "" {
		return cfl.Query{}, nil
	}
	conds, err := cfl.Parse(expr)
	if err != nil {
		return cfl.Query{}, filtersError(err)
	}
	defs, err := r.store.AttrDefinitions(ctx, acc.ID, model.AttrObjectCustomer)
	if err != nil {
		return cfl.Query{}, err
	}
	schema := cfl.Schema{Custom: map[string]model.AttrType{}, Location: accountseries.Calendar(acc).Location}
	for key, d := range defs {
		schema.Custom[key] = d.Type
	}
	q, err := cfl.Compile(conds, schema)
	if err != nil {
		return cfl.Query{}, filtersError(err)
	}
	return q, nil
}

func filtersError(err error) error {
	var e *cfl.Error
	if errors.As(err, &e) {
		return apperr.BadRequest("filters", "Invalid value for parameter \"filters\": %s", e.Error())
	}
	return err
}

// stored reads the country, plan and plan-combination segments.
func (r *Reader) stored(ctx context.Context, accountID string, countries, plans []string, from, to time.Time) (*series.Aggregate, error) {
	if max(1, len(countries))*len(plans) > MaxSegments {
		return nil, apperr.BadRequest("plans", "The plans filter matches too many plans (at most %d combinations with geo)", MaxSegments)
	}
	segments, err := r.series.FilterSegments(ctx, accountID, countries, plans)
	if err != nil {
		return nil, err
	}
	if len(segments) > MaxSeriesRead {
		return nil, apperr.BadRequest("plans", "The geo and plans filters combine into %d stored series "+
			"(at most %d); ask for fewer plans or countries", len(segments), MaxSeriesRead)
	}
	return r.series.Load(ctx, accountID, segments, from, to)
}

// plans resolves the plan restriction: the `plans` parameter's plans, and the CFL plan
// and plan_group conditions' plans (any of them, as ChartMogul combines them), both
// when both are given. restricted is false when nothing restricts the plans.
func (r *Reader) plans(ctx context.Context, accountID string, tokens []string, conds []cfl.PlanCondition) (plans []string, restricted bool, err error) {
	if len(tokens) == 0 && len(conds) == 0 {
		return nil, false, nil
	}
	var all []string // the account's plans, read once if a NONE needs them
	var fromConds []string
	for _, c := range conds {
		named, err := r.named(ctx, accountID, c)
		if err != nil {
			return nil, true, err
		}
		if c.Negate {
			if all == nil {
				if all, err = r.allPlans(ctx, accountID); err != nil {
					return nil, true, err
				}
			}
			named = slices.DeleteFunc(slices.Clone(all), func(p string) bool { return slices.Contains(named, p) })
		}
		fromConds = union(fromConds, named)
	}
	if len(tokens) == 0 {
		return fromConds, true, nil
	}
	fromParam, err := r.resolve(ctx, accountID, tokens)
	if err != nil || len(conds) == 0 {
		return fromParam, true, err
	}
	return slices.DeleteFunc(fromParam, func(p string) bool { return !slices.Contains(fromConds, p) }), true, nil
}

// named is the plans a plan or plan_group condition names.
func (r *Reader) named(ctx context.Context, accountID string, c cfl.PlanCondition) ([]string, error) {
	if !c.Group {
		return r.resolve(ctx, accountID, c.Values)
	}
	var out []string
	for _, v := range c.Values {
		g, err := r.store.GetPlanGroup(ctx, accountID, v)
		if errors.Is(err, store.ErrNotFound) {
			continue // names no group: selects no plan
		}
		if err != nil {
			return nil, err
		}
		for _, p := range g.Plans {
			out = union(out, []string{p.UUID})
		}
	}
	return out, nil
}

// resolve maps plan names, external ids and uuids to plan uuids. Tokens that name no
// plan match nothing. Uuids cost one read, external ids one index query; names, which
// have no index, one pass over the account's plans, done only if some token was not
// found otherwise.
func (r *Reader) resolve(ctx context.Context, accountID string, tokens []string) ([]string, error) {
	var out, byName []string
	for _, tok := range tokens {
		if ids.Valid(tok, ids.Plan) {
			p, err := r.store.GetPlan(ctx, accountID, tok)
			if err == nil {
				out = union(out, []string{p.UUID})
				continue
			}
			if !errors.Is(err, store.ErrNotFound) {
				return nil, err
			}
		}
		page, err := r.store.ListPlans(ctx, accountID, store.PlanFilter{ExternalID: tok}, plansPage, nil)
		if err != nil {
			return nil, err
		}
		for _, p := range page.Items {
			out = union(out, []string{p.UUID})
		}
		if len(page.Items) == 0 {
			byName = append(byName, tok)
		}
	}
	if len(byName) == 0 {
		return out, nil
	}
	err := r.eachPlan(ctx, accountID, func(p model.Plan) {
		if slices.Contains(byName, p.Name) {
			out = union(out, []string{p.UUID})
		}
	})
	return out, err
}

// plansPage is how many plans one listing request reads.
const plansPage = 200

func (r *Reader) allPlans(ctx context.Context, accountID string) ([]string, error) {
	out := []string{}
	err := r.eachPlan(ctx, accountID, func(p model.Plan) { out = append(out, p.UUID) })
	return out, err
}

func (r *Reader) eachPlan(ctx context.Context, accountID string, fn func(model.Plan)) error {
	var start store.PageToken
	for {
		page, err := r.store.ListPlans(ctx, accountID, store.PlanFilter{}, plansPage, start)
		if err != nil {
			return err
		}
		for _, p := range page.Items {
			fn(p)
		}
		if !page.HasMore {
			return nil
		}
		start = page.Next
	}
}

// union appends the values of add that list lacks.
func union(list, add []string) []string {
	for _, v := range add {
		if !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}
