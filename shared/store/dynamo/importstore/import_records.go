package importstore

import (
	"context"
	"crypto/rand"
	"errors"
	"slices"
	"strings"
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

type importItem struct {
	PK          string           `dynamodbav:"PK"`
	SK          string           `dynamodbav:"SK"`
	ET          string           `dynamodbav:"et"`
	ID          string           `dynamodbav:"id"`
	DS          string           `dynamodbav:"ds"`
	ExternalID  string           `dynamodbav:"x"`
	Customers   int              `dynamodbav:"customers"`
	PayloadHash string           `dynamodbav:"hash"`
	Queued      bool             `dynamodbav:"queued"`
	Plans       model.KindStatus `dynamodbav:"plans"`
	CreatedAt   time.Time        `dynamodbav:"created_at"`
	UpdatedAt   time.Time        `dynamodbav:"updated_at"`
}

func (it importItem) record(accountID string) model.Import {
	return model.Import{AccountID: accountID, ID: it.ID, DataSourceUUID: it.DS, ExternalID: it.ExternalID,
		Customers: it.Customers, PayloadHash: it.PayloadHash, Queued: it.Queued, Plans: it.Plans,
		CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt}
}

type importLocatorItem struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	ET         string `dynamodbav:"et"`
	ExternalID string `dynamodbav:"x"`
}

// CreateImport records a new import unless its external id is taken in the data
// source (a conditional put), then the locator of its id. An unfinished record of the
// same payload (an intake that failed half-way and is retried) is returned instead,
// its locator written again, so the retry can finish it; anything else is
// ErrImportExists. Two plain writes instead of a transaction: half the write units,
// and the locator is only needed once the intake answers.
func (s *Store) CreateImport(ctx context.Context, imp model.Import) (model.Import, error) {
	k := keys.Import(imp.AccountID, imp.DataSourceUUID, imp.ExternalID)
	err := s.t.PutNew(ctx, importItem{PK: k.PK, SK: k.SK, ET: keys.TypeImport, ID: imp.ID,
		DS: imp.DataSourceUUID, ExternalID: imp.ExternalID, Customers: imp.Customers, PayloadHash: imp.PayloadHash,
		Plans: imp.Plans, CreatedAt: imp.CreatedAt, UpdatedAt: imp.UpdatedAt})
	if errors.Is(err, store.ErrConflict) {
		old, gerr := s.GetImport(ctx, imp.AccountID, imp.DataSourceUUID, imp.ExternalID)
		if gerr != nil {
			return model.Import{}, gerr
		}
		if old.Queued || old.PayloadHash != imp.PayloadHash {
			return model.Import{}, store.ErrImportExists
		}
		imp = old
	} else if err != nil {
		return model.Import{}, err
	}
	lk := keys.ImportLocator(imp.AccountID, imp.DataSourceUUID, imp.ID)
	if err := s.t.Put(ctx, importLocatorItem{PK: lk.PK, SK: lk.SK, ET: keys.TypeImportLocator, ExternalID: imp.ExternalID}); err != nil {
		return model.Import{}, err
	}
	return imp, nil
}

// GetImport reads an import by its external id.
func (s *Store) GetImport(ctx context.Context, accountID, dsUUID, externalID string) (model.Import, error) {
	return table.GetOne(ctx, s.t, keys.Import(accountID, dsUUID, externalID), func(it importItem) model.Import { return it.record(accountID) })
}

// GetImportByID reads an import by the id the API returned.
func (s *Store) GetImportByID(ctx context.Context, accountID, dsUUID, id string) (model.Import, error) {
	var loc importLocatorItem
	if err := s.t.Get(ctx, keys.ImportLocator(accountID, dsUUID, id), &loc); err != nil {
		return model.Import{}, err
	}
	return s.GetImport(ctx, accountID, dsUUID, loc.ExternalID)
}

// FinishImportIntake stores the plans' outcome and marks the import queued.
func (s *Store) FinishImportIntake(ctx context.Context, imp model.Import, plans model.KindStatus, now time.Time) error {
	pl, err := attributevalue.Marshal(plans)
	if err != nil {
		return err
	}
	t, err := attributevalue.Marshal(now)
	if err != nil {
		return err
	}
	_, err = s.t.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		Key:                       table.KeyAttrs(keys.Import(imp.AccountID, imp.DataSourceUUID, imp.ExternalID)),
		UpdateExpression:          aws.String("SET queued = :t, plans = :p, updated_at = :now"),
		ConditionExpression:       aws.String(table.ItemExists),
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberBOOL{Value: true}, ":p": pl, ":now": t},
	})
	return table.NotFoundOnCondition(err)
}

type importCustomerItem struct {
	PK                 string                            `dynamodbav:"PK"`
	SK                 string                            `dynamodbav:"SK"`
	ET                 string                            `dynamodbav:"et"`
	ExternalID         string                            `dynamodbav:"x"`
	Status             string                            `dynamodbav:"st"`
	Customers          table.Packed[model.KindStatus]    `dynamodbav:"customers"`
	Invoices           table.Packed[model.KindStatus]    `dynamodbav:"invoices"`
	LineItems          table.Packed[model.KindStatus]    `dynamodbav:"line_items"`
	Transactions       table.Packed[model.KindStatus]    `dynamodbav:"transactions"`
	SubscriptionEvents table.Packed[model.KindStatus]    `dynamodbav:"subscription_events"`
	Errors             table.Packed[[]model.RecordError] `dynamodbav:"errors"`
	UpdatedAt          time.Time                         `dynamodbav:"updated_at"`
}

// PutImportCustomerStatus records how one customer's records went. A success never
// overwrites a recorded failure of the same message's last attempt and vice versa
// is harmless: each message writes its customer's item once, at its end.
func (s *Store) PutImportCustomerStatus(ctx context.Context, accountID, importID string, st model.ImportCustomerStatus) error {
	return s.t.Put(ctx, newImportCustomerItem(accountID, importID, st))
}

func newImportCustomerItem(accountID, importID string, st model.ImportCustomerStatus) importCustomerItem {
	k := keys.ImportCustomer(accountID, importID, st.ExternalID)
	return importCustomerItem{PK: k.PK, SK: k.SK, ET: keys.TypeImportCustomer, ExternalID: st.ExternalID,
		Status: st.Status, Customers: table.Packed[model.KindStatus]{V: st.Customers}, Invoices: table.Packed[model.KindStatus]{V: st.Invoices},
		LineItems: table.Packed[model.KindStatus]{V: st.LineItems}, Transactions: table.Packed[model.KindStatus]{V: st.Transactions},
		SubscriptionEvents: table.Packed[model.KindStatus]{V: st.SubscriptionEvents}, Errors: table.Packed[[]model.RecordError]{V: st.Errors},
		UpdatedAt: st.UpdatedAt}
}

// ImportCustomerStatuses reads every customer entry recorded so far for an import (one
// Query per shard), in external id order.
func (s *Store) ImportCustomerStatuses(ctx context.Context, accountID, importID string) ([]model.ImportCustomerStatus, error) {
	var items []importCustomerItem
	for _, pk := range keys.ImportCustomersPartitions(accountID, importID) {
		var shard []importCustomerItem
		if err := s.t.QueryPrefix(ctx, pk, "CUS#", &shard); err != nil {
			return nil, err
		}
		items = append(items, shard...)
	}
	slices.SortFunc(items, func(a, b importCustomerItem) int { return strings.Compare(a.ExternalID, b.ExternalID) })
	out := make([]model.ImportCustomerStatus, len(items))
	for i, it := range items {
		out[i] = model.ImportCustomerStatus{ExternalID: it.ExternalID, Status: it.Status, Customers: it.Customers.V,
			Invoices: it.Invoices.V, LineItems: it.LineItems.V, Transactions: it.Transactions.V,
			SubscriptionEvents: it.SubscriptionEvents.V, Errors: it.Errors.V, UpdatedAt: it.UpdatedAt}
	}
	return out, nil
}

// EraseImportStatuses replaces the status entries that name a deleted customer, one per
// import of its data sources that carried it, by entries under an opaque stand-in
// (keys.ErasedImportCustomerPrefix): the import keeps its count of customers done, and
// so its status, while nothing in it names the customer any more. Each swap is one
// transaction conditional on the named entry, so a repeat finds nothing left to swap.
func (s *Store) EraseImportStatuses(ctx context.Context, c model.Customer) error {
	for i, ds := range c.DataSourceUUIDs {
		if i >= len(c.ExternalIDs) {
			break
		}
		ids, err := s.dataSources.ImportIDs(ctx, c.AccountID, ds)
		if err != nil {
			return err
		}
		var named []map[string]types.AttributeValue
		importOf := map[keys.Key]string{}
		for _, id := range ids {
			k := keys.ImportCustomer(c.AccountID, id, c.ExternalIDs[i])
			named, importOf[k] = append(named, table.KeyAttrs(k)), id
		}
		found, err := s.t.BatchRead(ctx, named, true)
		if err != nil {
			return err
		}
		for _, av := range found {
			var it importCustomerItem
			if err := attributevalue.UnmarshalMap(av, &it); err != nil {
				return err
			}
			importID := importOf[keys.Key{PK: it.PK, SK: it.SK}]
			stand := keys.ErasedImportCustomerPrefix + rand.Text()[:16]
			st := model.ImportCustomerStatus{ExternalID: stand, Status: it.Status, Customers: it.Customers.V,
				Invoices: it.Invoices.V, LineItems: it.LineItems.V, Transactions: it.Transactions.V,
				SubscriptionEvents: it.SubscriptionEvents.V, UpdatedAt: it.UpdatedAt}
			put, err := attributevalue.MarshalMap(newImportCustomerItem(c.AccountID, importID, st))
			if err != nil {
				return err
			}
			err = s.t.TransactWrite(ctx, []types.TransactWriteItem{
				{Delete: &types.Delete{TableName: s.t.Name(), Key: table.KeyAttrs(keys.Key{PK: it.PK, SK: it.SK}),
					ConditionExpression: aws.String(table.ItemExists)}},
				{Put: &types.Put{TableName: s.t.Name(), Item: put}},
			})
			if err != nil && !errors.Is(table.Conflict(err), store.ErrConflict) {
				return err
			}
		}
	}
	return nil
}
