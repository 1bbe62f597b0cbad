package blobs

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// ExportKey is where an activities export's CSV lives, under its own prefix of the
// bucket (the functions that write and read it are granted that prefix only); the key
// starts with the account id.
func ExportKey(accountID, exportID string) string {
	return fmt.Sprintf("exports/%s/%s.csv", accountID, exportID)
}

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
