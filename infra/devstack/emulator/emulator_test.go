package emulator

import (
	"bytes"
	"context"
	"errors"
	"github.com/subsight/subsight/infra/repo"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go/logging"
)

func TestFindBinary(t *testing.T) {
	tests := []struct {
		name    string
		env     string
		wantErr bool
	}{
		{"missing override", "/nonexistent/moto_server", true},
		{"existing override", os.Args[0], false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvMotoServer, tc.env)
			got, err := FindBinary()
			if tc.wantErr {
				if !errors.Is(err, ErrNotFound) {
					t.Fatalf("err = %v, want ErrNotFound", err)
				}
				return
			}
			if err != nil || got != tc.env {
				t.Fatalf("FindBinary() = %q, %v", got, err)
			}
		})
	}
}

func TestRepoRoot(t *testing.T) {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(root + "/go.mod"); err != nil {
		t.Fatalf("root %s has no go.mod", root)
	}
}

func TestTailBuffer(t *testing.T) {
	tb := &tailBuffer{max: 4}
	tb.Write([]byte("abc"))
	tb.Write([]byte("defg"))
	if got := tb.String(); got != "defg" {
		t.Fatalf("tail = %q", got)
	}
}

// TestStartServeStop starts a real moto, talks to all three services through the
// SDK and checks that Stop leaves no process behind and the SDK logs no checksum
// warnings.
func TestStartServeStop(t *testing.T) {
	t.Parallel()
	bin := installedBinary(t)
	ctx := context.Background()
	t0 := time.Now()
	s, err := Start(ctx, Options{Binary: bin})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("moto ready in %v at %s", time.Since(t0), s.URL)
	defer s.Stop()

	cfg, err := s.AWSConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The SDK logs through its own logger, not slog: capture that one.
	var logs bytes.Buffer
	cfg.Logger = logging.NewStandardLogger(&logs)
	c := Clients(cfg)
	if _, err := c.DynamoDB.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("t1"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DynamoDB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t1"),
		Item: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "a"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SQS.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q1")}); err != nil {
		t.Fatal(err)
	}
	if _, err := S3(cfg).CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("bucket-one")}); err != nil {
		t.Fatal(err)
	}
	if _, err := S3(cfg).PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("bucket-one"), Key: aws.String("k"), Body: strings.NewReader("x")}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logs.String(), "checksum") {
		t.Errorf("SDK logged a checksum warning: %s", logs.String())
	}

	pid := s.cmd.Process.Pid
	s.Stop()
	s.Stop() // idempotent
	if err := syscall.Kill(-pid, 0); err == nil {
		t.Fatalf("process group %d still alive after Stop", pid)
	}
}

// TestMotoPin: motoserver.py's patches are written for the moto that
// infra/requirements.txt installs.
func TestMotoPin(t *testing.T) {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	req, err := os.ReadFile(filepath.Join(root, "infra", "requirements.txt"))
	if err != nil {
		t.Fatal(err)
	}
	pinned := regexp.MustCompile(`(?m)^moto\[server\]==(\S+)$`).FindSubmatch(req)
	if pinned == nil || string(pinned[1]) != patchedMoto(t) {
		t.Fatalf("infra/requirements.txt pins moto %q, motoserver.py's patches are for %q", pinned, patchedMoto(t))
	}
}

// patchedMoto is motoserver.py's MOTO_VERSION.
func patchedMoto(t *testing.T) string {
	m := regexp.MustCompile(`(?m)^MOTO_VERSION = "([^"]+)"`).FindStringSubmatch(motoServer)
	if m == nil {
		t.Fatal("motoserver.py has no MOTO_VERSION")
	}
	return m[1]
}

// TestRefusesAnotherMoto: with any other moto installed, the server does not start, and
// says why.
func TestRefusesAnotherMoto(t *testing.T) {
	bin := installedBinary(t)
	// The distribution metadata found first on the path is the installed version.
	dir := t.TempDir()
	meta := filepath.Join(dir, "moto-0.0.1.dist-info")
	if err := os.Mkdir(meta, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(meta, "METADATA"), []byte("Metadata-Version: 2.1\nName: moto\nVersion: 0.0.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PYTHONPATH", dir)
	s, err := Start(context.Background(), Options{Binary: bin})
	if err == nil {
		s.Stop()
		t.Fatal("moto started with moto 0.0.1 installed")
	}
	if want := "written for moto " + patchedMoto(t) + ", but moto 0.0.1 is installed"; !strings.Contains(err.Error(), want) {
		t.Errorf("error does not say %q: %v", want, err)
	}
}

// installedBinary is the moto_server to test; the test skips where none is installed.
func installedBinary(t testing.TB) string {
	t.Helper()
	bin, err := FindBinary()
	if errors.Is(err, ErrNotFound) {
		t.Skip(SkipNotInstalled)
	}
	if err != nil {
		t.Fatal(err)
	}
	return bin
}
