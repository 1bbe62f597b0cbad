package blobs

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// DownloadURL is a presigned GET of an object, valid for ttl. Presigning is a local
// computation with the function's own credentials (no request, no CA bundle): the URL
// works while those credentials do, so callers keep ttl short and sign again on each
// request. Against the emulator (a path-style endpoint) the URL points at it.
func (s *Store) DownloadURL(ctx context.Context, key string, ttl time.Duration) (string, error) {
	req, err := s3.NewPresignClient(s.client()).PresignGetObject(ctx,
		&s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)}, s3.WithPresignExpires(ttl))
	if err != nil {
		return "", err
	}
	return req.URL, nil
}
