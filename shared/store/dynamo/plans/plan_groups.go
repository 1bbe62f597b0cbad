package plans

import (
	"context"
	"encoding/json"
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

// planGroupItem is a plan group as stored: one item holding its plans' references
// (see docs/data-model.md, "Opportunities, tasks and plan groups").
type planGroupItem struct {
	PK        string    `dynamodbav:"PK"`
	SK        string    `dynamodbav:"SK"`
	ET        string    `dynamodbav:"et"`
	GSI1PK    string    `dynamodbav:"GSI1PK"`
	GSI1SK    string    `dynamodbav:"GSI1SK"`
	AccountID string    `dynamodbav:"account_id"`
	UUID      string    `dynamodbav:"uuid"`
	Name      string    `dynamodbav:"name"`
	Plans     string    `dynamodbav:"plans"` // JSON list of model.PlanRef
	CreatedAt time.Time `dynamodbav:"created_at"`
	UpdatedAt time.Time `dynamodbav:"updated_at"`
}

func newPlanGroupItem(g model.PlanGroup) (planGroupItem, error) {
	plans, err := json.Marshal(g.Plans)
	k := keys.PlanGroup(g.AccountID, g.UUID)
	return planGroupItem{PK: k.PK, SK: k.SK, ET: keys.TypePlanGroup, GSI1PK: keys.PlanGroupsByAccount(g.AccountID),
		GSI1SK: g.UUID, AccountID: g.AccountID, UUID: g.UUID, Name: g.Name, Plans: string(plans),
		CreatedAt: g.CreatedAt, UpdatedAt: g.UpdatedAt}, err
}

func (it planGroupItem) planGroup() model.PlanGroup {
	g := model.PlanGroup{AccountID: it.AccountID, UUID: it.UUID, Name: it.Name, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt}
	_ = json.Unmarshal([]byte(it.Plans), &g.Plans)
	return g
}

// SavePlanGroup writes a plan group: a new one (create) only if its uuid is free, an
// existing one only if it still exists (store.ErrNotFound otherwise).
func (s *Store) SavePlanGroup(ctx context.Context, g model.PlanGroup, create bool) error {
	it, err := newPlanGroupItem(g)
	if err != nil {
		return err
	}
	av, err := attributevalue.MarshalMap(it)
	if err != nil {
		return err
	}
	cond := table.ItemExists
	if create {
		cond = table.ItemAbsent
	}
	_, err = s.t.PutItem(ctx, &dynamodb.PutItemInput{Item: av, ConditionExpression: aws.String(cond)})
	if create {
		return table.Conflict(err)
	}
	return table.NotFoundOnCondition(err)
}

// GetPlanGroup reads a plan group.
func (s *Store) GetPlanGroup(ctx context.Context, accountID, uuid string) (model.PlanGroup, error) {
	return table.GetOne(ctx, s.t, keys.PlanGroup(accountID, uuid), func(it planGroupItem) model.PlanGroup { return it.planGroup() })
}

// DeletePlanGroup removes a plan group; store.ErrNotFound when it does not exist.
func (s *Store) DeletePlanGroup(ctx context.Context, accountID, uuid string) error {
	_, err := s.t.DeleteItem(ctx, &dynamodb.DeleteItemInput{Key: table.KeyAttrs(keys.PlanGroup(accountID, uuid)),
		ConditionExpression: aws.String(table.ItemExists)})
	return table.NotFoundOnCondition(err)
}

func planGroupQuery(accountID string) table.ListQuery {
	return table.IndexListing(keys.GSI1, keys.PlanGroupsByAccount(accountID), false)
}

// ListPlanGroups reads one page of the account's plan groups, newest first (GSI1).
func (s *Store) ListPlanGroups(ctx context.Context, accountID string, limit int, start store.PageToken) (store.Page[model.PlanGroup], error) {
	return table.ListPage(ctx, s.t, planGroupQuery(accountID), limit, start, planGroupItem.planGroup, nil)
}

// CountPlanGroups counts the account's plan groups (for the legacy total_pages).
func (s *Store) CountPlanGroups(ctx context.Context, accountID string) (int, error) {
	n, _, err := table.CountMatching(ctx, s.t, planGroupQuery(accountID), 0, planGroupItem.planGroup, nil)
	return n, err
}

// ListPlanGroupPlans reads one page of a group's plans in the group's order, from start
// (the Next of an earlier page of this group): one BatchGetItem of the next limit+1
// plans, and more only while plans deleted since are skipped. Total is the number of
// plans the group holds.
func (s *Store) ListPlanGroupPlans(ctx context.Context, g model.PlanGroup, limit int, start store.PageToken) (store.Page[model.Plan], error) {
	at, err := offsetOf(start)
	if err != nil {
		return store.Page[model.Plan]{}, err
	}
	page := store.Page[model.Plan]{Items: []model.Plan{}, Total: len(g.Plans), TotalKnown: true}
	var found []model.Plan
	next := at
	for len(found) <= limit && next < len(g.Plans) {
		chunk := g.Plans[next:min(next+limit+1-len(found), len(g.Plans))]
		got, err := s.plansByRef(ctx, g.AccountID, chunk)
		if err != nil {
			return page, err
		}
		for _, ref := range chunk {
			next++
			if p, ok := got[ref.UUID]; ok {
				found = append(found, p)
				if len(found) == limit+1 {
					next-- // the extra plan only tells that more exist
					break
				}
			}
		}
	}
	page.HasMore = len(found) > limit
	page.Items = found[:min(limit, len(found))]
	if len(page.Items) > 0 {
		page.Next = offsetToken(next)
	}
	return page, nil
}

// plansByRef reads plans by reference (one BatchGetItem per 100), keyed by uuid;
// plans that no longer exist are left out.
func (s *Store) plansByRef(ctx context.Context, accountID string, refs []model.PlanRef) (map[string]model.Plan, error) {
	keyList := make([]map[string]types.AttributeValue, 0, len(refs))
	for _, r := range refs {
		keyList = append(keyList, table.KeyAttrs(keys.Plan(accountID, r.DataSourceUUID, r.UUID)))
	}
	raw, err := s.t.BatchGet(ctx, keyList)
	if err != nil {
		return nil, err
	}
	var items []PlanItem
	if err := attributevalue.UnmarshalListOfMaps(raw, &items); err != nil {
		return nil, err
	}
	out := make(map[string]model.Plan, len(items))
	for _, it := range items {
		out[it.UUID] = it.Plan()
	}
	return out, nil
}

// offsetToken and offsetOf: the position of a listing kept in one item (a plan
// group's plans), as how many entries it has passed.
func offsetToken(n int) store.PageToken { return store.PageToken{store.TokenOffset: strconv.Itoa(n)} }

func offsetOf(t store.PageToken) (int, error) {
	if t == nil {
		return 0, nil
	}
	n, err := strconv.Atoi(t[store.TokenOffset])
	if err != nil || n < 0 || len(t) != 1 {
		return 0, store.ErrInvalidToken
	}
	return n, nil
}

// PlanRefs finds the plans of the account with these uuids (their locators, then the
// plans: two BatchGetItems per 100), in the order given; missing lists the uuids that
// are no plan of the account.
func (s *Store) PlanRefs(ctx context.Context, accountID string, uuids []string) (refs []model.PlanRef, missing []string, err error) {
	keyList := make([]map[string]types.AttributeValue, len(uuids))
	for i, u := range uuids {
		keyList[i] = table.KeyAttrs(keys.PlanLocator(accountID, u))
	}
	raw, err := s.t.BatchGet(ctx, keyList)
	if err != nil {
		return nil, nil, err
	}
	var locs []planLocatorItem
	if err := attributevalue.UnmarshalListOfMaps(raw, &locs); err != nil {
		return nil, nil, err
	}
	sources := map[string]string{}
	for _, l := range locs {
		sources[l.PK] = l.DataSourceUUID
	}
	var found []model.PlanRef
	for _, u := range uuids {
		if ds, ok := sources[keys.PlanLocator(accountID, u).PK]; ok {
			found = append(found, model.PlanRef{UUID: u, DataSourceUUID: ds})
		}
	}
	plans, err := s.plansByRef(ctx, accountID, found)
	if err != nil {
		return nil, nil, err
	}
	byUUID := map[string]model.PlanRef{}
	for _, r := range found {
		if _, ok := plans[r.UUID]; ok {
			byUUID[r.UUID] = r
		}
	}
	for _, u := range uuids {
		if r, ok := byUUID[u]; ok {
			refs = append(refs, r)
		} else {
			missing = append(missing, u)
		}
	}
	return refs, missing, nil
}
