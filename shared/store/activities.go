package store

import "time"

// Activity is what the activity log shows of one movement. It lives in the customer's
// activity partition; GSI1 lists the account's activities by date and GSI2 those of
// one type. Its JSON encoding, with these field names, is what tells a changed
// activity (the account series' content hash of it).
type Activity struct {
	UUID                      string    `dynamodbav:"uuid"`
	Date                      time.Time `dynamodbav:"date"`
	Type                      string    `dynamodbav:"type"`
	Movement                  int64     `dynamodbav:"movement"`
	MRR                       int64     `dynamodbav:"mrr"`
	Description               string    `dynamodbav:"description"`
	SubscriptionExternalID    string    `dynamodbav:"subscription_external_id"`
	SubscriptionSetExternalID string    `dynamodbav:"subscription_set_external_id"`
	PlanExternalID            string    `dynamodbav:"plan_external_id"`
	CustomerUUID              string    `dynamodbav:"customer_uuid"`
	CustomerName              string    `dynamodbav:"customer_name"`
	CustomerExternalID        string    `dynamodbav:"customer_external_id"`
	DataSourceUUID            string    `dynamodbav:"data_source_uuid"`
}
