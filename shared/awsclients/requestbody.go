package awsclients

import (
	"context"
	"io"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
)

// LoadConfig is config.LoadDefaultConfig with the SDK's HTTP client wrapped against a
// race that makes the SDK send a request twice (requestBodyClient). Every client of
// the service, the emulator's included, is built from a configuration loaded here.
// The wrapping comes after loading, which needs the SDK's own client type (it adds
// AWS_CA_BUNDLE to it).
//
// LoadDefaultConfig leaves HTTPClient nil unless an option or AWS_CA_BUNDLE sets one
// (Lambda sets neither); each service client would then build its own default. The
// wrapper needs one to wrap, so it gets that same default.
func LoadConfig(ctx context.Context, optFns ...func(*awsconfig.LoadOptions) error) (aws.Config, error) {
	cfg, err := awsconfig.LoadDefaultConfig(ctx, optFns...)
	if err != nil {
		return cfg, err
	}
	next := cfg.HTTPClient
	if next == nil {
		next = awshttp.NewBuildableClient()
	}
	if b, ok := next.(*awshttp.BuildableClient); ok {
		next = b.WithTransportOptions(func(t *http.Transport) { t.MaxIdleConnsPerHost = MaxParallelRequests })
	}
	cfg.HTTPClient = requestBodyClient{next}
	return cfg, nil
}

// MaxParallelRequests is how many requests one function sends at once at most (the
// import worker's claims of external ids), and how many idle connections its client
// keeps to each endpoint, so that they are reused rather than opened again (the SDK's
// default keeps 10).
const MaxParallelRequests = 64

// requestBodyClient hides io.WriterTo on the request bodies it sends.
//
// smithy-go wraps every request body in a reader that the SDK closes as soon as the
// response headers arrive, and whose WriteTo answers io.EOF once closed. net/http
// reads a body once more after sending it, to check that nothing follows the
// declared length, with io.Copy, which goes through WriteTo and so takes that io.EOF
// for a failure when the response came first (a fast server, a busy client). The
// transport then closes the connection: the response body being read fails, or the
// round trip returns the error, and the SDK retries a request the server already
// applied; a conditional write then fails against its own first attempt. Read on the
// closed body ends cleanly (0, io.EOF), which io.Copy takes for the end.
type requestBodyClient struct{ next aws.HTTPClient }

func (c requestBodyClient) Do(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return c.next.Do(req)
	}
	out := req.WithContext(req.Context()) // a shallow copy: the SDK keeps its request
	out.Body = readOnlyBody{req.Body}
	return c.next.Do(out)
}

// readOnlyBody is an io.ReadCloser and nothing more.
type readOnlyBody struct{ io.ReadCloser }
