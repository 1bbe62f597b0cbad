package accountseries

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/metrics/series"
	"github.com/subsight/subsight/shared/parallel"
)

// Segments names the single-plan series a filter reads: geo and plans combine as every
// country × plan pair. A filter of several plans also needs the combination segments
// that FilterSegments adds.
func Segments(countries, planUUIDs []string) []string {
	switch {
	case len(countries) == 0 && len(planUUIDs) == 0:
		return []string{segmentAll}
	case len(planUUIDs) == 0:
		out := make([]string, len(countries))
		for i, c := range countries {
			out[i] = geoSegment(c)
		}
		return out
	case len(countries) == 0:
		out := make([]string, len(planUUIDs))
		for i, p := range planUUIDs {
			out[i] = planSegment(p)
		}
		return out
	}
	var out []string
	for _, c := range countries {
		for _, p := range planUUIDs {
			out = append(out, geoPlanSegment(c, planSegment(p)))
		}
	}
	return out
}

// WindowStart is the first day a query over [start, end] by interval needs: the start
// of the interval before the one containing start (the summary's "previous" and the
// churn rate of a period cut by start-date look that far back).
func WindowStart(cal series.Calendar, interval string, start time.Time) time.Time {
	return cal.PeriodStart(interval, cal.PeriodStart(interval, start).AddDate(0, 0, -1))
}

// Load reads the segments' buckets for a query window [from, to] (civil dates) into one
// aggregate that series.Compute answers exactly as if it held every customer's
// contribution: the day sums and lost counts of the window's months, and everything
// before the window folded into one opening bucket on the day before its first month.
// Per segment: one BatchGetItem (index and one year item) and one Query (the months).
// Segments are read loadConcurrency at a time.
func Load(ctx context.Context, d *app.Deps, accountID string, segments []string, from, to time.Time) (*series.Aggregate, error) {
	db := newDB(d)
	parts := make([]*series.Aggregate, len(segments))
	errs := make([]error, len(segments))
	parallel.For(len(segments), loadConcurrency, func(i int) {
		parts[i], errs[i] = db.loadSegment(ctx, keys.SeriesPartition(accountID, segments[i]), from, to)
	})
	agg := series.NewAggregate()
	for i, a := range parts {
		if errs[i] != nil {
			return nil, errs[i]
		}
		agg.Add(a, 1)
	}
	return agg, nil
}

// loadConcurrency bounds the segments read at once by one request (a filter of several
// countries and plans reads one segment per pair).
const loadConcurrency = 8

func (db *db) loadSegment(ctx context.Context, pk string, from, to time.Time) (*series.Aggregate, error) {
	firstMonth := time.Date(from.Year(), from.Month(), 1, 0, 0, 0, 0, time.UTC)
	openingMRR, openingCustomers, err := db.opening(ctx, pk, firstMonth)
	if err != nil {
		return nil, err
	}
	a := series.NewAggregate()
	if openingMRR != 0 || openingCustomers != 0 {
		a.Days[firstMonth.AddDate(0, 0, -1).Format(time.DateOnly)] = series.DayTotals{
			NewBusiness: openingMRR, CustomersChange: openingCustomers}
	}
	p := dynamodb.NewQueryPaginator(db.client, &dynamodb.QueryInput{
		TableName:              &db.table,
		KeyConditionExpression: aws.String("PK = :pk AND SK BETWEEN :lo AND :hi"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": s(pk),
			":lo": s(keys.SeriesMonthSK(firstMonth.Format("2006-01"))), ":hi": s(keys.SeriesMonthSK(to.Format("2006-01")))},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, item := range page.Items {
			if err := addMonthItem(a, item); err != nil {
				return nil, err
			}
		}
	}
	return a, nil
}

// opening sums the net MRR and customer changes of every month before firstMonth from
// the index item (whole years) and the year item of firstMonth's year (its months).
func (db *db) opening(ctx context.Context, pk string, firstMonth time.Time) (mrr, customers int64, err error) {
	year := firstMonth.Format("2006")
	out, err := db.client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{
		RequestItems: map[string]types.KeysAndAttributes{db.table: {Keys: []map[string]types.AttributeValue{
			keyOf(keys.Key{PK: pk, SK: keys.SeriesIndexSK}), keyOf(keys.Key{PK: pk, SK: keys.SeriesYearSK(year)}),
		}}},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	if err != nil {
		return 0, 0, err
	}
	if len(out.UnprocessedKeys) > 0 {
		return 0, 0, fmt.Errorf("accountseries: series read throttled")
	}
	for _, item := range out.Responses[db.table] {
		sk := item[keys.SK].(*types.AttributeValueMemberS).Value
		// Index attributes are m<yyyy>/c<yyyy>, year attributes m<mm>/c<mm>: both
		// before the window when their suffix sorts before the window's.
		limit := year
		if sk != keys.SeriesIndexSK {
			limit = firstMonth.Format("01")
		}
		for attr, v := range item {
			if len(attr) < 2 || (attr[0] != attrMRRNet[0] && attr[0] != attrCustomers[0]) || attr[1:] >= limit {
				continue
			}
			x, err := number(v)
			if err != nil {
				return 0, 0, err
			}
			if attr[0] == attrMRRNet[0] {
				mrr += x
			} else {
				customers += x
			}
		}
	}
	return mrr, customers, nil
}

// addMonthItem adds a month item's day sums and lost-customer counts to a.
func addMonthItem(a *series.Aggregate, item map[string]types.AttributeValue) error {
	sk := item[keys.SK].(*types.AttributeValueMemberS).Value
	month, err := time.Parse("2006-01", strings.TrimPrefix(sk, keys.SeriesMonthPrefix))
	if err != nil {
		return fmt.Errorf("accountseries: bad month item %q", sk)
	}
	day := func(dd string) (time.Time, bool) {
		n, err := strconv.Atoi(dd)
		if err != nil || n < 1 || n > 31 {
			return time.Time{}, false
		}
		return month.AddDate(0, 0, n-1), true
	}
	for attr, v := range item {
		if attr == keys.PK || attr == keys.SK || attr == keys.EntityType {
			continue
		}
		x, err := number(v)
		if err != nil {
			return err
		}
		if interval, dd, ok := lostOf(attr); ok {
			start := month
			if dd != "" {
				if start, ok = day(dd); !ok {
					continue
				}
			}
			a.Lost[series.PeriodKey{Interval: interval, Start: start.Format(time.DateOnly)}] += x
			continue
		}
		d, ok := day(attr[1:])
		if !ok || len(attr) != 3 {
			continue
		}
		key := d.Format(time.DateOnly)
		t := a.Days[key]
		switch attr[:1] {
		case attrNewBusiness:
			t.NewBusiness += x
		case attrExpansion:
			t.Expansion += x
		case attrContraction:
			t.Contraction += x
		case attrChurn:
			t.Churn += x
		case attrReactivation:
			t.Reactivation += x
		case attrFXImpact:
			t.ExchangeRateImpact += x
		case attrCustomers:
			t.CustomersChange += x
		case attrFirstPaying:
			t.NewCustomers += x
		}
		a.Days[key] = t
	}
	return nil
}

// lostOf recognises a lost-customer attribute: its interval and day-of-month suffix.
func lostOf(attr string) (interval, dd string, ok bool) {
	for iv, prefix := range lostAttr {
		if strings.HasPrefix(attr, prefix) {
			return iv, attr[len(prefix):], true
		}
	}
	return "", "", false
}

func number(v types.AttributeValue) (int64, error) {
	nv, ok := v.(*types.AttributeValueMemberN)
	if !ok {
		return 0, fmt.Errorf("accountseries: bucket attribute is not a number")
	}
	return strconv.ParseInt(nv.Value, 10, 64)
}
