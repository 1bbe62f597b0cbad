package billing

import (
	"context"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// eventPageRequests bounds the Queries of one page of a filtered event listing, shared
// among the listing's shards: a selective filter then answers a short page (HasMore,
// a cursor where the reading stopped) instead of reading the whole account.
const eventPageRequests = 4

// eventShardRequests is each shard's part of eventPageRequests.
const eventShardRequests = (eventPageRequests + keys.ListingShards - 1) / keys.ListingShards

func eventListing(accountID string) (table.ShardedListing, func(SubscriptionEventItem) model.SubscriptionEvent) {
	return table.ShardedIndex(keys.GSI1, keys.SubscriptionEventsShards(accountID), true, nil),
		func(it SubscriptionEventItem) model.SubscriptionEvent { return it.Event(accountID) }
}

// ListSubscriptionEvents reads one page of the account's subscription events in id
// order after start, those keep accepts (nil: all): at most eventShardRequests Queries
// per shard of the listing.
func (s *Store) ListSubscriptionEvents(ctx context.Context, accountID string, keep func(model.SubscriptionEvent) bool,
	limit int, start store.PageToken) (store.Page[model.SubscriptionEvent], error) {
	q, convert := eventListing(accountID)
	q.MaxRequests = eventShardRequests
	return table.ShardedPage(ctx, s.t, q, limit, start, convert, keep)
}

// CountSubscriptionEvents counts the account's events that keep accepts (nil: all)
// when one Query response per shard (up to 1 MB of events each) holds them all; ok is
// false when there are more.
func (s *Store) CountSubscriptionEvents(ctx context.Context, accountID string, keep func(model.SubscriptionEvent) bool) (n int, ok bool, err error) {
	q, convert := eventListing(accountID)
	return table.CountSharded(ctx, s.t, q, 1, convert, keep)
}
