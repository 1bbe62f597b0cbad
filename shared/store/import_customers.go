package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
)

// ImportedCustomer is what the import pipeline knows about a customer it must create
// or update by data source and external id.
type ImportedCustomer struct {
	AccountID      string
	DataSourceUUID string
	System         string // the data source's billing system
	Currency       string // the account currency (customer "currency")
	ExternalID     string
	// Record is the payload's customer record; nil when the payload only references
	// the customer (then it must exist).
	Record *model.ImportCustomer
	// ID is an integer id reserved by the intake for a new customer; 0 draws one.
	ID int64
}

// ImportedCustomerUUID is the uuid the import gives a customer it creates: derived
// from the data source and external id, so that a retried message that crashed
// between the reservation and the customer item completes the same customer.
func ImportedCustomerUUID(accountID, dsUUID, externalID string) string {
	return ids.Customer + model.DerivedUUID("customer", accountID, dsUUID, externalID)
}

// UpsertImportedCustomer creates the customer of a data source and external id, or
// updates it with the record's fields. It uses the customer area's reservation item
// (keys.CustomerExternalID) with a conditional put, never a read-then-write, so the
// import and POST /v1/customers can never create the same customer twice. Creation is
// two plain writes (reservation, then customer) instead of a transaction, which costs
// half the write units; the derived uuid lets a retry complete a half-made customer.
// ErrNotFound: no record and no such customer.
func (s *Store) UpsertImportedCustomer(ctx context.Context, in ImportedCustomer, now time.Time) (model.Customer, bool, error) {
	derived := ImportedCustomerUUID(in.AccountID, in.DataSourceUUID, in.ExternalID)
	for attempt := 0; attempt < 5; attempt++ {
		var res uniqueItem
		err := s.get(ctx, keys.CustomerExternalID(in.AccountID, in.DataSourceUUID, in.ExternalID), &res)
		switch {
		case err == nil:
			c, gerr := s.GetCustomer(ctx, in.AccountID, res.CustomerUUID)
			if errors.Is(gerr, ErrNotFound) && res.CustomerUUID == derived && in.Record != nil {
				return s.createImportedCustomer(ctx, in, derived, now)
			}
			if gerr != nil {
				return model.Customer{}, false, gerr
			}
			if in.Record == nil {
				return c, false, nil
			}
			next := c
			next.Tags = append([]string(nil), c.Tags...)
			if !applyImportedFields(&next, *in.Record) {
				return c, false, nil
			}
			switch err := s.SaveCustomer(ctx, c, next); {
			case err == nil:
				next.Version = c.Version + 1
				return next, false, nil
			case errors.Is(err, ErrConflict), errors.Is(err, ErrNotFound):
				continue
			default:
				return model.Customer{}, false, err
			}
		case errors.Is(err, ErrNotFound):
			if in.Record == nil {
				return model.Customer{}, false, ErrNotFound
			}
			c, created, cerr := s.createImportedCustomer(ctx, in, derived, now)
			if errors.Is(cerr, ErrConflict) {
				continue // someone else reserved the external id first: update theirs
			}
			return c, created, cerr
		default:
			return model.Customer{}, false, err
		}
	}
	return model.Customer{}, false, fmt.Errorf("customer %q: too many concurrent changes", in.ExternalID)
}

func (s *Store) createImportedCustomer(ctx context.Context, in ImportedCustomer, uuid string, now time.Time) (model.Customer, bool, error) {
	id := in.ID
	if id == 0 {
		var err error
		if id, err = s.NextCustomerID(ctx, in.AccountID); err != nil {
			return model.Customer{}, false, err
		}
	}
	c := model.Customer{AccountID: in.AccountID, ID: id, UUID: uuid, DataSourceUUID: in.DataSourceUUID,
		DataSourceUUIDs: []string{in.DataSourceUUID}, ExternalID: in.ExternalID, ExternalIDs: []string{in.ExternalID},
		Systems: []string{in.System}, Status: model.StatusNewLead, Tags: []string{}, Custom: map[string]model.AttrValue{},
		BillingSystemType: model.BillingSystemCustom, Currency: in.Currency, CreatedAt: now, UpdatedAt: now, Version: 1}
	applyImportedFields(&c, *in.Record)
	ek := keys.CustomerExternalID(in.AccountID, in.DataSourceUUID, in.ExternalID)
	res, err := attributevalue.MarshalMap(uniqueItem{PK: ek.PK, SK: ek.SK, ET: keys.TypeCustomerExternalID, CustomerUUID: uuid})
	if err != nil {
		return model.Customer{}, false, err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: res,
		ConditionExpression:       aws.String("attribute_not_exists(PK) OR customer_uuid = :c"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":c": sAttr(uuid)},
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal})
	if err = conflict(err); err != nil {
		return model.Customer{}, false, err
	}
	if c.Email != "" {
		if err := s.put(ctx, customerEmailIndexItem(c)); err != nil {
			return model.Customer{}, false, err
		}
	}
	// Last: once the customer item exists, a retry takes the update path.
	if err := s.putNew(ctx, newCustomerItem(c)); err != nil {
		return model.Customer{}, false, err
	}
	return c, true, nil
}

// applyImportedFields copies the fields a record sent onto c and reports whether
// anything changed.
func applyImportedFields(c *model.Customer, r model.ImportCustomer) bool {
	changed := false
	set := func(dst *string, v *string) {
		if v != nil && *dst != *v {
			*dst, changed = *v, true
		}
	}
	setTime := func(dst **time.Time, v *time.Time) {
		if v != nil && (*dst == nil || !(*dst).Equal(*v)) {
			t := *v
			*dst, changed = &t, true
		}
	}
	set(&c.Name, r.Name)
	set(&c.Email, r.Email)
	set(&c.Company, r.Company)
	set(&c.Country, r.Country)
	set(&c.City, r.City)
	set(&c.Zip, r.Zip)
	if r.State != nil {
		// As ChartMogul: a state that is not a US state of a US customer is dropped.
		code := strings.TrimPrefix(strings.ToUpper(*r.State), "US-")
		if model.StateName(code) == "" || (c.Country != "" && c.Country != "US") {
			code = ""
		}
		set(&c.State, &code)
	}
	setTime(&c.LeadCreatedAt, r.LeadCreatedAt)
	setTime(&c.FreeTrialStartedAt, r.FreeTrialStartedAt)
	return changed
}

// ReserveCustomerIDs draws n integer customer ids at once (one write for a whole
// import) and returns the last; the ids are last-n+1 .. last. Ids reserved for
// customers that turn out to exist are simply never used.
func (s *Store) ReserveCustomerIDs(ctx context.Context, accountID string, n int) (int64, error) {
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                &s.table,
		Key:                      keyAttrs(keys.Counter(accountID, keys.CustomerIDCounter)),
		UpdateExpression:         aws.String("ADD #n :k SET et = :et"),
		ExpressionAttributeNames: map[string]string{"#n": "n"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":k":  &types.AttributeValueMemberN{Value: strconv.Itoa(n)},
			":et": sAttr(keys.TypeCounter),
		},
		ReturnValues:           types.ReturnValueUpdatedNew,
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	if err != nil {
		return 0, err
	}
	v, ok := out.Attributes["n"].(*types.AttributeValueMemberN)
	if !ok {
		return 0, errors.New("customer id counter: no value returned")
	}
	return strconv.ParseInt(v.Value, 10, 64)
}
