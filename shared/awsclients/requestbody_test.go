package awsclients

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// answering records the body of each request it gets and answers 200 with body.
type answering struct {
	body   string
	bodies []io.ReadCloser
}

func (a *answering) Do(req *http.Request) (*http.Response, error) {
	a.bodies = append(a.bodies, req.Body)
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/x-amz-json-1.0"}},
		Body: io.NopCloser(strings.NewReader(a.body)), ContentLength: int64(len(a.body)), Request: req}, nil
}

// TestRequestBodyAfterTheResponse: once the SDK has its response it closes the
// request body; net/http may still read the body then, with io.Copy, to check its
// length. That read must end without an error for every client of the service, or
// the transport closes the connection and the SDK sends the request again
// (requestBodyClient).
func TestRequestBodyAfterTheResponse(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		call func(cfg aws.Config) error
	}{
		{"DynamoDB PutItem", func(cfg aws.Config) error {
			_, err := dynamodb.NewFromConfig(cfg).PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"),
				Item: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "k"}}})
			return err
		}},
		{"SQS DeleteMessage", func(cfg aws.Config) error {
			_, err := sqs.NewFromConfig(cfg).DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String("http://q/1/q"),
				ReceiptHandle: aws.String("r")})
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			server := &answering{body: "{}"}
			cfg := aws.Config{Region: "us-east-1", BaseEndpoint: aws.String("http://127.0.0.1:1"),
				Credentials: credentials.NewStaticCredentialsProvider("k", "s", ""), HTTPClient: requestBodyClient{server}}
			if err := tc.call(cfg); err != nil {
				t.Fatal(err)
			}
			if len(server.bodies) != 1 || server.bodies[0] == nil {
				t.Fatalf("%d requests", len(server.bodies))
			}
			body := server.bodies[0]
			if _, ok := body.(io.WriterTo); ok {
				t.Error("the request body still offers WriteTo")
			}
			if n, err := io.Copy(io.Discard, body); n != 0 || err != nil {
				t.Errorf("reading the closed body: %d bytes, %v; want 0, nil", n, err)
			}
		})
	}
}
