package crm

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// attrValueItem is a stored custom attribute value (canonical text plus type).
type attrValueItem struct {
	Type string `dynamodbav:"t"`
	Text string `dynamodbav:"v"`
	Null bool   `dynamodbav:"n,omitempty"`
}

func attrItems(m map[string]model.AttrValue) map[string]attrValueItem {
	out := make(map[string]attrValueItem, len(m))
	for k, v := range m {
		out[k] = attrValueItem{Type: string(v.Type), Text: v.Text, Null: v.Null}
	}
	return out
}

func attrValues(m map[string]attrValueItem) map[string]model.AttrValue {
	out := make(map[string]model.AttrValue, len(m))
	for k, v := range m {
		out[k] = model.AttrValue{Type: model.AttrType(v.Type), Text: v.Text, Null: v.Null}
	}
	return out
}

// CustomerItem carries everything the customer object shows, so that a listing page
// is one query and nothing per row.
type CustomerItem struct {
	PK                 string                   `dynamodbav:"PK"`
	SK                 string                   `dynamodbav:"SK"`
	ET                 string                   `dynamodbav:"et"`
	GSI1PK             string                   `dynamodbav:"GSI1PK"`
	GSI1SK             string                   `dynamodbav:"GSI1SK"`
	GSI2PK             string                   `dynamodbav:"GSI2PK"`
	GSI2SK             string                   `dynamodbav:"GSI2SK"`
	AccountID          string                   `dynamodbav:"account_id"`
	ID                 int64                    `dynamodbav:"id"`
	UUID               string                   `dynamodbav:"uuid"`
	DataSourceUUID     string                   `dynamodbav:"data_source_uuid"`
	DataSourceUUIDs    []string                 `dynamodbav:"data_source_uuids"`
	ExternalID         string                   `dynamodbav:"external_id"`
	ExternalIDs        []string                 `dynamodbav:"external_ids"`
	Systems            []string                 `dynamodbav:"systems"`
	Name               string                   `dynamodbav:"name"`
	Email              string                   `dynamodbav:"email"`
	Company            string                   `dynamodbav:"company"`
	City               string                   `dynamodbav:"city"`
	Zip                string                   `dynamodbav:"zip"`
	Country            string                   `dynamodbav:"country"`
	State              string                   `dynamodbav:"state"`
	LeadCreatedAt      *time.Time               `dynamodbav:"lead_created_at,omitempty"`
	FreeTrialStartedAt *time.Time               `dynamodbav:"free_trial_started_at,omitempty"`
	CustomerSince      *time.Time               `dynamodbav:"customer_since,omitempty"`
	Status             string                   `dynamodbav:"status"`
	Tags               []string                 `dynamodbav:"tags"`
	Custom             map[string]attrValueItem `dynamodbav:"custom"`
	MRR                int64                    `dynamodbav:"mrr"`
	ARR                int64                    `dynamodbav:"arr"`
	BillingSystemType  string                   `dynamodbav:"billing_system_type"`
	Currency           string                   `dynamodbav:"currency"`
	Owner              string                   `dynamodbav:"owner"`
	WebsiteURL         string                   `dynamodbav:"website_url"`
	LastSeen           *time.Time               `dynamodbav:"last_seen,omitempty"`
	CreatedAt          time.Time                `dynamodbav:"created_at"`
	UpdatedAt          time.Time                `dynamodbav:"updated_at"`
	Version            int64                    `dynamodbav:"version"`
	BillingCurrencies  []string                 `dynamodbav:"billing_currencies,omitempty"`
	ActiveQuantity     int64                    `dynamodbav:"active_quantity,omitempty"`
}

func NewCustomerItem(c model.Customer) CustomerItem {
	k := keys.Customer(c.AccountID, c.UUID)
	return CustomerItem{PK: k.PK, SK: k.SK, ET: keys.TypeCustomer,
		GSI1PK: keys.CustomerList(c.AccountID, c.ID), GSI1SK: keys.CustomerOrder(c.ID),
		GSI2PK: keys.CustomerByExternalID(c.AccountID, c.ExternalID), GSI2SK: keys.CustomerOrder(c.ID),
		AccountID: c.AccountID, ID: c.ID, UUID: c.UUID, DataSourceUUID: c.DataSourceUUID,
		DataSourceUUIDs: c.DataSourceUUIDs, ExternalID: c.ExternalID, ExternalIDs: c.ExternalIDs,
		Systems: c.Systems, Name: c.Name, Email: c.Email, Company: c.Company, City: c.City, Zip: c.Zip,
		Country: c.Country, State: c.State, LeadCreatedAt: c.LeadCreatedAt,
		FreeTrialStartedAt: c.FreeTrialStartedAt, CustomerSince: c.CustomerSince, Status: c.Status,
		Tags: c.Tags, Custom: attrItems(c.Custom), MRR: c.MRR, ARR: c.ARR,
		BillingSystemType: c.BillingSystemType, Currency: c.Currency, Owner: c.Owner,
		WebsiteURL: c.WebsiteURL, LastSeen: c.LastSeen, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
		Version: c.Version, BillingCurrencies: c.BillingCurrencies, ActiveQuantity: c.ActiveQuantity}
}

func (it CustomerItem) Customer() model.Customer {
	tags := it.Tags
	if tags == nil {
		tags = []string{}
	}
	return model.Customer{AccountID: it.AccountID, ID: it.ID, UUID: it.UUID,
		DataSourceUUID: it.DataSourceUUID, DataSourceUUIDs: it.DataSourceUUIDs, ExternalID: it.ExternalID,
		ExternalIDs: it.ExternalIDs, Systems: it.Systems, Name: it.Name, Email: it.Email,
		Company: it.Company, City: it.City, Zip: it.Zip, Country: it.Country, State: it.State,
		LeadCreatedAt: it.LeadCreatedAt, FreeTrialStartedAt: it.FreeTrialStartedAt,
		CustomerSince: it.CustomerSince, Status: it.Status, Tags: tags, Custom: attrValues(it.Custom),
		MRR: it.MRR, ARR: it.ARR, BillingSystemType: it.BillingSystemType, Currency: it.Currency,
		Owner: it.Owner, WebsiteURL: it.WebsiteURL, LastSeen: it.LastSeen, CreatedAt: it.CreatedAt,
		UpdatedAt: it.UpdatedAt, Version: it.Version, BillingCurrencies: it.BillingCurrencies,
		ActiveQuantity: it.ActiveQuantity}
}

// UniqueItem reserves a value (an external id in a data source, a contact e-mail in
// a customer) for one owner; its conditional put is what enforces uniqueness.
type UniqueItem struct {
	PK           string     `dynamodbav:"PK"`
	SK           string     `dynamodbav:"SK"`
	ET           string     `dynamodbav:"et"`
	GSI2PK       string     `dynamodbav:"GSI2PK,omitempty"`
	GSI2SK       string     `dynamodbav:"GSI2SK,omitempty"`
	CustomerUUID string     `dynamodbav:"customer_uuid"`
	ContactUUID  string     `dynamodbav:"contact_uuid,omitempty"`
	ReservedAt   *time.Time `dynamodbav:"reserved_at,omitempty"`
}

func CustomerEmailIndexItem(c model.Customer) UniqueItem {
	k := keys.CustomerEmailIndex(c.AccountID, c.UUID)
	return UniqueItem{PK: k.PK, SK: k.SK, ET: keys.TypeCustomerEmailIndex,
		GSI2PK: keys.CustomerByEmail(c.AccountID, c.Email), GSI2SK: keys.CustomerOrder(c.ID),
		CustomerUUID: c.UUID}
}

// NextCustomerID draws the next integer id of the account's customers.
func (s *Store) NextCustomerID(ctx context.Context, accountID string) (int64, error) {
	out, err := s.t.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		Key:                      table.KeyAttrs(keys.Counter(accountID, keys.CustomerIDCounter)),
		UpdateExpression:         aws.String("ADD #n :one SET et = :et"),
		ExpressionAttributeNames: map[string]string{"#n": "n"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":one": &types.AttributeValueMemberN{Value: "1"},
			":et":  &types.AttributeValueMemberS{Value: keys.TypeCounter},
		},
		ReturnValues: types.ReturnValueUpdatedNew,
	})
	if err != nil {
		return 0, err
	}
	n, ok := out.Attributes["n"].(*types.AttributeValueMemberN)
	if !ok {
		return 0, errors.New("customer id counter: no value returned")
	}
	return strconv.ParseInt(n.Value, 10, 64)
}

// staleReservation is how old an external id reservation without its customer must
// be before another create may take it over: far longer than any function runs, so
// a create still between its two writes is never robbed.
const staleReservation = 5 * time.Minute

// CreateCustomer stores a new customer (with its id already drawn). It first
// reserves the external id in its data source with a conditional put, then writes
// the customer: two single-item writes cost half of a transaction. ErrConflict when
// the external id is taken.
func (s *Store) CreateCustomer(ctx context.Context, c model.Customer) error {
	c.Version = 1
	if err := s.reserveExternalID(ctx, c); err != nil {
		return err
	}
	if err := s.t.PutNew(ctx, NewCustomerItem(c)); err != nil {
		return err
	}
	if c.Email != "" {
		return s.t.Put(ctx, CustomerEmailIndexItem(c))
	}
	return nil
}

func (s *Store) reserveExternalID(ctx context.Context, c model.Customer) error {
	ek := keys.CustomerExternalID(c.AccountID, c.DataSourceUUID, c.ExternalID)
	now := s.t.Now()
	mine := UniqueItem{PK: ek.PK, SK: ek.SK, ET: keys.TypeCustomerExternalID, CustomerUUID: c.UUID, ReservedAt: &now}
	err := s.t.PutNew(ctx, mine)
	if !errors.Is(err, store.ErrConflict) {
		return err
	}
	// Taken: by a live customer, by a create in progress, or by a create that died
	// between its two writes (stale), which is the only case we may take over.
	var held UniqueItem
	if err := s.t.Get(ctx, ek, &held); err != nil {
		return err
	}
	if held.ReservedAt == nil || now.Sub(*held.ReservedAt) < staleReservation {
		return store.ErrConflict
	}
	if _, err := s.GetCustomer(ctx, c.AccountID, held.CustomerUUID); !errors.Is(err, store.ErrNotFound) {
		if err == nil {
			return store.ErrConflict
		}
		return err
	}
	av, err := attributevalue.MarshalMap(mine)
	if err != nil {
		return err
	}
	_, err = s.t.PutItem(ctx, &dynamodb.PutItemInput{Item: av,
		ConditionExpression:       aws.String("customer_uuid = :held"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":held": &types.AttributeValueMemberS{Value: held.CustomerUUID}},
	})
	return table.Conflict(err)
}

// GetCustomer reads a customer of the account.
func (s *Store) GetCustomer(ctx context.Context, accountID, customerUUID string) (model.Customer, error) {
	return table.GetOne(ctx, s.t, keys.Customer(accountID, customerUUID), func(it CustomerItem) model.Customer { return it.Customer() })
}

// SaveCustomer writes the new state of a customer read as old. It fails with
// ErrConflict when the customer changed since it was read (the caller re-reads and
// retries) and with ErrNotFound when it was deleted.
func (s *Store) SaveCustomer(ctx context.Context, old, c model.Customer) error {
	c.Version = old.Version + 1
	c.UpdatedAt = s.t.Now()
	cust, err := attributevalue.MarshalMap(NewCustomerItem(c))
	if err != nil {
		return err
	}
	put := &types.Put{TableName: s.t.Name(), Item: cust,
		ConditionExpression:       aws.String("attribute_exists(PK) AND version = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberN{Value: strconv.FormatInt(old.Version, 10)}},
	}
	var side []types.TransactWriteItem
	switch {
	case c.Email == old.Email:
	case c.Email != "":
		idx, err := attributevalue.MarshalMap(CustomerEmailIndexItem(c))
		if err != nil {
			return err
		}
		side = append(side, types.TransactWriteItem{Put: &types.Put{TableName: s.t.Name(), Item: idx}})
	default:
		side = append(side, types.TransactWriteItem{Delete: &types.Delete{TableName: s.t.Name(),
			Key: table.KeyAttrs(keys.CustomerEmailIndex(c.AccountID, c.UUID))}})
	}
	if len(side) == 0 {
		_, err = s.t.PutItem(ctx, &dynamodb.PutItemInput{Item: cust,
			ConditionExpression: put.ConditionExpression, ExpressionAttributeValues: put.ExpressionAttributeValues,
		})
		return s.versionConflict(ctx, c, table.Conflict(err))
	}
	err = table.Conflict(s.t.TransactWrite(ctx, append([]types.TransactWriteItem{{Put: put}}, side...)))
	return s.versionConflict(ctx, c, err)
}

// versionConflict tells a lost race (ErrConflict) from a deleted customer (ErrNotFound).
func (s *Store) versionConflict(ctx context.Context, c model.Customer, err error) error {
	if !errors.Is(err, store.ErrConflict) {
		return err
	}
	if _, gerr := s.GetCustomer(ctx, c.AccountID, c.UUID); errors.Is(gerr, store.ErrNotFound) {
		return store.ErrNotFound
	}
	return store.ErrConflict
}
