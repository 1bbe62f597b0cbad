// Package testenv gives Go integration tests in any package the real resources of
// template.yaml in moto: one moto server per test binary, and a fresh, uniquely named
// set of table, queues and bucket per Env, so tests never see each other's data.
//
//	func TestMain(m *testing.M) { testenv.Main(m) }
//
//	func TestSomething(t *testing.T) {
//		env := testenv.New(t)
//		env.Deps.Store...
//	}
package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/subsight/subsight/infra/devstack/emulator"
	"github.com/subsight/subsight/infra/devstack/provision"
	"github.com/subsight/subsight/infra/devstack/samtemplate"
	"github.com/subsight/subsight/infra/repo"
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/app"
	"github.com/subsight/subsight/shared/workers"
)

// Env is one test's set of resources and the dependencies wired to them.
type Env struct {
	Deps *app.Deps
	// API and Workers are what the HTTP operations and the workers get from Deps.
	API       *api.Deps
	Workers   *workers.Deps
	Resources *provision.Resources
	Template  *samtemplate.Template
	// AWS is the SDK configuration for the emulator; Endpoint its URL.
	AWS      aws.Config
	Endpoint string
	// Vars is the functions' environment as the template declares it (Globals and
	// each function's own), resolved to this Env's resources.
	Vars map[string]map[string]string

	TableName, ImportBucket      string
	ImportQueueURL, JobsQueueURL string
	ImportDLQURL, JobsDLQURL     string
	// RecomputeQueueURL is the bulk lane of recomputations, SeriesFoldQueueURL the
	// series folds (DrainJobs runs them with the jobs queue).
	RecomputeQueueURL, SeriesFoldQueueURL string
	CursorSecret                          string
}

var shared struct {
	once     sync.Once
	err      error
	server   *emulator.Server
	template *samtemplate.Template
	aws      aws.Config
}

// Main runs the package's tests and stops the shared moto afterwards. Call it from
// TestMain. Without it moto still dies with the test binary (the kernel kills it on
// Linux), but an explicit stop is cleaner.
func Main(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

// Stop stops the shared moto server if one was started.
func Stop() {
	if shared.server != nil {
		shared.server.Stop()
	}
}

func setup() error {
	bin, err := emulator.FindBinary()
	if err != nil {
		return fmt.Errorf("%w\nRun the tests with `make test`, which installs the pinned moto into .venv/, or set %s=/path/to/moto_server", err, emulator.EnvMotoServer)
	}
	root, err := repo.Root()
	if err != nil {
		return err
	}
	tpl, err := samtemplate.ParseFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv, err := emulator.Start(ctx, emulator.Options{Binary: bin})
	if err != nil {
		return err
	}
	cfg, err := srv.AWSConfig(context.Background())
	if err != nil {
		srv.Stop()
		return err
	}
	shared.server, shared.template, shared.aws = srv, tpl, cfg
	return nil
}

// New provisions a fresh set of the template's resources for this test and returns
// dependencies wired to them. Where moto is not installed it skips the test with
// emulator.SkipNotInstalled; after make test or make run it starts the installed one.
func New(t testing.TB) *Env {
	t.Helper()
	shared.once.Do(func() { shared.err = setup() })
	if errors.Is(shared.err, emulator.ErrNotFound) {
		t.Skip(emulator.SkipNotInstalled)
	}
	if shared.err != nil {
		t.Fatalf("testenv: %v", shared.err)
	}
	ctx := context.Background()
	prefix := "t-" + randomHex(5)
	res, err := provision.Provision(ctx, shared.template, shared.aws, provision.Options{Prefix: prefix})
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	secret := randomHex(32)
	e := &Env{
		Resources: res, Template: shared.template, AWS: shared.aws, Endpoint: shared.server.URL,
		Vars: map[string]map[string]string{}, CursorSecret: secret,
	}
	resolver := res.Resolver(shared.template, secret)
	globals := map[string]string{}
	for _, id := range shared.template.FunctionIDs() {
		vars, err := shared.template.FunctionEnv(id, resolver)
		if err != nil {
			t.Fatalf("testenv: %v", err)
		}
		e.Vars[id] = vars
		for k, v := range vars {
			globals[k] = v
		}
	}
	e.TableName = res.Tables["Table"]
	e.ImportBucket = res.Buckets["ImportBucket"]
	e.ImportQueueURL = res.Queues["ImportQueue"].URL
	e.JobsQueueURL = res.Queues["JobsQueue"].URL
	e.ImportDLQURL = res.Queues["ImportDeadLetterQueue"].URL
	e.JobsDLQURL = res.Queues["JobsDeadLetterQueue"].URL
	e.RecomputeQueueURL = res.Queues["RecomputeQueue"].URL
	e.SeriesFoldQueueURL = res.Queues["SeriesFoldQueue"].URL
	cfg, err := provision.AppConfig(globals)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	e.Deps = app.New(cfg, emulator.Clients(shared.aws))
	e.API, e.Workers = e.Deps.API(), e.Deps.Workers()
	// Handler tests call endpoints behind the same rate gate as the Lambdas, counting
	// on this Env's table (and never on a metered client: the gate's write is its own
	// figure, not each operation's).
	apigwtest.UseGate(e.Deps.Gate())
	t.Cleanup(func() { e.cleanup() })
	return e
}

// With wires the Env's dependencies again on another DynamoDB client (a metered one)
// and clock; nil keeps the Env's.
func (e *Env) With(db *dynamodb.Client, now func() time.Time) *app.Deps {
	clients := e.Deps.Clients
	if db != nil {
		clients.DynamoDB = db
	}
	if now == nil {
		now = e.Deps.Now
	}
	return app.Wire(e.Deps.Config, clients, now)
}

// S3 returns an S3 client for the emulator (path style).
func (e *Env) S3() *s3.Client { return emulator.S3(e.AWS) }

// cleanup deletes the Env's resources so a long test binary does not grow moto's
// memory; failures do not matter, the server dies with the binary.
func (e *Env) cleanup() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := e.Deps.Clients
	for _, name := range e.Resources.Tables {
		_, _ = c.DynamoDB.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	}
	for _, q := range e.Resources.Queues {
		_, _ = c.SQS.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(q.URL)})
	}
	s3c := e.S3()
	for _, b := range e.Resources.Buckets {
		p := s3.NewListObjectsV2Paginator(s3c, &s3.ListObjectsV2Input{Bucket: aws.String(b)})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				break
			}
			for _, o := range page.Contents {
				_, _ = s3c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(b), Key: o.Key})
			}
		}
		_, _ = s3c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(b)})
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(errors.New("testenv: no randomness"))
	}
	return hex.EncodeToString(b)
}
