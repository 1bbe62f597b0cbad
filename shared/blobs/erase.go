package blobs

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// AccountPrefixes are the prefixes of every object of an account: its import parts and
// lane chunks (imports/<account>/…, written by the json_imports intake) and its
// activities exports (exports/<account>/…, written by the jobs worker).
func AccountPrefixes(accountID string) []string {
	return []string{"imports/" + accountID + "/", "exports/" + accountID + "/"}
}

// DeletePrefix deletes every object whose key begins with prefix, a listing page (up
// to 1,000 keys) per DeleteObjects request, and returns how many it deleted.
func (s *Store) DeletePrefix(ctx context.Context, prefix string) (int, error) {
	n := 0
	p := s3.NewListObjectsV2Paginator(s.client(), &s3.ListObjectsV2Input{Bucket: aws.String(s.bucket), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return n, err
		}
		if len(page.Contents) == 0 {
			continue
		}
		ids := make([]types.ObjectIdentifier, len(page.Contents))
		for i, o := range page.Contents {
			ids[i] = types.ObjectIdentifier{Key: o.Key}
		}
		out, err := s.client().DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(s.bucket),
			Delete: &types.Delete{Objects: ids, Quiet: aws.Bool(true)}})
		if err != nil {
			return n, err
		}
		if len(out.Errors) > 0 {
			e := out.Errors[0]
			return n, fmt.Errorf("delete %s: %s %s (and %d more)", aws.ToString(e.Key), aws.ToString(e.Code), aws.ToString(e.Message), len(out.Errors)-1)
		}
		n += len(ids)
	}
	return n, nil
}
