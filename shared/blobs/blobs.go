// Package blobs is the S3 implementation of the import pipeline's parts
// (imports.Parts) and of the activities exports' files (their CSV and its presigned
// download URL): objects of the import bucket, by key.
package blobs

import (
	"bytes"
	"context"
	"errors"
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

// Put writes a JSON object (overwriting: a retried intake writes the same content).
func (s *Store) Put(ctx context.Context, key string, body []byte) error {
	return s.PutFile(ctx, key, "application/json", body)
}

// PutFile writes an object with its content type (overwriting).
func (s *Store) PutFile(ctx context.Context, key, contentType string, body []byte) error {
	if s.bucket == "" {
		return errors.New("blobs: IMPORT_BUCKET is not configured")
	}
	_, err := s.client().PutObject(ctx, &s3.PutObjectInput{
		Bucket:        aws.String(s.bucket),
		Key:           aws.String(key),
		Body:          bytes.NewReader(body),
		ContentLength: aws.Int64(int64(len(body))),
		ContentType:   aws.String(contentType),
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
