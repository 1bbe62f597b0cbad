package accountseries

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/metrics/engine"
	"github.com/subsight/subsight/shared/metrics/series"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/parallel"
	"github.com/subsight/subsight/shared/store"
)

// Change is one customer's new result for ApplyBatch (Result nil: no movements).
type Change struct {
	Result *engine.Result
	Attrs  CustomerAttrs
	// Commit, when set, is written in the transaction of the customer's record (the
	// recomputation's new state, from the store); else Check goes there when the
	// record changes (that the state is still the one the result was computed against).
	// Either makes a recomputation that another one overtook write nothing here.
	Commit, Check store.SeriesGuard
	// ReadAt is when the recomputation began to read the customer's inputs; zero for
	// a caller that reads nothing else (a customer's removal).
	ReadAt time.Time
}

// writeConcurrency bounds the per-customer requests one batch runs at once.
const writeConcurrency = 10

// ApplyBatch makes the account's series and activity log reflect each customer's
// result, as Apply does for one, adding the customers' contributions together: their
// records and the sum of what they add to the buckets go in one transaction (a few
// when they do not fit in one), into the buckets of shard: 0, the read copy, or a bulk
// shard (keys.BulkSeriesShard). folds are what bulk shards hold of these customers
// and must be folded into the copy (Fold): what this call wrote, and, for a customer
// with nothing to write whose last contribution went to a bulk shard, that shard (its
// fold may not have been asked for, when the attempt that wrote it failed after).
// It returns one error per change; store.ErrSeriesChanged asks for a recomputation.
func (s *Series) ApplyBatch(ctx context.Context, acc model.Account, shard int, changes []Change) (folds []store.SeriesShardPart, errs []error) {
	errs = make([]error, len(changes))
	cal := Calendar(acc)
	uuids := make([]string, 0, len(changes))
	for i, c := range changes {
		if c.Attrs.UUID == "" {
			errs[i] = errors.New("accountseries: customer uuid is required")
			continue
		}
		uuids = append(uuids, c.Attrs.UUID)
	}
	records, err := s.store.GetSeriesRecords(ctx, acc.ID, uuids)
	if err != nil {
		return nil, fill(errs, err)
	}
	works := make([]*work, len(changes))
	parallel.For(len(changes), writeConcurrency, func(i int) {
		if errs[i] == nil {
			works[i], errs[i] = s.prepare(ctx, acc.ID, cal, shard, changes[i], records[changes[i].Attrs.UUID])
		}
	})
	touched := map[int]map[string]bool{}
	touch := func(shard int, segment string) {
		if shard == 0 {
			return
		}
		if touched[shard] == nil {
			touched[shard] = map[string]bool{}
		}
		touched[shard][segment] = true
	}
	var batch []*work
	for i, w := range works {
		if errs[i] != nil {
			continue
		}
		if w.write == nil {
			for k := range w.st.Cells {
				seg, _, _ := splitCell(k)
				touch(w.st.Shard, seg)
			}
		}
		if w.write != nil || changes[i].Commit.Kind != store.SeriesGuardNone {
			if w.write == nil {
				w.write = &store.SeriesRecordWrite{CustomerUUID: changes[i].Attrs.UUID, Old: w.st}
			}
			w.write.Guard = changes[i].Commit
			if w.write.Guard.Kind == store.SeriesGuardNone {
				w.write.Guard = changes[i].Check
			}
			w.i = i
			batch = append(batch, w)
		}
	}
	for _, tx := range packBatch(batch) {
		for len(tx) > 0 {
			records, adds := txOf(tx)
			conflicts, err := s.store.WriteSeriesBatch(ctx, acc.ID, shard, records, adds)
			if err != nil {
				for _, w := range tx {
					errs[w.i] = fmt.Errorf("accountseries: %w", err)
				}
				break
			}
			if len(conflicts) == 0 {
				for _, a := range adds {
					touch(shard, a.Segment)
				}
				for _, w := range tx {
					if w.write.Next != nil {
						w.st = *w.write.Next
					}
				}
				break
			}
			for _, j := range conflicts {
				errs[tx[j].i] = store.ErrSeriesChanged
			}
			tx = slices.DeleteFunc(tx, func(w *work) bool { return errs[w.i] != nil })
		}
	}
	parallel.For(len(changes), writeConcurrency, func(i int) {
		if w := works[i]; errs[i] == nil && !w.st.ActsDone {
			errs[i] = s.finishActivities(ctx, acc.ID, changes[i].Attrs.UUID, w)
		}
	})
	for _, sh := range slices.Sorted(maps.Keys(touched)) {
		folds = append(folds, store.SeriesShardPart{Shard: sh, Segments: slices.Sorted(maps.Keys(touched[sh]))})
	}
	return folds, errs
}

// work is one customer of a batch: its record as it stands, and the write that
// brings it to the customer's result (nil when the record already is).
type work struct {
	i     int
	st    store.SeriesRecord
	acts  []activity
	write *store.SeriesRecordWrite
	adds  []store.SeriesBucketAdd
}

// prepare computes what a customer's record and buckets need. A record left with
// pending chunks by an interrupted attempt has them finished first; a difference too
// large for one transaction goes the chunked way (pending chunks on the record, then
// one transaction each), alone.
func (s *Series) prepare(ctx context.Context, accountID string, cal series.Calendar, shard int, c Change, st store.SeriesRecord) (*work, error) {
	if st.Cells == nil {
		st.Cells = Cells{}
	}
	if err := s.finishPending(ctx, accountID, c.Attrs, st, shard); err != nil {
		return nil, err
	}
	st.Pending = nil
	sc := seriesCustomer(c.Result, c.Attrs)
	w := &work{st: st, acts: activitiesOf(accountID, c.Attrs, sc.Movements)}
	version := versionOf(cal, c.Attrs, sc.Movements, w.acts, sc.ExchangeRateImpacts...)
	if st.Version == version {
		return w, nil
	}
	cells := customerCells(sc, cal)
	next := successor(st, version, cells, w.acts)
	next.Shard = shard
	w.adds = cells.minus(st.Cells).updates()
	if len(next.Pending) <= 1 && len(w.adds) < maxActionsPerTx {
		// One transaction holds it: the record, its guard and every item it adds to.
		next.Pending = nil
		w.write = &store.SeriesRecordWrite{CustomerUUID: c.Attrs.UUID, Old: st, Next: &next, ReadAt: c.ReadAt}
		return w, nil
	}
	// Too large for one transaction: the record with its pending chunks first (guarded
	// like any record write), then each chunk.
	conflicts, err := s.store.WriteSeriesBatch(ctx, accountID, shard,
		[]store.SeriesRecordWrite{{CustomerUUID: c.Attrs.UUID, Old: st, Next: &next, Guard: c.Check, ReadAt: c.ReadAt}}, nil)
	switch {
	case err != nil:
		return nil, fmt.Errorf("accountseries: %w", err)
	case len(conflicts) > 0:
		return nil, store.ErrSeriesChanged
	}
	if err := s.finishPending(ctx, accountID, c.Attrs, next, shard); err != nil {
		return nil, err
	}
	next.Pending = nil
	w.st = next
	return w, nil
}

// finishActivities reconciles the customer's activities with its record and marks
// them done.
func (s *Series) finishActivities(ctx context.Context, accountID, customerUUID string, w *work) error {
	if err := s.writeActivities(ctx, accountID, customerUUID, w.st.ActsPrev, w.acts); err != nil {
		return err
	}
	if err := s.store.MarkSeriesActivitiesDone(ctx, accountID, customerUUID, w.st.Version); err != nil {
		return fmt.Errorf("accountseries: %w", err)
	}
	return nil
}

// packBatch groups the customers into transactions: each holds whole customers (their
// record and everything they add), at most maxActionsPerTx bucket items and records
// together, at most maxAttrsPerUpdate attributes added to one item.
func packBatch(ws []*work) [][]*work {
	var out [][]*work
	var cur []*work
	for _, w := range ws {
		if len(cur) > 0 && !fits(append(slices.Clone(cur), w)) {
			out, cur = append(out, cur), nil
		}
		cur = append(cur, w)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

func fits(ws []*work) bool {
	records, adds := txOf(ws)
	actions := len(adds)
	for _, r := range records {
		if r.Next != nil {
			actions++
		}
		if r.Guard.Kind != store.SeriesGuardNone {
			actions++
		}
	}
	if actions > maxActionsPerTx+1 {
		return false
	}
	for _, a := range adds {
		if len(a.Add) > maxAttrsPerUpdate {
			return false
		}
	}
	return true
}

// txOf is the records of the customers and the sum of their additions, by item.
func txOf(ws []*work) ([]store.SeriesRecordWrite, []store.SeriesBucketAdd) {
	records := make([]store.SeriesRecordWrite, len(ws))
	sum := map[[2]string]map[string]int64{}
	for i, w := range ws {
		records[i] = *w.write
		for _, a := range w.adds {
			id := [2]string{a.Segment, a.SK}
			if sum[id] == nil {
				sum[id] = map[string]int64{}
			}
			for attr, v := range a.Add {
				sum[id][attr] += v
			}
		}
	}
	ids := slices.SortedFunc(maps.Keys(sum), func(a, b [2]string) int {
		return cmpPair(a, b)
	})
	adds := make([]store.SeriesBucketAdd, len(ids))
	for i, id := range ids {
		adds[i] = store.SeriesBucketAdd{Segment: id[0], SK: id[1], Add: sum[id]}
	}
	return records, adds
}

func cmpPair(a, b [2]string) int {
	return cmp.Or(strings.Compare(a[0], b[0]), strings.Compare(a[1], b[1]))
}

func fill(errs []error, err error) []error {
	for i := range errs {
		if errs[i] == nil {
			errs[i] = err
		}
	}
	return errs
}
