package billing

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/parallel"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// InvoiceItem is one invoice with its line items and transactions embedded (packed
// as JSON), so that an invoice costs one item write however many lines it has.
// Embedded field names are short because every byte of them is paid on every write.
type InvoiceItem struct {
	PK                 string                   `dynamodbav:"PK"`
	SK                 string                   `dynamodbav:"SK"`
	ET                 string                   `dynamodbav:"et"`
	UUID               string                   `dynamodbav:"uuid"`
	DataSourceUUID     string                   `dynamodbav:"ds"`
	CustomerUUID       string                   `dynamodbav:"customer_uuid"`
	CustomerExternalID string                   `dynamodbav:"cx"`
	ExternalID         string                   `dynamodbav:"x"`
	Date               time.Time                `dynamodbav:"d"`
	DueDate            *time.Time               `dynamodbav:"dd,omitempty"`
	Currency           string                   `dynamodbav:"cur"`
	CollectionMethod   string                   `dynamodbav:"cm,omitempty"`
	Status             string                   `dynamodbav:"st,omitempty"`
	Disabled           *disabled                `dynamodbav:"dis,omitempty"`
	UserCreated        bool                     `dynamodbav:"uc,omitempty"`
	EditHistory        *editHistory             `dynamodbav:"eh,omitempty"`
	LineItems          table.Packed[[]lineItem] `dynamodbav:"li"`
	Transactions       table.Packed[[]txItem]   `dynamodbav:"tr"`
	CreatedAt          time.Time                `dynamodbav:"ca"`
	UpdatedAt          time.Time                `dynamodbav:"ua"`
}

type lineItem struct {
	Key                       string       `dynamodbav:"k" json:"k"`
	UUID                      string       `dynamodbav:"u" json:"u"`
	ExternalID                string       `dynamodbav:"x,omitempty" json:"x,omitempty"`
	Type                      string       `dynamodbav:"t" json:"t"`
	SubscriptionUUID          string       `dynamodbav:"su,omitempty" json:"su,omitempty"`
	SubscriptionExternalID    string       `dynamodbav:"sx,omitempty" json:"sx,omitempty"`
	SubscriptionSetExternalID string       `dynamodbav:"ss,omitempty" json:"ss,omitempty"`
	PlanUUID                  string       `dynamodbav:"p,omitempty" json:"p,omitempty"`
	ServicePeriodStart        *time.Time   `dynamodbav:"s,omitempty" json:"s,omitempty"`
	ServicePeriodEnd          *time.Time   `dynamodbav:"e,omitempty" json:"e,omitempty"`
	AmountInCents             int64        `dynamodbav:"a" json:"a"`
	Quantity                  int64        `dynamodbav:"q" json:"q"`
	Prorated                  bool         `dynamodbav:"pr,omitempty" json:"pr,omitempty"`
	ProrationType             string       `dynamodbav:"pt,omitempty" json:"pt,omitempty"`
	CancelledAt               *time.Time   `dynamodbav:"c,omitempty" json:"c,omitempty"`
	DiscountAmountInCents     int64        `dynamodbav:"da,omitempty" json:"da,omitempty"`
	DiscountCode              string       `dynamodbav:"dc,omitempty" json:"dc,omitempty"`
	DiscountDescription       *string      `dynamodbav:"dd,omitempty" json:"dd,omitempty"`
	TaxAmountInCents          int64        `dynamodbav:"ta,omitempty" json:"ta,omitempty"`
	TransactionFeesInCents    int64        `dynamodbav:"fa,omitempty" json:"fa,omitempty"`
	TransactionFeesCurrency   *string      `dynamodbav:"fc,omitempty" json:"fc,omitempty"`
	Description               string       `dynamodbav:"de,omitempty" json:"de,omitempty"`
	AccountCode               string       `dynamodbav:"ac,omitempty" json:"ac,omitempty"`
	EventOrder                *int64       `dynamodbav:"eo,omitempty" json:"eo,omitempty"`
	BalanceTransfer           *bool        `dynamodbav:"bt,omitempty" json:"bt,omitempty"`
	Disabled                  *disabled    `dynamodbav:"di,omitempty" json:"di,omitempty"`
	UserCreated               bool         `dynamodbav:"uc,omitempty" json:"uc,omitempty"`
	EditHistory               *editHistory `dynamodbav:"eh,omitempty" json:"eh,omitempty"`
}

type txItem struct {
	Key                     string       `dynamodbav:"k" json:"k"`
	UUID                    string       `dynamodbav:"u" json:"u"`
	ExternalID              string       `dynamodbav:"x,omitempty" json:"x,omitempty"`
	Type                    string       `dynamodbav:"t" json:"t"`
	Result                  string       `dynamodbav:"r" json:"r"`
	Date                    time.Time    `dynamodbav:"d" json:"d"`
	AmountInCents           *int64       `dynamodbav:"a,omitempty" json:"a,omitempty"`
	TransactionFeesInCents  *int64       `dynamodbav:"fa,omitempty" json:"fa,omitempty"`
	TransactionFeesCurrency *string      `dynamodbav:"fc,omitempty" json:"fc,omitempty"`
	Disabled                *disabled    `dynamodbav:"di,omitempty" json:"di,omitempty"`
	UserCreated             bool         `dynamodbav:"uc,omitempty" json:"uc,omitempty"`
	EditHistory             *editHistory `dynamodbav:"eh,omitempty" json:"eh,omitempty"`
}

func NewInvoiceItem(inv model.Invoice) InvoiceItem {
	k := keys.Invoice(inv.AccountID, inv.UUID)
	it := InvoiceItem{PK: k.PK, SK: k.SK, ET: keys.TypeInvoice, UUID: inv.UUID, DataSourceUUID: inv.DataSourceUUID,
		CustomerUUID: inv.CustomerUUID, CustomerExternalID: inv.CustomerExternalID, ExternalID: inv.ExternalID,
		Date: inv.Date, DueDate: inv.DueDate, Currency: inv.Currency, CollectionMethod: inv.CollectionMethod,
		Status: inv.Status, Disabled: disabledOf(inv.DisabledState), UserCreated: inv.UserCreated,
		EditHistory: editHistoryOf(inv.EditHistory), LineItems: table.Packed[[]lineItem]{V: make([]lineItem, len(inv.LineItems))},
		Transactions: table.Packed[[]txItem]{V: make([]txItem, len(inv.Transactions))},
		CreatedAt:    inv.CreatedAt, UpdatedAt: inv.UpdatedAt}
	for i, li := range inv.LineItems {
		it.LineItems.V[i] = lineItem{Key: li.Key, UUID: li.UUID, ExternalID: li.ExternalID, Type: li.Type,
			SubscriptionUUID: li.SubscriptionUUID, SubscriptionExternalID: li.SubscriptionExternalID,
			SubscriptionSetExternalID: li.SubscriptionSetExternalID, PlanUUID: li.PlanUUID,
			ServicePeriodStart: li.ServicePeriodStart, ServicePeriodEnd: li.ServicePeriodEnd,
			AmountInCents: li.AmountInCents, Quantity: li.Quantity, Prorated: li.Prorated,
			ProrationType: li.ProrationType, CancelledAt: li.CancelledAt,
			DiscountAmountInCents: li.DiscountAmountInCents, DiscountCode: li.DiscountCode,
			DiscountDescription: li.DiscountDescription, TaxAmountInCents: li.TaxAmountInCents,
			TransactionFeesInCents: li.TransactionFeesInCents, TransactionFeesCurrency: li.TransactionFeesCurrency,
			Description: li.Description, AccountCode: li.AccountCode, EventOrder: li.EventOrder,
			BalanceTransfer: li.BalanceTransfer, Disabled: disabledOf(li.DisabledState), UserCreated: li.UserCreated,
			EditHistory: editHistoryOf(li.EditHistory)}
	}
	for i, t := range inv.Transactions {
		it.Transactions.V[i] = txItem{Key: t.Key, UUID: t.UUID, ExternalID: t.ExternalID, Type: t.Type, Result: t.Result,
			Date: t.Date, AmountInCents: t.AmountInCents, TransactionFeesInCents: t.TransactionFeesInCents,
			TransactionFeesCurrency: t.TransactionFeesCurrency, Disabled: disabledOf(t.DisabledState),
			UserCreated: t.UserCreated, EditHistory: editHistoryOf(t.EditHistory)}
	}
	return it
}

func (it InvoiceItem) Invoice(accountID string) model.Invoice {
	inv := model.Invoice{AccountID: accountID, UUID: it.UUID, DataSourceUUID: it.DataSourceUUID,
		CustomerUUID: it.CustomerUUID, CustomerExternalID: it.CustomerExternalID, ExternalID: it.ExternalID,
		Date: it.Date, DueDate: it.DueDate, Currency: it.Currency, CollectionMethod: it.CollectionMethod,
		Status: it.Status, DisabledState: it.Disabled.state(),
		UserEdits: model.UserEdits{UserCreated: it.UserCreated, EditHistory: it.EditHistory.history()}, LineItems: make([]model.LineItem, len(it.LineItems.V)), Transactions: make([]model.Transaction, len(it.Transactions.V)),
		CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt}
	for i, li := range it.LineItems.V {
		inv.LineItems[i] = model.LineItem{UUID: li.UUID, Key: li.Key, SubscriptionUUID: li.SubscriptionUUID,
			PlanUUID: li.PlanUUID, LineItemFields: model.LineItemFields{ExternalID: li.ExternalID, Type: li.Type,
				SubscriptionExternalID: li.SubscriptionExternalID, SubscriptionSetExternalID: li.SubscriptionSetExternalID,
				ServicePeriodStart: li.ServicePeriodStart, ServicePeriodEnd: li.ServicePeriodEnd,
				AmountInCents: li.AmountInCents, Quantity: li.Quantity, Prorated: li.Prorated,
				ProrationType: li.ProrationType, CancelledAt: li.CancelledAt,
				DiscountAmountInCents: li.DiscountAmountInCents, DiscountCode: li.DiscountCode,
				DiscountDescription: li.DiscountDescription, TaxAmountInCents: li.TaxAmountInCents,
				TransactionFeesInCents: li.TransactionFeesInCents, TransactionFeesCurrency: li.TransactionFeesCurrency,
				Description: li.Description, AccountCode: li.AccountCode, EventOrder: li.EventOrder,
				BalanceTransfer: li.BalanceTransfer},
			DisabledState: li.Disabled.state(),
			UserEdits:     model.UserEdits{UserCreated: li.UserCreated, EditHistory: li.EditHistory.history()}}
	}
	for i, t := range it.Transactions.V {
		inv.Transactions[i] = model.Transaction{UUID: t.UUID, Key: t.Key, TransactionFields: model.TransactionFields{
			ExternalID: t.ExternalID, Type: t.Type, Result: t.Result, Date: t.Date, AmountInCents: t.AmountInCents,
			TransactionFeesInCents: t.TransactionFeesInCents, TransactionFeesCurrency: t.TransactionFeesCurrency},
			DisabledState: t.Disabled.state(),
			UserEdits:     model.UserEdits{UserCreated: t.UserCreated, EditHistory: t.EditHistory.history()}}
	}
	return inv
}

// GetInvoice reads an invoice by uuid.
func (s *Store) GetInvoice(ctx context.Context, accountID, invoiceUUID string) (model.Invoice, error) {
	return table.GetOne(ctx, s.t, keys.Invoice(accountID, invoiceUUID), func(it InvoiceItem) model.Invoice { return it.Invoice(accountID) })
}

// GetInvoices reads invoices by uuid (one BatchGetItem per 100); missing ones are
// absent from the map.
func (s *Store) GetInvoices(ctx context.Context, accountID string, uuids []string) (map[string]model.Invoice, error) {
	return table.GetMany(ctx, s.t, uuids, func(u string) keys.Key { return keys.Invoice(accountID, u) },
		func(it InvoiceItem) string { return it.UUID }, func(it InvoiceItem) model.Invoice { return it.Invoice(accountID) })
}

// PutInvoices writes invoices, each with a condition that it is new or already the
// customer's: the condition is what keeps an invoice external id unique in its data
// source (BatchWriteItem has no conditions, so each is a PutItem; they run in
// parallel). The result has one error per invoice (nil, ErrOwnedElsewhere or a
// failure); a retry rewrites the same keys, so it never duplicates.
func (s *Store) PutInvoices(ctx context.Context, invs []model.Invoice) []error {
	return putAllOwned(ctx, s, invs, func(inv model.Invoice) (any, string) { return NewInvoiceItem(inv), inv.CustomerUUID })
}

// putAllOwned writes records (invoices, subscriptions) in parallel, each if it is new
// or already its customer's (ownedPut); one error per record.
func putAllOwned[T any](ctx context.Context, s *Store, recs []T, item func(T) (any, string)) []error {
	errs := make([]error, len(recs))
	parallel.For(len(recs), table.WriteConcurrency, func(i int) {
		it, customerUUID := item(recs[i])
		errs[i] = s.ownedPut(ctx, it, customerUUID)
	})
	return errs
}

// ownedPut writes an item that carries customer_uuid if it is new or the customer's.
func (s *Store) ownedPut(ctx context.Context, item any, customerUUID string) error {
	av, err := attributevalue.MarshalMap(item)
	if err != nil {
		return err
	}
	_, err = s.t.PutItem(ctx, &dynamodb.PutItemInput{
		Item:                      av,
		ConditionExpression:       aws.String("attribute_not_exists(PK) OR customer_uuid = :c"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":c": table.SAttr(customerUUID)},
	})
	if errors.Is(table.Conflict(err), store.ErrConflict) {
		return store.ErrOwnedElsewhere
	}
	return err
}

// DeleteInvoiceItem removes an invoice item if it still belongs to the customer.
func (s *Store) DeleteInvoiceItem(ctx context.Context, inv model.Invoice) error {
	return s.ownedDelete(ctx, keys.Invoice(inv.AccountID, inv.UUID), inv.CustomerUUID)
}

// ownedDelete removes an item that carries customer_uuid if it is the customer's (or
// already gone).
func (s *Store) ownedDelete(ctx context.Context, k keys.Key, customerUUID string) error {
	_, err := s.t.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		Key:                       table.KeyAttrs(k),
		ConditionExpression:       aws.String("attribute_not_exists(PK) OR customer_uuid = :c"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":c": table.SAttr(customerUUID)},
	})
	return table.Conflict(err)
}

// editHistory is a record's model.EditHistory as stored: the changed fields' JSON
// values as strings.
type editHistory struct {
	Changes map[string][2]string `dynamodbav:"c" json:"c"`
	Author  string               `dynamodbav:"a" json:"a"`
	At      time.Time            `dynamodbav:"t" json:"t"`
	Path    string               `dynamodbav:"p" json:"p"`
}

func editHistoryOf(h *model.EditHistory) *editHistory {
	if h == nil {
		return nil
	}
	out := &editHistory{Changes: make(map[string][2]string, len(h.Changes)), Author: h.Author, At: h.At, Path: h.Path}
	for field, v := range h.Changes {
		out.Changes[field] = [2]string{string(v.Original), string(v.Edited)}
	}
	return out
}

func (h *editHistory) history() *model.EditHistory {
	if h == nil {
		return nil
	}
	out := &model.EditHistory{Changes: make(map[string]model.EditedValue, len(h.Changes)), Author: h.Author,
		At: h.At, Path: h.Path}
	for field, v := range h.Changes {
		out.Changes[field] = model.EditedValue{Original: json.RawMessage(v[0]), Edited: json.RawMessage(v[1])}
	}
	return out
}
