package store

import (
	"context"
	"errors"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
)

// deleteCustomerBilling removes the invoices, subscriptions and subscription events
// of a customer's billing index (they live in their own partitions), then empties
// the index, which releases its plan references. Only items the customer still owns
// are deleted. Items go before the index: a failure half-way leaves index entries
// that a repeated delete finds absent and skips.
func (s *Store) deleteCustomerBilling(ctx context.Context, accountID, customerUUID string) error {
	for attempt := 0; attempt < 5; attempt++ {
		idx, err := s.GetBillingIndex(ctx, accountID, customerUUID)
		if err != nil || idx.Version == 0 {
			return err
		}
		invs, err := s.OwnedInvoices(ctx, idx, idx.SortedInvoiceUUIDs())
		if err != nil {
			return err
		}
		subUUIDs := make([]string, 0, len(idx.Subscriptions))
		for u := range idx.Subscriptions {
			subUUIDs = append(subUUIDs, u)
		}
		subs, err := s.GetSubscriptions(ctx, accountID, subUUIDs)
		if err != nil {
			return err
		}
		evs, err := s.GetSubscriptionEvents(ctx, accountID, idx.EventIDs())
		if err != nil {
			return err
		}
		var doomed []func() error
		for _, inv := range invs {
			doomed = append(doomed, func() error { return s.DeleteInvoiceItem(ctx, inv) })
		}
		for _, sub := range subs {
			if sub.CustomerUUID == customerUUID {
				doomed = append(doomed, func() error { return s.DeleteSubscriptionItem(ctx, sub) })
			}
		}
		for _, ev := range evs {
			if ev.CustomerUUID == customerUUID {
				doomed = append(doomed, func() error { return s.deleteOwnedEvent(ctx, ev) })
			}
		}
		errs := make([]error, len(doomed))
		s.parallel(len(doomed), func(i int) { errs[i] = doomed[i]() })
		// ErrConflict: the item changed owner meanwhile (a merge); it is not ours to delete.
		for _, err := range errs {
			if err != nil && !errors.Is(err, ErrConflict) {
				return err
			}
		}
		empty := BillingIndex{AccountID: accountID, CustomerUUID: customerUUID, Invoices: map[string]int64{},
			Subscriptions: map[string]int64{}, Plans: map[string]string{}, Events: map[string]int64{}}
		err = s.SaveBillingIndex(ctx, idx, empty)
		if !errors.Is(err, ErrConflict) {
			return err
		}
	}
	return errors.New("delete customer billing: the customer's index kept changing")
}

// deleteOwnedEvent removes a subscription event if it still belongs to its customer.
func (s *Store) deleteOwnedEvent(ctx context.Context, ev model.SubscriptionEvent) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                 &s.table,
		Key:                       keyAttrs(keys.SubscriptionEvent(ev.AccountID, strconv.FormatInt(ev.ID, 10))),
		ConditionExpression:       aws.String("attribute_not_exists(PK) OR customer_uuid = :c"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":c": sAttr(ev.CustomerUUID)},
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal,
	})
	return conflict(err)
}
