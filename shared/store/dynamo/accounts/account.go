package accounts

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

type accountItem struct {
	PK               string    `dynamodbav:"PK"`
	SK               string    `dynamodbav:"SK"`
	ET               string    `dynamodbav:"et"`
	ID               string    `dynamodbav:"id"`
	Name             string    `dynamodbav:"name"`
	Currency         string    `dynamodbav:"currency"`
	TimeZone         string    `dynamodbav:"time_zone"`
	WeekStartOn      string    `dynamodbav:"week_start_on"`
	ChurnRecognition string    `dynamodbav:"churn_recognition"`
	ChurnWhenZeroMRR bool      `dynamodbav:"churn_when_zero_mrr"`
	AutoChurn        bool      `dynamodbav:"auto_churn_subscription"`
	RefundHandling   string    `dynamodbav:"refund_handling"`
	Reclassification string    `dynamodbav:"proximate_movement_reclassification"`
	CreatedAt        time.Time `dynamodbav:"created_at"`
	accountLimits
}

// accountLimits are the account's limits as stored: absent means the default.
type accountLimits struct {
	RequestsPerSecond      int `dynamodbav:"requests_per_second,omitempty"`
	ImportsInFlight        int `dynamodbav:"imports_in_flight,omitempty"`
	ImportRecordsPerMinute int `dynamodbav:"import_records_per_minute,omitempty"`
}

func (l accountLimits) limits() model.Limits {
	return model.Limits{RequestsPerSecond: l.RequestsPerSecond, ImportsInFlight: l.ImportsInFlight,
		ImportRecordsPerMinute: l.ImportRecordsPerMinute}
}

func (it accountItem) account() model.Account {
	return model.Account{ID: it.ID, Name: it.Name, Currency: it.Currency, TimeZone: it.TimeZone,
		WeekStartOn: it.WeekStartOn, CreatedAt: it.CreatedAt, Settings: model.Settings{
			ChurnRecognition: it.ChurnRecognition, ChurnWhenZeroMRR: it.ChurnWhenZeroMRR,
			AutoChurnSubscription: it.AutoChurn, RefundHandling: it.RefundHandling,
			ProximateMovementReclassification: it.Reclassification,
		}, Limits: it.limits()}
}

func newAccountItem(a model.Account) accountItem {
	k := keys.Account(a.ID)
	return accountItem{PK: k.PK, SK: k.SK, ET: keys.TypeAccount, ID: a.ID, Name: a.Name,
		Currency: a.Currency, TimeZone: a.TimeZone, WeekStartOn: a.WeekStartOn, CreatedAt: a.CreatedAt,
		ChurnRecognition: a.Settings.ChurnRecognition, ChurnWhenZeroMRR: a.Settings.ChurnWhenZeroMRR,
		AutoChurn: a.Settings.AutoChurnSubscription, RefundHandling: a.Settings.RefundHandling,
		Reclassification: a.Settings.ProximateMovementReclassification,
		accountLimits: accountLimits{RequestsPerSecond: a.Limits.RequestsPerSecond, ImportsInFlight: a.Limits.ImportsInFlight,
			ImportRecordsPerMinute: a.Limits.ImportRecordsPerMinute}}
}

// CreateAccount stores a new account; ErrConflict if the id exists.
func (s *Store) CreateAccount(ctx context.Context, a model.Account) error {
	if a.CreatedAt.IsZero() {
		a.CreatedAt = s.t.Now()
	}
	if err := s.t.PutNew(ctx, newAccountItem(a)); err != nil {
		return err
	}
	return s.ensureAccountRate(ctx, a.ID)
}

// GetAccount reads an account.
func (s *Store) GetAccount(ctx context.Context, accountID string) (model.Account, error) {
	return table.GetOne(ctx, s.t, keys.Account(accountID), func(it accountItem) model.Account { return it.account() })
}

// UpdateSettings replaces the account's analytics settings.
func (s *Store) UpdateSettings(ctx context.Context, accountID string, st model.Settings) error {
	av, err := attributevalue.MarshalMap(map[string]any{
		":cr": st.ChurnRecognition, ":cz": st.ChurnWhenZeroMRR, ":ac": st.AutoChurnSubscription,
		":rh": st.RefundHandling, ":pm": st.ProximateMovementReclassification,
	})
	if err != nil {
		return err
	}
	_, err = s.t.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		Key:                 table.KeyAttrs(keys.Account(accountID)),
		ConditionExpression: aws.String(table.ItemExists),
		UpdateExpression: aws.String("SET churn_recognition = :cr, churn_when_zero_mrr = :cz, " +
			"auto_churn_subscription = :ac, refund_handling = :rh, proximate_movement_reclassification = :pm"),
		ExpressionAttributeValues: av,
	})
	return table.NotFoundOnCondition(err)
}

// UpdateLimits replaces the account's limits (a zero limit is removed: the default),
// then copies requests_per_second onto the lookup item of each unrevoked key, where the
// authorizer reads it with the key (one read per key and minute). Nothing is
// recomputed: the limits only bound requests and imports to come.
func (s *Store) UpdateLimits(ctx context.Context, accountID string, l model.Limits) error {
	err := s.setNumbers(ctx, keys.Account(accountID), map[string]int{"requests_per_second": l.RequestsPerSecond,
		"imports_in_flight": l.ImportsInFlight, "import_records_per_minute": l.ImportRecordsPerMinute})
	if err != nil {
		return table.NotFoundOnCondition(err)
	}
	apiKeys, err := s.ListAPIKeys(ctx, accountID)
	if err != nil {
		return err
	}
	for _, k := range apiKeys {
		if k.RevokedAt != nil {
			continue
		}
		err := s.setNumbers(ctx, keys.APIKeyByHash(k.Hash), map[string]int{"requests_per_second": l.RequestsPerSecond})
		if err != nil && !errors.Is(table.NotFoundOnCondition(err), store.ErrNotFound) { // revoked meanwhile
			return err
		}
	}
	return nil
}

// setNumbers sets the positive numbers and removes the others, on an item that exists.
func (s *Store) setNumbers(ctx context.Context, k keys.Key, numbers map[string]int) error {
	var set, remove []string
	values := map[string]types.AttributeValue{}
	for name, v := range numbers {
		if v > 0 {
			set = append(set, name+" = :"+name)
			values[":"+name] = &types.AttributeValueMemberN{Value: strconv.Itoa(v)}
		} else {
			remove = append(remove, name)
		}
	}
	slices.Sort(set)
	slices.Sort(remove)
	var expr []string
	if len(set) > 0 {
		expr = append(expr, "SET "+strings.Join(set, ", "))
	}
	if len(remove) > 0 {
		expr = append(expr, "REMOVE "+strings.Join(remove, ", "))
	}
	in := &dynamodb.UpdateItemInput{
		Key:                 table.KeyAttrs(k),
		ConditionExpression: aws.String(table.ItemExists),
		UpdateExpression:    aws.String(strings.Join(expr, " ")),
	}
	if len(values) > 0 {
		in.ExpressionAttributeValues = values
	}
	_, err := s.t.UpdateItem(ctx, in)
	return err
}

type apiKeyItem struct {
	PK        string     `dynamodbav:"PK"`
	SK        string     `dynamodbav:"SK"`
	ET        string     `dynamodbav:"et"`
	AccountID string     `dynamodbav:"account_id"`
	ID        string     `dynamodbav:"id"`
	Hash      string     `dynamodbav:"hash"`
	CreatedAt time.Time  `dynamodbav:"created_at"`
	RevokedAt *time.Time `dynamodbav:"revoked_at,omitempty"`
}

// apiKeyLookupItem finds an unrevoked key's account from the key's hash, with the
// account's requests per second (a copy UpdateLimits keeps; absent: the default), so
// the authorizer reads one item.
type apiKeyLookupItem struct {
	PK                string `dynamodbav:"PK"`
	SK                string `dynamodbav:"SK"`
	ET                string `dynamodbav:"et"`
	AccountID         string `dynamodbav:"account_id"`
	ID                string `dynamodbav:"id"`
	RequestsPerSecond int    `dynamodbav:"requests_per_second,omitempty"`
}

// CreateAPIKey stores the hash of a new key and returns the key's id: the lookup item
// the authorizer reads, then the key in the account's partition (a crash in between
// leaves a usable key the account does not list; the admin command reports failure
// and creates another).
func (s *Store) CreateAPIKey(ctx context.Context, accountID, hash string) (string, error) {
	id := uuid.NewString()
	lk := keys.APIKeyByHash(hash)
	var acc accountItem
	if err := s.t.Get(ctx, keys.Account(accountID), &acc); err != nil && !errors.Is(err, store.ErrNotFound) {
		return "", err
	}
	// The rate gate refuses a key whose account has no counter.
	if err := s.ensureAccountRate(ctx, accountID); err != nil {
		return "", err
	}
	if err := s.t.PutNew(ctx, apiKeyLookupItem{PK: lk.PK, SK: lk.SK, ET: keys.TypeAPIKeyLookup, AccountID: accountID, ID: id,
		RequestsPerSecond: acc.RequestsPerSecond}); err != nil {
		return "", err
	}
	k := keys.APIKey(accountID, id)
	err := s.t.PutNew(ctx, apiKeyItem{PK: k.PK, SK: k.SK, ET: keys.TypeAPIKey,
		AccountID: accountID, ID: id, Hash: hash, CreatedAt: s.t.Now()})
	return id, err
}

// ListAPIKeys returns every key of the account, revoked ones included.
func (s *Store) ListAPIKeys(ctx context.Context, accountID string) ([]model.APIKey, error) {
	var items []apiKeyItem
	if err := s.t.QueryPrefix(ctx, keys.AccountPartition(accountID), keys.APIKeyPrefix, &items); err != nil {
		return nil, err
	}
	out := make([]model.APIKey, len(items))
	for i, it := range items {
		out[i] = model.APIKey{AccountID: it.AccountID, ID: it.ID, Hash: it.Hash, CreatedAt: it.CreatedAt, RevokedAt: it.RevokedAt}
	}
	return out, nil
}

// RevokeAPIKey records the key as revoked on the account's counter, so the rate gate
// refuses it at once although API Gateway may still hold the authorizer's answer for
// it; removes the key's lookup item, so the authorizer can no longer find it; then marks
// the key revoked (in that order: a crash in between leaves a key that no longer works,
// and revoking again completes it).
func (s *Store) RevokeAPIKey(ctx context.Context, accountID, keyID string) error {
	var it apiKeyItem
	if err := s.t.Get(ctx, keys.APIKey(accountID, keyID), &it); err != nil {
		return err
	}
	if err := s.markKeyRevoked(ctx, accountID, keyID); err != nil {
		return err
	}
	if _, err := s.t.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		Key: table.KeyAttrs(keys.APIKeyByHash(it.Hash))}); err != nil {
		return err
	}
	_, err := s.t.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		Key:                 table.KeyAttrs(keys.APIKey(accountID, keyID)),
		ConditionExpression: aws.String(table.ItemExists),
		UpdateExpression:    aws.String("SET revoked_at = if_not_exists(revoked_at, :t)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":t": &types.AttributeValueMemberS{Value: s.t.Now().Format(time.RFC3339Nano)},
		},
	})
	return table.NotFoundOnCondition(err)
}

// AccountForKeyHash finds the account that owns an unrevoked key (one consistent read).
func (s *Store) AccountForKeyHash(ctx context.Context, hash string) (string, error) {
	o, err := s.KeyOwner(ctx, hash)
	return o.AccountID, err
}

// KeyOwner finds the account that owns an unrevoked key and its requests per second
// (one consistent read).
func (s *Store) KeyOwner(ctx context.Context, hash string) (store.KeyOwner, error) {
	var it apiKeyLookupItem
	if err := s.t.Get(ctx, keys.APIKeyByHash(hash), &it); err != nil {
		return store.KeyOwner{}, err
	}
	return store.KeyOwner{AccountID: it.AccountID, KeyID: it.ID, RequestsPerSecond: it.RequestsPerSecond}, nil
}

type memberItem struct {
	PK        string    `dynamodbav:"PK"`
	SK        string    `dynamodbav:"SK"`
	ET        string    `dynamodbav:"et"`
	AccountID string    `dynamodbav:"account_id"`
	Email     string    `dynamodbav:"email"`
	Name      string    `dynamodbav:"name"`
	CreatedAt time.Time `dynamodbav:"created_at"`
}

func (it memberItem) member() model.Member {
	return model.Member{AccountID: it.AccountID, Email: it.Email, Name: it.Name, CreatedAt: it.CreatedAt}
}

// PutMember adds or renames a team member.
func (s *Store) PutMember(ctx context.Context, m model.Member) error {
	if m.CreatedAt.IsZero() {
		m.CreatedAt = s.t.Now()
	}
	k := keys.Member(m.AccountID, m.Email)
	return s.t.Put(ctx, memberItem{PK: k.PK, SK: k.SK, ET: keys.TypeMember, AccountID: m.AccountID,
		Email: m.Email, Name: m.Name, CreatedAt: m.CreatedAt})
}

// GetMember finds a team member by e-mail (case-insensitive).
func (s *Store) GetMember(ctx context.Context, accountID, email string) (model.Member, error) {
	return table.GetOne(ctx, s.t, keys.Member(accountID, email), func(it memberItem) model.Member { return it.member() })
}

// ListMembers returns the account's team.
func (s *Store) ListMembers(ctx context.Context, accountID string) ([]model.Member, error) {
	var items []memberItem
	if err := s.t.QueryPrefix(ctx, keys.AccountPartition(accountID), keys.MemberPrefix, &items); err != nil {
		return nil, err
	}
	out := make([]model.Member, len(items))
	for i, it := range items {
		out[i] = it.member()
	}
	return out, nil
}
