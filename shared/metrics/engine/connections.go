package engine

import (
	"slices"
	"time"
)

// applyConnections folds each group of connected subscriptions into its most recent member
// (§4.5): the earlier member's trailing cancellation disappears, the gap up to the
// next member's first service period is smoothed at the earlier MRR, and the later member's
// first item replaces the MRR instead of adding to it. A group none of whose members was ever
// cancelled is left alone (the API refuses such a request). It returns the subscriptions still
// listed and the item seqs whose step must be a "set".
func applyConnections(conns []Connection, subs []*subscription) ([]*subscription, map[int]bool) {
	forceSet := map[int]bool{}
	if len(conns) == 0 {
		return subs, forceSet
	}
	byUUID := map[string]*subscription{}
	for _, s := range subs {
		byUUID[s.uuid] = s
	}
	parent := map[string]string{}
	for _, c := range conns {
		for _, u := range c.SubscriptionUUIDs {
			if byUUID[u] != nil {
				parent[u] = u
			}
		}
	}
	var find func(string) string
	find = func(x string) string {
		if p := parent[x]; p != x {
			r := find(p)
			parent[x] = r
			return r
		}
		return x
	}
	for _, c := range conns {
		a, b := c.SubscriptionUUIDs[0], c.SubscriptionUUIDs[1]
		if byUUID[a] == nil || byUUID[b] == nil || a == b {
			continue
		}
		ra, rb := find(a), find(b)
		if ra != rb {
			parent[ra] = rb
		}
	}
	groups := map[string][]*subscription{}
	for _, s := range subs {
		if _, ok := parent[s.uuid]; ok {
			r := find(s.uuid)
			groups[r] = append(groups[r], s)
		}
	}
	folded := map[*subscription]bool{}
	for _, members := range groups {
		if len(members) < 2 || !anyCancelled(members) || slices.ContainsFunc(members, func(s *subscription) bool { return !s.hasRealItems() }) {
			continue
		}
		slices.SortStableFunc(members, func(a, b *subscription) int {
			return a.items[0].ServicePeriodStart.Compare(b.items[0].ServicePeriodStart)
		})
		acc := members[0]
		for _, next := range members[1:] {
			foldInto(acc, next, forceSet)
			folded[acc] = true
			next.connected = append(next.connected, acc.connected...)
			next.connected = append(next.connected, acc.uuid)
			acc = next
		}
		slices.Sort(acc.connected)
	}
	var out []*subscription
	for _, s := range subs {
		if !folded[s] {
			out = append(out, s)
		}
	}
	return out, forceSet
}

func anyCancelled(members []*subscription) bool {
	for _, s := range members {
		if len(s.cancellations) > 0 {
			return true
		}
	}
	return false
}

// foldInto moves the part of earlier that precedes later's first service period into later.
func foldInto(earlier, later *subscription, forceSet map[int]bool) {
	first := later.items[0].ServicePeriodStart
	var kept []pricedItem
	for _, it := range earlier.items {
		if it.ServicePeriodStart.Before(first) {
			kept = append(kept, it)
		}
	}
	if len(kept) == 0 {
		return
	}
	lastStart := kept[len(kept)-1].ServicePeriodStart
	var cancels []time.Time
	for _, c := range earlier.cancellations {
		if !c.After(lastStart) {
			cancels = append(cancels, c) // an earlier cancel-and-reactivate cycle stays
		}
	}
	var coverage []span
	var end time.Time
	for _, c := range earlier.coverage {
		if c.from.Before(first) {
			coverage = append(coverage, c)
			if c.to.After(end) {
				end = c.to
			}
		}
	}
	if end.Before(first) {
		coverage = append(coverage, span{end, first}) // the smoothed gap is not past due
	}
	forceSet[later.items[0].seq] = true
	later.items = append(kept, later.items...)
	later.cancellations = append(cancels, later.cancellations...)
	later.coverage = append(coverage, later.coverage...)
}
