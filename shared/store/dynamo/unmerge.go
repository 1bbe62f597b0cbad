package dynamo

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/crm"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

type unmergeRequestItem struct {
	PK string `dynamodbav:"PK"`
	SK string `dynamodbav:"SK"`
	ET string `dynamodbav:"et"`
	store.UnmergeRequest
}

func unmergeKey(u store.UnmergeRequest) keys.Key {
	return keys.UnmergeRequest(u.AccountID, u.CustomerUUID, u.DataSourceUUID, u.ExternalID)
}

// PutUnmergeRequest records an unmerge to carry out; a request for the same pair that
// is still pending is replaced.
func (s *Store) PutUnmergeRequest(ctx context.Context, u store.UnmergeRequest) error {
	k := unmergeKey(u)
	return s.t.Put(ctx, unmergeRequestItem{PK: k.PK, SK: k.SK, ET: keys.TypeUnmergeRequest, UnmergeRequest: u})
}

// PendingUnmerges lists the unmerges waiting to leave a customer.
func (s *Store) PendingUnmerges(ctx context.Context, accountID, customerUUID string) ([]store.UnmergeRequest, error) {
	var items []unmergeRequestItem
	if err := s.t.QueryPrefix(ctx, keys.CustomerPartition(accountID, customerUUID), keys.UnmergeRequestPrefix, &items); err != nil {
		return nil, err
	}
	out := make([]store.UnmergeRequest, len(items))
	for i, it := range items {
		out[i] = it.UnmergeRequest
	}
	return out, nil
}

// DeleteUnmergeRequest forgets an unmerge that has been carried out.
func (s *Store) DeleteUnmergeRequest(ctx context.Context, u store.UnmergeRequest) error {
	_, err := s.t.DeleteItem(ctx, &dynamodb.DeleteItemInput{Key: table.KeyAttrs(unmergeKey(u))})
	return err
}

// CreateSplitCustomer stores the customer an unmerge makes, whose external id
// reservation exists already (it is handed over with ReassignCustomerExternalID
// afterwards). A customer already stored under that uuid (a redelivered job) is kept,
// and its e-mail index written again.
func (s *Store) CreateSplitCustomer(ctx context.Context, c model.Customer) error {
	c.Version = 1
	err := s.t.PutNew(ctx, crm.NewCustomerItem(c))
	if errors.Is(err, store.ErrConflict) {
		c, err = s.GetCustomer(ctx, c.AccountID, c.UUID)
	}
	if err == nil && c.Email != "" {
		err = s.t.Put(ctx, crm.CustomerEmailIndexItem(c))
	}
	return err
}
