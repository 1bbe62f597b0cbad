package store

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
)

// UnmergeRequest is a pending unmerge (POST /v1/customers/unmerges): the data source
// customer (DataSourceUUID, ExternalID) leaves CustomerUUID for a new customer,
// NewCustomerUUID (chosen when the request is accepted, so a redelivered job makes the
// same one), taking Move (tasks, opportunities, notes) with it.
type UnmergeRequest struct {
	AccountID       string    `dynamodbav:"account_id"`
	CustomerUUID    string    `dynamodbav:"customer_uuid"`
	DataSourceUUID  string    `dynamodbav:"data_source_uuid"`
	ExternalID      string    `dynamodbav:"external_id"`
	NewCustomerUUID string    `dynamodbav:"new_customer_uuid"`
	Move            []string  `dynamodbav:"move"`
	RequestedAt     time.Time `dynamodbav:"requested_at"`
}

type unmergeRequestItem struct {
	PK string `dynamodbav:"PK"`
	SK string `dynamodbav:"SK"`
	ET string `dynamodbav:"et"`
	UnmergeRequest
}

func (u UnmergeRequest) key() keys.Key {
	return keys.UnmergeRequest(u.AccountID, u.CustomerUUID, u.DataSourceUUID, u.ExternalID)
}

// PutUnmergeRequest records an unmerge to carry out; a request for the same pair that
// is still pending is replaced.
func (s *Store) PutUnmergeRequest(ctx context.Context, u UnmergeRequest) error {
	k := u.key()
	return s.put(ctx, unmergeRequestItem{PK: k.PK, SK: k.SK, ET: keys.TypeUnmergeRequest, UnmergeRequest: u})
}

// PendingUnmerges lists the unmerges waiting to leave a customer.
func (s *Store) PendingUnmerges(ctx context.Context, accountID, customerUUID string) ([]UnmergeRequest, error) {
	var items []unmergeRequestItem
	if err := s.queryPrefix(ctx, keys.CustomerPartition(accountID, customerUUID), keys.UnmergeRequestPrefix, &items); err != nil {
		return nil, err
	}
	out := make([]UnmergeRequest, len(items))
	for i, it := range items {
		out[i] = it.UnmergeRequest
	}
	return out, nil
}

// DeleteUnmergeRequest forgets an unmerge that has been carried out.
func (s *Store) DeleteUnmergeRequest(ctx context.Context, u UnmergeRequest) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: keyAttrs(u.key()),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	return err
}

// CreateSplitCustomer stores the customer an unmerge makes, whose external id
// reservation exists already (it is handed over with ReassignCustomerExternalID
// afterwards). A customer already stored under that uuid (a redelivered job) is kept,
// and its e-mail index written again.
func (s *Store) CreateSplitCustomer(ctx context.Context, c model.Customer) error {
	c.Version = 1
	err := s.putNew(ctx, newCustomerItem(c))
	if errors.Is(err, ErrConflict) {
		c, err = s.GetCustomer(ctx, c.AccountID, c.UUID)
	}
	if err == nil && c.Email != "" {
		err = s.put(ctx, customerEmailIndexItem(c))
	}
	return err
}
