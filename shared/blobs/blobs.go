// Package blobs is the S3 adapter of the import pipeline: payload parts are stored
// under a key per account and import, and the queue messages carry only the key.
package blobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/subsight/subsight/shared/awsclients"
)

// ErrNotFound: no object under the key.
var ErrNotFound = errors.New("blob not found")

// Store reads and writes the import bucket.
type Store struct {
	cfg    aws.Config
	bucket string
	once   sync.Once
	s3     *s3.Client
}

// New returns a store on bucket. Its S3 client is built on first use (only Put and Get
// build it), so that only the binaries that read or write import parts link the S3
// client.
func New(cfg aws.Config, bucket string) *Store { return &Store{cfg: cfg, bucket: bucket} }

func (s *Store) client() *s3.Client {
	s.once.Do(func() { s.s3 = awsclients.S3(s.cfg) })
	return s.s3
}

// ImportKey is where one part of an import lives: every key starts with the account
// id, so a key never reaches another account's objects.
func ImportKey(accountID, dsUUID, importID, part string) string {
	return fmt.Sprintf("imports/%s/%s/%s/%s.json", accountID, dsUUID, importID, part)
}

// Put writes an object (overwriting: a retried intake writes the same content).
func (s *Store) Put(ctx context.Context, key string, body []byte) error {
	if s.bucket == "" {
		return errors.New("blobs: IMPORT_BUCKET is not configured")
	}
	_, err := s.client().PutObject(ctx, &s3.PutObjectInput{
		Bucket:        aws.String(s.bucket),
		Key:           aws.String(key),
		Body:          bytes.NewReader(body),
		ContentLength: aws.Int64(int64(len(body))),
		ContentType:   aws.String("application/json"),
	})
	return err
}

// Get reads an object.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	out, err := s.client().GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil {
		var nsk *types.NoSuchKey
		if errors.As(err, &nsk) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	defer out.Body.Close()
	return io.ReadAll(out.Body)
}
