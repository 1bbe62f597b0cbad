package lambdaevents

import (
	"encoding/json"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

func TestSQS(t *testing.T) {
	ev := SQS([]types.Message{{MessageId: aws.String("m1"), ReceiptHandle: aws.String("r"), Body: aws.String("b"),
		MD5OfBody: aws.String("md5"), Attributes: map[string]string{"MessageGroupId": "g"},
		MessageAttributes: map[string]types.MessageAttributeValue{"k": {DataType: aws.String("String"), StringValue: aws.String("v")}}}},
		"arn:q", "us-east-1")
	b, _ := json.Marshal(ev)
	want := `{"Records":[{"messageId":"m1","receiptHandle":"r","body":"b","md5OfBody":"md5","md5OfMessageAttributes":"","attributes":{"MessageGroupId":"g"},"messageAttributes":{"k":{"stringValue":"v","stringListValues":[],"binaryListValues":[],"dataType":"String"}},"eventSourceARN":"arn:q","eventSource":"aws:sqs","awsRegion":"us-east-1"}]}`
	if string(b) != want {
		t.Errorf("event =\n%s\nwant\n%s", b, want)
	}
}
