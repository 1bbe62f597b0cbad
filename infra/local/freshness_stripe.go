package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"time"

	"github.com/subsight/subsight/infra/testkit/stripegen"
)

// make bench-stripe-freshness: the webhook-to-metrics freshness on the running `make
// run`. A connected data source gets one new customer at a time (stripegen.Signup: its
// creation, a monthly subscription, its first invoice finalized and paid); the time from
// the 200 of the invoice.paid delivery until the Metrics API's MRR of today holds the
// new subscription is one sample. One at a time, so that each change of the account's
// MRR is the sample's own; the p50 and p95 of the samples are printed.

// runStripeFreshness is `go run ./infra/local stripe-freshness [-samples N] [-stack FILE]`.
func runStripeFreshness(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("stripe-freshness", flag.ContinueOnError)
	samples := fs.Int("samples", 30, "how many new customers to time")
	stackFile := fs.String("stack", os.Getenv("LOCAL_STACK_FILE"), "the running stack's file (default .local/stack.json)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	info, err := readRunningStack(*stackFile)
	if err != nil {
		return err
	}
	api := &demoClient{base: info.BaseURL, key: info.APIKey, http: &http.Client{Timeout: 60 * time.Second}}
	got, err := measureStripeFreshness(ctx, api, *samples, os.Stdout)
	if err != nil {
		return err
	}
	ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	fmt.Printf("\nwebhook-to-metrics freshness over %d new customers: p50 %v, p95 %v, max %v\n", len(got),
		ms(percentile(got, 50)), ms(percentile(got, 95)), ms(slices.Max(got)))
	return nil
}

func measureStripeFreshness(ctx context.Context, api *demoClient, samples int, out io.Writer) ([]time.Duration, error) {
	var ds struct {
		UUID string `json:"uuid"`
	}
	now := time.Now().UTC()
	if err := api.call(ctx, http.MethodPost, "/v1/data_sources", map[string]any{"name": "Stripe freshness " + now.Format(time.RFC3339)}, &ds); err != nil {
		return nil, err
	}
	secret := "whsec_" + randomSecret()
	if err := api.call(ctx, http.MethodPut, "/v1/data_sources/"+ds.UUID+"/stripe", map[string]any{"webhook_secret": secret}, nil); err != nil {
		return nil, fmt.Errorf("connect the data source to Stripe: %w", err)
	}
	s := &stripeSender{http: api.http, url: api.base + "/stripe/webhooks/" + ds.UUID, secret: secret}
	price := stripegen.Prices()[0] // monthly: its whole amount is MRR
	run := now.Format("150405")
	var got []time.Duration
	for i := range samples {
		before, err := todaysMRR(ctx, api)
		if err != nil {
			return nil, err
		}
		events := stripegen.Signup(fmt.Sprintf("fr%s%04d", run, i), time.Now(), price)
		for _, d := range events {
			if err := s.send(ctx, d); err != nil {
				return nil, err
			}
		}
		sent := time.Now()
		for {
			mrr, err := todaysMRR(ctx, api)
			if err != nil {
				return nil, err
			}
			if mrr >= before+float64(price.UnitAmount) {
				break
			}
			if time.Since(sent) > 2*time.Minute {
				return nil, fmt.Errorf("sample %d: today's MRR still %.0f two minutes after the invoice was paid (before: %.0f)", i, mrr, before)
			}
			if err := pause(ctx, 50*time.Millisecond); err != nil {
				return nil, err
			}
		}
		got = append(got, time.Since(sent))
		fmt.Fprintf(out, "\rsample %d of %d: %v   ", i+1, samples, got[len(got)-1].Round(time.Millisecond))
	}
	return got, nil
}

// todaysMRR is the account's MRR of today on the Metrics API (cents).
func todaysMRR(ctx context.Context, api *demoClient) (float64, error) {
	day := time.Now().UTC().Format(time.DateOnly)
	var mrr struct {
		Entries []struct {
			MRR float64 `json:"mrr"`
		} `json:"entries"`
	}
	if err := api.call(ctx, http.MethodGet, "/v1/metrics/mrr?start-date="+day+"&end-date="+day+"&interval=day", nil, &mrr); err != nil {
		return 0, err
	}
	if len(mrr.Entries) == 0 {
		return 0, nil
	}
	return mrr.Entries[len(mrr.Entries)-1].MRR, nil
}

// percentile is the nearest-rank percentile (the local benchmarks' too).
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[max(0, (p*len(s)+99)/100-1)]
}
