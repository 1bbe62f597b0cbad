package awscost_test

import (
	"math"
	"testing"

	"github.com/subsight/subsight/infra/testkit/awscost"
)

func TestPrices(t *testing.T) {
	tests := []struct {
		name string
		u    awscost.Usage
		want float64
	}{
		{"a million write units", awscost.Usage{WRU: 1e6}, 0.625},
		{"a million eventually consistent reads of 4 KB", awscost.Usage{RRU: 0.5e6}, 0.0625},
		{"a million 20 ms invocations at 512 MB", awscost.Usage{LambdaInvocations: 1e6, LambdaGBSeconds: 1e6 * 0.02 * 0.5}, 0.20 + 0.133334},
		{"a million HTTP API requests", awscost.Usage{HTTPRequests: 1e6}, 1},
		{"a million SQS FIFO requests and a thousand S3 puts and gets", awscost.Usage{SQSRequests: 1e6, S3Puts: 1e3, S3Gets: 1e3}, 0.5 + 0.005 + 0.0004},
		{"scaled", awscost.Usage{WRU: 2}.Scale(1e6), 1.25},
	}
	for _, tt := range tests {
		if got := tt.u.Total(); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: $%v, want $%v", tt.name, got, tt.want)
		}
	}
}
