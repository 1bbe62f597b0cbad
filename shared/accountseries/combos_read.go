package accountseries

import (
	"context"
	"slices"
	"strings"

	"github.com/subsight/subsight/shared/keys"
)

// FilterSegments names every stored series a metrics request with these filters reads:
// Segments, plus, when several plans are asked, the combination segments of those plans
// that some customer contributes to (in the asked countries). Finding them costs one
// Query of the combination registry, whose size depends on the plan combinations the
// account's customers have, not on their number.
func (s *Series) FilterSegments(ctx context.Context, accountID string, countries, planUUIDs []string) ([]string, error) {
	out := Segments(countries, planUUIDs)
	if len(planUUIDs) < 2 {
		return out, nil
	}
	combos, err := s.combinations(ctx, accountID)
	if err != nil {
		return nil, err
	}
	for _, c := range combos {
		if !allIn(c.plans, planUUIDs) {
			continue
		}
		seg := combosSegment(c.plans)
		if len(countries) == 0 {
			if c.customers[comboAttrAll] > 0 {
				out = append(out, seg)
			}
			continue
		}
		for _, country := range countries {
			if c.customers[comboAttrAll+country] > 0 {
				out = append(out, geoPlanSegment(country, seg))
			}
		}
	}
	return out, nil
}

func allIn(plans, set []string) bool {
	for _, p := range plans {
		if !slices.Contains(set, p) {
			return false
		}
	}
	return true
}

// combination is one registry entry: its plans and its customers per registry attribute.
type combination struct {
	plans     []string
	customers map[string]int64
}

// combinations reads the account's combination registry (eventually consistent: a
// combination registered a moment ago is, like its buckets, visible a moment later).
func (s *Series) combinations(ctx context.Context, accountID string) ([]combination, error) {
	registry, err := s.store.SeriesBucketsWithPrefix(ctx, accountID, segmentAll, keys.SeriesComboPrefix)
	if err != nil {
		return nil, err
	}
	out := make([]combination, 0, len(registry))
	for _, b := range registry {
		c := combination{plans: strings.Split(strings.TrimPrefix(b.SK, keys.SeriesComboPrefix), "+"),
			customers: map[string]int64{}}
		for attr, x := range b.Values {
			if strings.HasPrefix(attr, comboAttrAll) {
				c.customers[attr] = x
			}
		}
		out = append(out, c)
	}
	return out, nil
}
