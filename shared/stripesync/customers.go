package stripesync

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/stripe/stripe-go/v84"

	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/stripesource"
)

// DeletedCustomerTag marks a customer deleted in Stripe and kept anonymised.
const DeletedCustomerTag = "deleted_customer_in_stripe"

// customer applies customer.created and .updated: the customer's fields and its metadata
// as custom attributes (removing the keys the change removed); only its dates
// when an event of a later snapshot was applied or the customer was deleted in Stripe
// and kept anonymised (of one removed, nothing). The trial start the customer's
// subscriptions gave is kept (it is its lead date).
func (a *applying) customer(ctx context.Context, ev stripe.Event) error {
	var c stripe.Customer
	if err := stripesource.Object(ev, &c); err != nil {
		return dropped("%v", err)
	}
	objs, err := a.objects(ctx, c.ID)
	if err != nil {
		return err
	}
	st := objs[c.ID]
	if a.gone(st) {
		return nil
	}
	rec := stripesource.Customer(&c, trialOf(st))
	recs := stripesource.Records{}
	if stale(st, ev.Created, 0) || st.Deleted {
		// An older snapshot, or a customer kept anonymised: only its dates, which no
		// snapshot changes (its creation, its subscriptions' trial start).
		rec = model.ImportCustomer{ExternalID: rec.ExternalID, LeadCreatedAt: rec.LeadCreatedAt, FreeTrialStartedAt: rec.FreeTrialStartedAt}
	} else {
		previous, _ := ev.Data.PreviousAttributes["metadata"].(map[string]any)
		recs.Attributes = []stripesource.CustomerAttributes{stripesource.Metadata(c.ID, c.Metadata, previous)}
	}
	recs.Customers = []model.ImportCustomer{rec}
	if err := a.apply(ctx, c.ID, recs); err != nil {
		return err
	}
	return a.save(ctx, st, applied(st, ev.Created, 0))
}

// deletes: a customer deleted in Stripe is removed (the "delete" setting, with a
// purger to do it).
func (a *applying) deletes() bool {
	return a.conn.Settings.DeletedCustomers == "delete" && a.Purger != nil
}

// gone: the customer was deleted in Stripe and removed; its later events are ignored.
func (a *applying) gone(st store.StripeObject) bool { return st.Deleted && a.deletes() }

// removed: the customer was deleted in Stripe and removed (read only under the
// "delete" setting).
func (a *applying) removed(ctx context.Context, customerID string) (bool, error) {
	if !a.deletes() {
		return false, nil
	}
	objs, err := a.objects(ctx, customerID)
	if err != nil {
		return false, err
	}
	return a.gone(objs[customerID]), nil
}

// trialOf is a stand-in for the subscriptions whose earliest trial start st keeps.
func trialOf(st store.StripeObject) []*stripe.Subscription {
	if st.TrialStart == 0 {
		return nil
	}
	return []*stripe.Subscription{{TrialStart: st.TrialStart}}
}

// customerDeleted applies customer.deleted as conn.Settings.DeletedCustomers says. With
// keep_anonymised (the default) the customer stays with its history: its live
// subscriptions of this data source are cancelled at the deletion, its name, company,
// e-mail and address are removed, and it is tagged DeletedCustomerTag; later events of
// the customer never restore them. With delete, the customer's records of this data
// source go (and the customer with them unless another source holds it), as in the
// data source's purge, and later events of the customer are ignored.
func (a *applying) customerDeleted(ctx context.Context, ev stripe.Event) error {
	var c stripe.Customer
	if err := stripesource.Object(ev, &c); err != nil {
		return dropped("%v", err)
	}
	objs, err := a.objects(ctx, c.ID)
	if err != nil {
		return err
	}
	st := objs[c.ID]
	uuid, err := a.Store.CustomerUUIDByExternalID(ctx, a.conn.AccountID, a.conn.DataSourceUUID, c.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		// Never applied: nothing to keep; later events of it are ignored.
	case err != nil:
		return err
	case a.deletes():
		cust, err := a.Store.GetCustomer(ctx, a.conn.AccountID, uuid)
		if errors.Is(err, store.ErrNotFound) {
			break
		}
		if err != nil {
			return err
		}
		if err := a.Purger.PurgeCustomerSource(ctx, cust, a.conn.DataSourceUUID, a.importID); err != nil {
			return err
		}
	default:
		if err := a.cancelLive(ctx, c.ID, uuid, time.Unix(ev.Created, 0).UTC()); err != nil {
			return err
		}
		if err := a.anonymise(ctx, uuid); err != nil {
			return err
		}
	}
	next := applied(st, ev.Created, 0)
	next.Deleted = true
	return a.save(ctx, st, next)
}

// cancelLive cancels at at every subscription of the customer in this data source
// whose Stripe subscription has not ended (Stripe cancels them too, and its
// customer.subscription.deleted events, before or after this one, end them at the
// same instant).
func (a *applying) cancelLive(ctx context.Context, customerID, uuid string, at time.Time) error {
	var subs []model.Subscription
	var start store.PageToken
	for {
		page, err := a.Store.ListCustomerSubscriptions(ctx, a.conn.AccountID, uuid, 100, start)
		if err != nil {
			return err
		}
		for _, s := range page.Items {
			if s.DataSourceUUID == a.conn.DataSourceUUID {
				subs = append(subs, s)
			}
		}
		if !page.HasMore {
			break
		}
		start = page.Next
	}
	var sets []string
	for _, s := range subs {
		if !slices.Contains(sets, s.SubscriptionSetExternalID) {
			sets = append(sets, s.SubscriptionSetExternalID)
		}
	}
	objs, err := a.objects(ctx, sets...)
	if err != nil {
		return err
	}
	var events []model.ImportEvent
	for _, s := range subs {
		if objs[s.SubscriptionSetExternalID].Deleted {
			continue
		}
		set := s.SubscriptionSetExternalID
		events = append(events, model.ImportEvent{EventFields: model.EventFields{CustomerExternalID: customerID,
			EventType: model.EventSubscriptionCancelled, EventDate: at, EffectiveDate: at,
			SubscriptionExternalID: s.ExternalID, SubscriptionSetExternalID: &set,
			ExternalID: s.ExternalID + ":cancelled:" + strconv.FormatInt(at.Unix(), 10)}})
	}
	if len(events) == 0 {
		return nil
	}
	return a.apply(ctx, customerID, stripesource.Records{ImportPayload: model.ImportPayload{Events: events}})
}

// stayAnonymised anonymises a customer deleted in Stripe (keep_anonymised) that an
// event applied after the deletion created (its records arrived late).
func (a *applying) stayAnonymised(ctx context.Context, st store.StripeObject) error {
	if !st.Deleted || a.deletes() {
		return nil
	}
	uuid, err := a.Store.CustomerUUIDByExternalID(ctx, a.conn.AccountID, a.conn.DataSourceUUID, st.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return a.anonymise(ctx, uuid)
}

// anonymise removes the customer's personal fields and tags it; when that changed it,
// the customer is recomputed (its country and tags show in the metrics' filters).
func (a *applying) anonymise(ctx context.Context, uuid string) error {
	changed, err := a.strip(ctx, uuid)
	if err != nil || !changed {
		return err
	}
	return a.Jobs.Send(ctx, jobs.Recompute(a.conn.AccountID, uuid, a.importID+":anonymised"))
}

func (a *applying) strip(ctx context.Context, uuid string) (bool, error) {
	return a.changeCustomer(ctx, uuid, "being anonymised", func(c model.Customer) (model.Customer, bool) {
		next := c
		next.Tags = slices.Clone(c.Tags)
		next.Name, next.Email, next.Company, next.Country, next.State, next.City, next.Zip = "", "", "", "", "", "", ""
		next.AddTags([]string{DeletedCustomerTag})
		return next, next.Name != c.Name || next.Email != c.Email || next.Company != c.Company || next.Country != c.Country ||
			next.State != c.State || next.City != c.City || next.Zip != c.Zip || !slices.Equal(next.Tags, c.Tags)
	})
}

// customerAttempts bounds the re-reads when the customer changes meanwhile.
const customerAttempts = 3

// changeCustomer saves what change makes of the stored customer, reading it again when
// it changed meanwhile; change reports false when it changes nothing, and a customer
// gone is no change. changed is true when the customer was saved.
func (a *applying) changeCustomer(ctx context.Context, uuid, doing string, change func(model.Customer) (model.Customer, bool)) (changed bool, err error) {
	for range customerAttempts {
		c, err := a.Store.GetCustomer(ctx, a.conn.AccountID, uuid)
		if errors.Is(err, store.ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		next, ok := change(c)
		if !ok {
			return false, nil
		}
		next.UpdatedAt = a.Now()
		err = a.Store.SaveCustomer(ctx, c, next)
		if !errors.Is(err, store.ErrConflict) {
			return err == nil, err
		}
	}
	return false, fmt.Errorf("stripesync: the customer kept changing while %s", doing)
}
