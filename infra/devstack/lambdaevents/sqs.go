// Package lambdaevents builds the events that AWS services hand to Lambda functions,
// for the local stack (which plays the event sources) and for tests that invoke real
// bootstraps.
package lambdaevents

import (
	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// SQS is the event Lambda's SQS event source mapping builds from a received batch.
// The messages must have been received with all system and message attributes.
func SQS(ms []types.Message, queueARN, region string) events.SQSEvent {
	ev := events.SQSEvent{Records: make([]events.SQSMessage, 0, len(ms))}
	for _, m := range ms {
		rec := events.SQSMessage{
			MessageId:              aws.ToString(m.MessageId),
			ReceiptHandle:          aws.ToString(m.ReceiptHandle),
			Body:                   aws.ToString(m.Body),
			Md5OfBody:              aws.ToString(m.MD5OfBody),
			Md5OfMessageAttributes: aws.ToString(m.MD5OfMessageAttributes),
			Attributes:             map[string]string{},
			MessageAttributes:      map[string]events.SQSMessageAttribute{},
			EventSourceARN:         queueARN,
			EventSource:            "aws:sqs",
			AWSRegion:              region,
		}
		for k, v := range m.Attributes {
			rec.Attributes[k] = v
		}
		for k, v := range m.MessageAttributes {
			rec.MessageAttributes[k] = events.SQSMessageAttribute{
				StringValue: v.StringValue, BinaryValue: v.BinaryValue, DataType: aws.ToString(v.DataType),
				StringListValues: nonNil(v.StringListValues), BinaryListValues: nonNilB(v.BinaryListValues),
			}
		}
		ev.Records = append(ev.Records, rec)
	}
	return ev
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilB(s [][]byte) [][]byte {
	if s == nil {
		return [][]byte{}
	}
	return s
}
