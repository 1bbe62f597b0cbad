package plans

import (
	"context"
	"errors"
	"fmt"
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

// The plan item lives in its data source's partition (keys.Plan); see
// docs/data-model.md "Plans and notes".
type PlanItem struct {
	PK             string    `dynamodbav:"PK"`
	SK             string    `dynamodbav:"SK"`
	ET             string    `dynamodbav:"et"`
	GSI1PK         string    `dynamodbav:"GSI1PK"`
	GSI1SK         string    `dynamodbav:"GSI1SK"`
	GSI2PK         string    `dynamodbav:"GSI2PK"`
	GSI2SK         string    `dynamodbav:"GSI2SK"`
	AccountID      string    `dynamodbav:"account_id"`
	UUID           string    `dynamodbav:"uuid"`
	DataSourceUUID string    `dynamodbav:"data_source_uuid"`
	System         string    `dynamodbav:"system"`
	ExternalID     string    `dynamodbav:"external_id"`
	Name           string    `dynamodbav:"name"`
	IntervalCount  int       `dynamodbav:"interval_count"`
	IntervalUnit   string    `dynamodbav:"interval_unit"`
	CreatedAt      time.Time `dynamodbav:"created_at"`
	// Refs is the reference marker (see MarkPlanReferenced).
	Refs int `dynamodbav:"refs"`
}

func (it PlanItem) Plan() model.Plan {
	return model.Plan{AccountID: it.AccountID, UUID: it.UUID, DataSourceUUID: it.DataSourceUUID,
		System: it.System, ExternalID: it.ExternalID, Name: it.Name, IntervalCount: it.IntervalCount,
		IntervalUnit: it.IntervalUnit, CreatedAt: it.CreatedAt, References: it.Refs}
}

func newPlanItem(p model.Plan) PlanItem {
	k := keys.Plan(p.AccountID, p.DataSourceUUID, p.UUID)
	return PlanItem{PK: k.PK, SK: k.SK, ET: keys.TypePlan,
		GSI1PK: keys.PlansByAccount(p.AccountID), GSI1SK: p.UUID,
		GSI2PK: keys.PlansByExternalID(p.AccountID, p.ExternalID), GSI2SK: p.UUID,
		AccountID: p.AccountID, UUID: p.UUID, DataSourceUUID: p.DataSourceUUID, System: p.System,
		ExternalID: p.ExternalID, Name: p.Name, IntervalCount: p.IntervalCount, IntervalUnit: p.IntervalUnit,
		CreatedAt: p.CreatedAt, Refs: p.References}
}

// PlanExternalIDItem reserves an external id within a data source.
type PlanExternalIDItem struct {
	PK       string `dynamodbav:"PK"`
	SK       string `dynamodbav:"SK"`
	ET       string `dynamodbav:"et"`
	PlanUUID string `dynamodbav:"plan_uuid"`
}

// planLocatorItem maps a plan uuid to its data source.
type planLocatorItem struct {
	PK             string `dynamodbav:"PK"`
	SK             string `dynamodbav:"SK"`
	ET             string `dynamodbav:"et"`
	DataSourceUUID string `dynamodbav:"data_source_uuid"`
}

// notReferenced is the condition that no subscription or invoice uses the plan.
const notReferenced = "(attribute_not_exists(refs) OR refs <= :zero)"

// CreatePlan stores a new plan, its external-id reservation and its locator in one
// transaction that also checks the data source is live. ErrConflict: the external id
// is taken in that data source; ErrDataSourceNotLive: the source is gone or deleting.
func (s *Store) CreatePlan(ctx context.Context, p model.Plan) error {
	plan, err := attributevalue.MarshalMap(newPlanItem(p))
	if err != nil {
		return err
	}
	ext := keys.PlanExternalID(p.AccountID, p.DataSourceUUID, p.ExternalID)
	reservation, err := attributevalue.MarshalMap(PlanExternalIDItem{PK: ext.PK, SK: ext.SK,
		ET: keys.TypePlanExternalID, PlanUUID: p.UUID})
	if err != nil {
		return err
	}
	loc := keys.PlanLocator(p.AccountID, p.UUID)
	locator, err := attributevalue.MarshalMap(planLocatorItem{PK: loc.PK, SK: loc.SK,
		ET: keys.TypePlanLocator, DataSourceUUID: p.DataSourceUUID})
	if err != nil {
		return err
	}
	isNew := aws.String(table.ItemAbsent)
	err = s.t.TransactWrite(ctx, []types.TransactWriteItem{
		// Without this check a plan written while the source is purged would outlive it.
		{ConditionCheck: &types.ConditionCheck{
			TableName:                s.t.Name(),
			Key:                      table.KeyAttrs(keys.DataSource(p.AccountID, p.DataSourceUUID)),
			ConditionExpression:      aws.String("attribute_exists(PK) AND #st <> :deleting"),
			ExpressionAttributeNames: map[string]string{"#st": "status"},
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":deleting": table.SAttr(model.DataSourceDeleting)},
		}},
		{Put: &types.Put{TableName: s.t.Name(), Item: plan, ConditionExpression: isNew}},
		{Put: &types.Put{TableName: s.t.Name(), Item: reservation, ConditionExpression: isNew}},
		{Put: &types.Put{TableName: s.t.Name(), Item: locator, ConditionExpression: isNew}},
	})
	switch failed := table.FailedAt(err); {
	case failed == 0:
		return store.ErrDataSourceNotLive
	case failed > 0:
		return store.ErrConflict
	}
	return err
}

// GetPlan reads a plan by uuid: the locator, then the plan (both consistent reads).
func (s *Store) GetPlan(ctx context.Context, accountID, planUUID string) (model.Plan, error) {
	var loc planLocatorItem
	if err := s.t.Get(ctx, keys.PlanLocator(accountID, planUUID), &loc); err != nil {
		return model.Plan{}, err
	}
	// A purged data source leaves the locator behind; the plan itself is then gone.
	return s.GetPlanInDataSource(ctx, accountID, loc.DataSourceUUID, planUUID)
}

// GetPlanInDataSource reads a plan whose data source is known (one read).
func (s *Store) GetPlanInDataSource(ctx context.Context, accountID, dsUUID, planUUID string) (model.Plan, error) {
	return table.GetOne(ctx, s.t, keys.Plan(accountID, dsUUID, planUUID), func(it PlanItem) model.Plan { return it.Plan() })
}

// GetPlanByExternalID finds a plan of a data source by external id (two consistent
// reads); the import pipeline resolves line items' plans with it.
func (s *Store) GetPlanByExternalID(ctx context.Context, accountID, dsUUID, externalID string) (model.Plan, error) {
	planUUID, err := s.PlanUUIDByExternalID(ctx, accountID, dsUUID, externalID)
	if err != nil {
		return model.Plan{}, err
	}
	return s.GetPlanInDataSource(ctx, accountID, dsUUID, planUUID)
}

// PlanUUIDByExternalID finds the uuid of a data source's plan from its external id
// (one consistent read of its reservation; the plan itself may since be gone).
func (s *Store) PlanUUIDByExternalID(ctx context.Context, accountID, dsUUID, externalID string) (string, error) {
	var res PlanExternalIDItem
	if err := s.t.Get(ctx, keys.PlanExternalID(accountID, dsUUID, externalID), &res); err != nil {
		return "", err
	}
	return res.PlanUUID, nil
}

// UpdatePlan changes a plan. An interval change is conditional on the reference
// marker, so it cannot race with an import that starts using the plan; writing the
// interval the plan already has is always allowed. ErrNotFound: the plan is gone;
// ErrPlanReferenced: the interval would change on a referenced plan.
func (s *Store) UpdatePlan(ctx context.Context, p model.Plan, u store.PlanUpdate) (model.Plan, error) {
	set := ""
	vals := map[string]types.AttributeValue{}
	names := map[string]string{}
	add := func(attr, placeholder string, v types.AttributeValue) {
		if set != "" {
			set += ", "
		}
		names["#"+attr] = attr
		set += "#" + attr + " = " + placeholder
		vals[placeholder] = v
	}
	cond := table.ItemExists
	if u.Name != nil {
		add("name", ":name", table.SAttr(*u.Name))
	}
	if u.IntervalCount != nil || u.IntervalUnit != nil {
		var same []string
		if u.IntervalCount != nil {
			add("interval_count", ":count", &types.AttributeValueMemberN{Value: strconv.Itoa(*u.IntervalCount)})
			same = append(same, "#interval_count = :count")
		}
		if u.IntervalUnit != nil {
			add("interval_unit", ":unit", table.SAttr(*u.IntervalUnit))
			same = append(same, "#interval_unit = :unit")
		}
		unchanged := same[0]
		if len(same) == 2 {
			unchanged += " AND " + same[1]
		}
		cond += fmt.Sprintf(" AND (%s OR (%s))", notReferenced, unchanged)
		vals[":zero"] = &types.AttributeValueMemberN{Value: "0"}
	}
	if set == "" {
		// Nothing to change: answer the stored plan, still proving it exists.
		return s.GetPlanInDataSource(ctx, p.AccountID, p.DataSourceUUID, p.UUID)
	}
	out, err := s.t.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		Key:                       table.KeyAttrs(keys.Plan(p.AccountID, p.DataSourceUUID, p.UUID)),
		ConditionExpression:       aws.String(cond),
		UpdateExpression:          aws.String("SET " + set),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: vals,
		ReturnValues:              types.ReturnValueAllNew,
	})
	if errors.Is(table.Conflict(err), store.ErrConflict) {
		return model.Plan{}, s.whyPlanWriteFailed(ctx, p)
	}
	if err != nil {
		return model.Plan{}, err
	}
	var it PlanItem
	if err := attributevalue.UnmarshalMap(out.Attributes, &it); err != nil {
		return model.Plan{}, err
	}
	return it.Plan(), nil
}

// whyPlanWriteFailed tells a vanished plan from a referenced one after a failed
// condition.
func (s *Store) whyPlanWriteFailed(ctx context.Context, p model.Plan) error {
	_, err := s.GetPlanInDataSource(ctx, p.AccountID, p.DataSourceUUID, p.UUID)
	if err != nil {
		return err
	}
	return store.ErrPlanReferenced
}

// DeletePlan removes an unreferenced plan with its external-id reservation and
// locator. ErrNotFound: already gone; ErrPlanReferenced: in use.
func (s *Store) DeletePlan(ctx context.Context, p model.Plan) error {
	err := s.t.TransactWrite(ctx, []types.TransactWriteItem{
		{Delete: &types.Delete{
			TableName:                 s.t.Name(),
			Key:                       table.KeyAttrs(keys.Plan(p.AccountID, p.DataSourceUUID, p.UUID)),
			ConditionExpression:       aws.String("attribute_exists(PK) AND " + notReferenced),
			ExpressionAttributeValues: map[string]types.AttributeValue{":zero": &types.AttributeValueMemberN{Value: "0"}},
		}},
		{Delete: &types.Delete{
			TableName: s.t.Name(),
			Key:       table.KeyAttrs(keys.PlanExternalID(p.AccountID, p.DataSourceUUID, p.ExternalID)),
			// Never release a reservation that another plan holds.
			ConditionExpression:       aws.String("attribute_not_exists(PK) OR plan_uuid = :uuid"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":uuid": table.SAttr(p.UUID)},
		}},
		{Delete: &types.Delete{TableName: s.t.Name(), Key: table.KeyAttrs(keys.PlanLocator(p.AccountID, p.UUID))}},
	})
	if table.FailedAt(err) >= 0 {
		return s.whyPlanWriteFailed(ctx, p)
	}
	return err
}

// planReference is the transaction item that adds delta (+1 or -1) to a plan's
// reference marker. The import pipeline puts it in the same transaction that writes
// (or removes) the subscription or line item using the plan, so PATCH and DELETE,
// which are conditional on the marker, can never miss a reference. The condition
// makes the transaction fail if the plan is gone, or if a release would go below 0.
func (s *Store) planReference(accountID, dsUUID, planUUID string, delta int) types.TransactWriteItem {
	cond := table.ItemExists
	vals := map[string]types.AttributeValue{":d": &types.AttributeValueMemberN{Value: strconv.Itoa(delta)}}
	if delta < 0 {
		cond += " AND refs >= :need"
		vals[":need"] = &types.AttributeValueMemberN{Value: strconv.Itoa(-delta)}
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                 s.t.Name(),
		Key:                       table.KeyAttrs(keys.Plan(accountID, dsUUID, planUUID)),
		ConditionExpression:       aws.String(cond),
		UpdateExpression:          aws.String("ADD refs :d"),
		ExpressionAttributeValues: vals,
	}}
}

// MarkPlanReferenced records one more reference to a plan on its own; ErrNotFound if
// the plan does not exist in that data source.
func (s *Store) MarkPlanReferenced(ctx context.Context, accountID, dsUUID, planUUID string) error {
	return s.applyPlanReference(ctx, s.planReference(accountID, dsUUID, planUUID, 1))
}

// ReleasePlanReference records that one reference to a plan is gone; ErrNotFound if
// the plan does not exist or has no reference left.
func (s *Store) ReleasePlanReference(ctx context.Context, accountID, dsUUID, planUUID string) error {
	return s.applyPlanReference(ctx, s.planReference(accountID, dsUUID, planUUID, -1))
}

// AddPlanReferences adds n references to a plan at once (one per customer index
// that starts using it); ErrNotFound if the plan is gone.
func (s *Store) AddPlanReferences(ctx context.Context, accountID, dsUUID, planUUID string, n int) error {
	return s.applyPlanReference(ctx, s.planReference(accountID, dsUUID, planUUID, n))
}

func (s *Store) applyPlanReference(ctx context.Context, item types.TransactWriteItem) error {
	u := item.Update
	_, err := s.t.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		Key: u.Key, ConditionExpression: u.ConditionExpression,
		UpdateExpression: u.UpdateExpression, ExpressionAttributeValues: u.ExpressionAttributeValues,
	})
	return table.NotFoundOnCondition(err)
}
