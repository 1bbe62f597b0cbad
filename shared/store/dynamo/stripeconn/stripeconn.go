// Package stripeconn stores the data sources' Stripe connections in the single table:
// one item per connected data source, keyed by the data source's uuid alone (the
// webhook endpoint finds it without an account) and holding the account id, which
// every write and delete checks.
package stripeconn

import (
	"context"
	"errors"
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

// Store reads and writes the Stripe connections.
type Store struct {
	t *table.Table
}

// New returns the Stripe connections' store on t.
func New(t *table.Table) *Store { return &Store{t: t} }

var _ store.StripeConnections = (*Store)(nil)

type connectionItem struct {
	PK                  string `dynamodbav:"PK"`
	SK                  string `dynamodbav:"SK"`
	ET                  string `dynamodbav:"et"`
	AccountID           string `dynamodbav:"account_id"`
	DataSourceUUID      string `dynamodbav:"data_source_uuid"`
	SealedWebhookSecret []byte `dynamodbav:"webhook_secret"`
	SealedAPIKey        []byte `dynamodbav:"api_key,omitempty"`
	APIKeyLast4         string `dynamodbav:"api_key_last4,omitempty"`
	DeletedCustomers    string `dynamodbav:"deleted_customers"`
	MeteredUsage        string `dynamodbav:"metered_usage"`
	ChurnRecognition    string `dynamodbav:"churn_recognition,omitempty"`
	RefundHandling      string `dynamodbav:"refund_handling,omitempty"`
	// InvoiceHandling is absent from items written before the setting existed, which
	// read as ChartMogul's defaults.
	InvoiceHandling *invoiceHandlingItem `dynamodbav:"invoice_handling,omitempty"`
	ConnectedAt     time.Time            `dynamodbav:"connected_at"`
	UpdatedAt       time.Time            `dynamodbav:"updated_at"`
}

type invoiceHandlingItem struct {
	Automatic invoiceRulesItem `dynamodbav:"automatic"`
	Manual    invoiceRulesItem `dynamodbav:"manual"`
}

type invoiceRulesItem struct {
	Create            string `dynamodbav:"create_when"`
	Update            string `dynamodbav:"update_when"`
	PreventVoided     bool   `dynamodbav:"prevent_voided"`
	PreventWrittenOff bool   `dynamodbav:"prevent_written_off"`
}

func rulesItem(r model.InvoiceRules) invoiceRulesItem {
	return invoiceRulesItem{Create: r.CreateSubscriptionWhenInvoiceIs, Update: r.UpdateSubscriptionWhenInvoiceIs,
		PreventVoided: r.PreventSubscriptionForInvoiceVoided, PreventWrittenOff: r.PreventSubscriptionForInvoiceWrittenOff}
}

func (r invoiceRulesItem) rules() model.InvoiceRules {
	return model.InvoiceRules{CreateSubscriptionWhenInvoiceIs: r.Create, UpdateSubscriptionWhenInvoiceIs: r.Update,
		PreventSubscriptionForInvoiceVoided: r.PreventVoided, PreventSubscriptionForInvoiceWrittenOff: r.PreventWrittenOff}
}

func (it connectionItem) connection() model.StripeConnection {
	settings := model.DefaultStripeSettings()
	settings.DeletedCustomers, settings.MeteredUsage = it.DeletedCustomers, it.MeteredUsage
	settings.ChurnRecognition, settings.RefundHandling = it.ChurnRecognition, it.RefundHandling
	if it.InvoiceHandling != nil {
		settings.InvoiceHandling = model.InvoiceHandling{Automatic: it.InvoiceHandling.Automatic.rules(),
			Manual: it.InvoiceHandling.Manual.rules()}
	}
	return model.StripeConnection{AccountID: it.AccountID, DataSourceUUID: it.DataSourceUUID,
		SealedWebhookSecret: it.SealedWebhookSecret, SealedAPIKey: it.SealedAPIKey, APIKeyLast4: it.APIKeyLast4,
		Settings: settings, ConnectedAt: it.ConnectedAt, UpdatedAt: it.UpdatedAt}
}

// ownedBy is the condition of every write: the item is absent or the account's, so
// an account can never replace or delete a connection it does not own, even holding
// another account's data source uuid.
const ownedBy = "attribute_not_exists(PK) OR account_id = :acc"

// PutStripeConnection creates or replaces the connection of c's data source
// (store.ErrNotFound when another account holds a connection under that uuid).
func (s *Store) PutStripeConnection(ctx context.Context, c model.StripeConnection) error {
	av, err := itemOf(c)
	if err != nil {
		return err
	}
	_, err = s.t.PutItem(ctx, &dynamodb.PutItemInput{Item: av, ConditionExpression: aws.String(ownedBy),
		ExpressionAttributeValues: map[string]types.AttributeValue{":acc": table.SAttr(c.AccountID)}})
	return table.NotFoundOnCondition(err)
}

// ReplaceStripeConnection replaces the account's connection of c's data source only
// if it is still the one last updated at prev (a read-modify-write): store.ErrConflict
// when it is absent, another account's, or was changed since; the caller reads again.
func (s *Store) ReplaceStripeConnection(ctx context.Context, c model.StripeConnection, prev time.Time) error {
	av, err := itemOf(c)
	if err != nil {
		return err
	}
	at, err := attributevalue.Marshal(prev.UTC())
	if err != nil {
		return err
	}
	_, err = s.t.PutItem(ctx, &dynamodb.PutItemInput{Item: av,
		ConditionExpression:       aws.String("account_id = :acc AND updated_at = :prev"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":acc": table.SAttr(c.AccountID), ":prev": at}})
	return table.Conflict(err)
}

// itemOf is the connection's item.
func itemOf(c model.StripeConnection) (map[string]types.AttributeValue, error) {
	k := keys.StripeConnection(c.DataSourceUUID)
	return attributevalue.MarshalMap(connectionItem{PK: k.PK, SK: k.SK, ET: keys.TypeStripeConnection,
		AccountID: c.AccountID, DataSourceUUID: c.DataSourceUUID,
		SealedWebhookSecret: c.SealedWebhookSecret, SealedAPIKey: c.SealedAPIKey, APIKeyLast4: c.APIKeyLast4,
		DeletedCustomers: c.Settings.DeletedCustomers, MeteredUsage: c.Settings.MeteredUsage,
		ChurnRecognition: c.Settings.ChurnRecognition, RefundHandling: c.Settings.RefundHandling,
		InvoiceHandling: &invoiceHandlingItem{Automatic: rulesItem(c.Settings.InvoiceHandling.Automatic),
			Manual: rulesItem(c.Settings.InvoiceHandling.Manual)},
		ConnectedAt: c.ConnectedAt.UTC(), UpdatedAt: c.UpdatedAt.UTC()})
}

// GetStripeConnection reads the connection of a data source, whichever account owns
// it (one consistent read); the caller compares the account id where it has one.
func (s *Store) GetStripeConnection(ctx context.Context, dsUUID string) (model.StripeConnection, error) {
	return table.GetOne(ctx, s.t, keys.StripeConnection(dsUUID), connectionItem.connection)
}

// DeleteStripeConnection removes the account's connection of a data source; absent,
// or another account's, it does nothing.
func (s *Store) DeleteStripeConnection(ctx context.Context, accountID, dsUUID string) error {
	_, err := s.RemoveStripeConnection(ctx, accountID, dsUUID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}

// RemoveStripeConnection removes the account's connection of a data source and returns
// what it held, from the one DeleteItem (its old image): store.ErrNotFound when there
// was none, or it is another account's.
func (s *Store) RemoveStripeConnection(ctx context.Context, accountID, dsUUID string) (model.StripeConnection, error) {
	out, err := s.t.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		Key:                       table.KeyAttrs(keys.StripeConnection(dsUUID)),
		ConditionExpression:       aws.String("account_id = :acc"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":acc": table.SAttr(accountID)},
		ReturnValues:              types.ReturnValueAllOld,
	})
	if err != nil {
		return model.StripeConnection{}, table.NotFoundOnCondition(err)
	}
	var it connectionItem
	if err := attributevalue.UnmarshalMap(out.Attributes, &it); err != nil {
		return model.StripeConnection{}, err
	}
	return it.connection(), nil
}

// RestoreStripeConnection puts back a connection removed by RemoveStripeConnection,
// only while no other has taken its place (store.ErrConflict otherwise): a connection
// written meanwhile is never overwritten.
func (s *Store) RestoreStripeConnection(ctx context.Context, c model.StripeConnection) error {
	av, err := itemOf(c)
	if err != nil {
		return err
	}
	_, err = s.t.PutItem(ctx, &dynamodb.PutItemInput{Item: av, ConditionExpression: aws.String("attribute_not_exists(PK)")})
	return table.Conflict(err)
}
