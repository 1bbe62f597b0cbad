package series

import (
	"context"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

type activitiesExportItem struct {
	PK        string            `dynamodbav:"PK"`
	SK        string            `dynamodbav:"SK"`
	ET        string            `dynamodbav:"et"`
	ID        string            `dynamodbav:"id"`
	Type      string            `dynamodbav:"type,omitempty"`
	From      *time.Time        `dynamodbav:"from,omitempty"`
	To        *time.Time        `dynamodbav:"to,omitempty"`
	Status    string            `dynamodbav:"status"`
	FileKey   string            `dynamodbav:"file,omitempty"`
	Rows      int               `dynamodbav:"rows,omitempty"`
	Part      int               `dynamodbav:"part,omitempty"`
	Next      map[string]string `dynamodbav:"next,omitempty"`
	CreatedAt time.Time         `dynamodbav:"ca"`
	UpdatedAt time.Time         `dynamodbav:"ua"`
}

func optTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func (it activitiesExportItem) export(accountID string) model.ActivitiesExport {
	e := model.ActivitiesExport{AccountID: accountID, ID: it.ID, Type: it.Type, Status: it.Status, FileKey: it.FileKey,
		Rows: it.Rows, Part: it.Part, Next: it.Next, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt}
	if it.From != nil {
		e.From = *it.From
	}
	if it.To != nil {
		e.To = *it.To
	}
	return e
}

// CreateActivitiesExport records a new export request (pending).
func (s *Store) CreateActivitiesExport(ctx context.Context, e model.ActivitiesExport) error {
	k := keys.ActivitiesExport(e.AccountID, e.ID)
	return s.t.PutNew(ctx, activitiesExportItem{PK: k.PK, SK: k.SK, ET: keys.TypeActivitiesExport, ID: e.ID, Type: e.Type,
		From: optTime(e.From), To: optTime(e.To), Status: e.Status, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt})
}

// GetActivitiesExport reads an export request; store.ErrNotFound when the account has none
// with that id.
func (s *Store) GetActivitiesExport(ctx context.Context, accountID, id string) (model.ActivitiesExport, error) {
	return table.GetOne(ctx, s.t, keys.ActivitiesExport(accountID, id), func(it activitiesExportItem) model.ActivitiesExport { return it.export(accountID) })
}

// FinishActivitiesExport records the outcome of an export (its status, and its file
// and row count when it succeeded) with one UpdateItem, unless it is finished already:
// a redelivered job finds it so and changes nothing (store.ErrConflict).
func (s *Store) FinishActivitiesExport(ctx context.Context, e model.ActivitiesExport) error {
	ua, err := attributevalue.Marshal(e.UpdatedAt)
	if err != nil {
		return err
	}
	_, err = s.t.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		Key:                      table.KeyAttrs(keys.ActivitiesExport(e.AccountID, e.ID)),
		ConditionExpression:      aws.String("#s = :pending"),
		UpdateExpression:         aws.String("SET #s = :s, #f = :f, #r = :r, ua = :ua"),
		ExpressionAttributeNames: map[string]string{"#s": "status", "#f": "file", "#r": "rows"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pending": table.SAttr(model.ExportPending),
			":s": table.SAttr(e.Status), ":f": table.SAttr(e.FileKey), ":r": &types.AttributeValueMemberN{Value: strconv.Itoa(e.Rows)}, ":ua": ua},
	})
	return table.Conflict(err)
}

// SaveActivitiesExportStep records how far a pending export got with one UpdateItem,
// conditional on its part still being part: a step repeated after the next one ran
// finds it moved on (store.ErrConflict).
func (s *Store) SaveActivitiesExportStep(ctx context.Context, e model.ActivitiesExport, part int) error {
	ua, err := attributevalue.Marshal(e.UpdatedAt)
	if err != nil {
		return err
	}
	next, err := attributevalue.Marshal(e.Next)
	if err != nil {
		return err
	}
	_, err = s.t.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		Key:                      table.KeyAttrs(keys.ActivitiesExport(e.AccountID, e.ID)),
		ConditionExpression:      aws.String("#s = :pending AND (attribute_not_exists(#p) OR #p = :prev)"),
		UpdateExpression:         aws.String("SET #p = :p, #n = :n, #r = :r, ua = :ua"),
		ExpressionAttributeNames: map[string]string{"#s": "status", "#p": "part", "#n": "next", "#r": "rows"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pending": table.SAttr(model.ExportPending),
			":prev": &types.AttributeValueMemberN{Value: strconv.Itoa(part)}, ":p": &types.AttributeValueMemberN{Value: strconv.Itoa(e.Part)},
			":n": next, ":r": &types.AttributeValueMemberN{Value: strconv.Itoa(e.Rows)}, ":ua": ua},
	})
	return table.Conflict(err)
}
