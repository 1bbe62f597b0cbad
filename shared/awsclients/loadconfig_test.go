package awsclients

import (
	"context"
	"encoding/pem"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// lambdaLikeEnv leaves only what Lambda gives a function: a region, credentials and,
// here, the endpoint of the test server. Nothing of this machine's AWS setup
// (AWS_CA_BUNDLE, profiles, config files) reaches LoadDefaultConfig.
func lambdaLikeEnv(t *testing.T, endpoint string) {
	t.Helper()
	for _, k := range []string{"AWS_CA_BUNDLE", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN",
		"AWS_ENDPOINT_URL_DYNAMODB", "AWS_USE_FIPS_ENDPOINT", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"} {
		t.Setenv(k, "") // restored after the test
		os.Unsetenv(k)
	}
	missing := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{
		"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "AKIDLAMBDA", "AWS_SECRET_ACCESS_KEY": "secret",
		"AWS_ENDPOINT_URL": endpoint, "AWS_CONFIG_FILE": missing, "AWS_SHARED_CREDENTIALS_FILE": missing,
	} {
		t.Setenv(k, v)
	}
}

// putItem makes a DynamoDB request with a body through the configuration; a panic
// in the SDK's HTTP client is reported as an error.
func putItem(cfg aws.Config) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	_, err = dynamodb.NewFromConfig(cfg).PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("t"),
		Item: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "k"}}})
	return err
}

// dynamoServer answers every request with an empty DynamoDB response and counts the
// requests whose body names the table.
func dynamoServer(bodies *atomic.Int32) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if strings.Contains(string(b), `"TableName":"t"`) {
			bodies.Add(1)
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte("{}"))), 10))
		_, _ = io.WriteString(w, "{}")
	})
}

// TestLoadConfigAsOnLambda: LoadConfig works with what Lambda provides, with or
// without AWS_CA_BUNDLE or an HTTP client of the caller's, and always hides WriteTo
// on request bodies (requestBodyClient). Without AWS_CA_BUNDLE or an option the SDK
// sets no HTTP client of its own; wrapping that nil made every request panic.
func TestLoadConfigAsOnLambda(t *testing.T) {
	var callerClientUsed atomic.Int32
	tests := []struct {
		name string
		tls  bool
		// setUp may set more of the environment or return options for LoadConfig.
		setUp func(t *testing.T, srv *httptest.Server) []func(*awsconfig.LoadOptions) error
	}{
		{"no options, no AWS_CA_BUNDLE (Lambda)", false, nil},
		{"AWS_CA_BUNDLE naming the server's certificate", true,
			func(t *testing.T, srv *httptest.Server) []func(*awsconfig.LoadOptions) error {
				bundle := filepath.Join(t.TempDir(), "ca.pem")
				pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
				if err := os.WriteFile(bundle, pemBytes, 0o600); err != nil {
					t.Fatal(err)
				}
				t.Setenv("AWS_CA_BUNDLE", bundle)
				return nil
			}},
		{"an HTTP client of the caller's", false,
			func(t *testing.T, srv *httptest.Server) []func(*awsconfig.LoadOptions) error {
				return []func(*awsconfig.LoadOptions) error{awsconfig.WithHTTPClient(countingClient{&callerClientUsed})}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var bodies atomic.Int32
			srv := httptest.NewUnstartedServer(dynamoServer(&bodies))
			if tc.tls {
				srv.StartTLS()
			} else {
				srv.Start()
			}
			defer srv.Close()
			lambdaLikeEnv(t, srv.URL)
			var opts []func(*awsconfig.LoadOptions) error
			if tc.setUp != nil {
				opts = tc.setUp(t, srv)
			}
			cfg, err := LoadConfig(context.Background(), opts...)
			if err != nil {
				t.Fatal(err)
			}
			wrapper, ok := cfg.HTTPClient.(requestBodyClient)
			if !ok {
				t.Errorf("HTTPClient is %T, want requestBodyClient", cfg.HTTPClient)
			}
			// The SDK's own client, with or without AWS_CA_BUNDLE, keeps a connection
			// for each request an invocation may send at once.
			if b, ok := wrapper.next.(*awshttp.BuildableClient); ok {
				if n := b.GetTransport().MaxIdleConnsPerHost; n != MaxParallelRequests {
					t.Errorf("MaxIdleConnsPerHost %d, want %d", n, MaxParallelRequests)
				}
			} else if tc.setUp == nil || tc.tls {
				t.Errorf("the SDK's client is %T, want *BuildableClient", wrapper.next)
			}
			if err := putItem(cfg); err != nil {
				t.Fatalf("PutItem: %v", err)
			}
			if n := bodies.Load(); n != 1 {
				t.Errorf("the server got %d requests with the body, want 1", n)
			}
		})
	}
	if callerClientUsed.Load() == 0 {
		t.Error("the caller's HTTP client was not used")
	}
}

// countingClient is a caller's HTTP client: it counts its requests.
type countingClient struct{ n *atomic.Int32 }

func (c countingClient) Do(req *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultClient.Do(req)
}

// TestEmptyEndpointVariableIsIgnored: template.yaml declares AWS_ENDPOINT_URL empty (so
// that sam local's --env-vars may set it); on AWS the SDK must then use the service's
// own endpoint, and S3 virtual-host addressing.
func TestEmptyEndpointVariableIsIgnored(t *testing.T) {
	lambdaLikeEnv(t, "")
	t.Setenv("AWS_ENDPOINT_URL_S3", "")
	cfg, err := LoadConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.BaseEndpoint != nil {
		t.Errorf("BaseEndpoint = %q, want none", *cfg.BaseEndpoint)
	}
	if S3(cfg).Options().UsePathStyle {
		t.Error("S3 uses path-style addressing, as for an emulator")
	}
}

// TestWorkerRetries: a worker's DynamoDB client retries in the adaptive mode with more
// attempts, as on Lambda (no AWS_CA_BUNDLE); the API functions' client keeps the
// SDK's default; a configuration's own retryer wins.
func TestWorkerRetries(t *testing.T) {
	lambdaLikeEnv(t, "http://127.0.0.1:1")
	cfg, err := LoadConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sdkDefault := dynamodb.NewFromConfig(cfg).Options().Retryer.MaxAttempts()
	withOwn := cfg.Copy()
	withOwn.Retryer = func() aws.Retryer { return retry.NewStandard() }
	tests := []struct {
		name         string
		client       *dynamodb.Client
		wantAttempts int
	}{
		{"API", New(cfg).DynamoDB, sdkDefault},
		{"worker", dynamodb.NewFromConfig(cfg, RetryConflicts, WorkerRetries(cfg)), WorkerMaxAttempts},
		{"worker with the configuration's retryer", dynamodb.NewFromConfig(withOwn, RetryConflicts, WorkerRetries(withOwn)), retry.DefaultMaxAttempts},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.client.Options().Retryer.MaxAttempts(); got != tc.wantAttempts {
				t.Errorf("MaxAttempts = %d, want %d", got, tc.wantAttempts)
			}
		})
	}
}
