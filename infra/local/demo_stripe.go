package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/subsight/subsight/infra/testkit/stripegen"
)

// make demo SOURCE=stripe: a generated Stripe history of N customers (stripegen.History,
// twelve months up to now) sent through the running stack's webhook endpoint as Stripe
// would send it, each event signed with the data source's webhook secret at the moment
// it is sent. Each customer's events go in order; stripeSenders customers' at a time.

// stripeSenders is how many deliveries are in flight at once: modest, as Stripe's own
// are, and enough to keep the local pollers busy.
const stripeSenders = 8

// loadStripeDemo creates and connects a data source, sends the history and follows the
// metrics until they settle.
func loadStripeDemo(ctx context.Context, api *demoClient, customers int, seed uint64, now time.Time, out io.Writer) error {
	start := time.Now()
	var ds struct {
		UUID string `json:"uuid"`
	}
	name := fmt.Sprintf("Stripe (generated), %d customers (%s)", customers, now.Format("2006-01-02 15:04:05"))
	if err := api.call(ctx, http.MethodPost, "/v1/data_sources", map[string]any{"name": name}, &ds); err != nil {
		return fmt.Errorf("data source: %w", err)
	}
	secret := "whsec_" + randomSecret()
	var conn struct {
		WebhookURL string `json:"webhook_url"`
	}
	if err := api.call(ctx, http.MethodPut, "/v1/data_sources/"+ds.UUID+"/stripe", map[string]any{"webhook_secret": secret}, &conn); err != nil {
		return fmt.Errorf("connect the data source to Stripe: %w", err)
	}
	url := conn.WebhookURL
	if url == "" {
		url = api.base + "/stripe/webhooks/" + ds.UUID
	}
	history, err := stripegen.History(stripegen.Options{Customers: customers, Seed: seed, End: now})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Data source %s connected; sending %d Stripe events of %d customers to %s\n", ds.UUID, len(history), customers, url)

	p := &demoProgress{api: api, ds: ds.UUID, now: now, start: start, out: io.Discard}
	if err := p.pollMetrics(ctx); err != nil {
		return err
	}
	s := &stripeSender{http: api.http, url: url, secret: secret}
	// The catalog first, then every customer's events by their senders.
	lanes := make([][]stripegen.Delivery, stripeSenders)
	for _, d := range history {
		if d.Customer == "" {
			if err := s.send(ctx, d); err != nil {
				return err
			}
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(d.Customer))
		lane := h.Sum32() % stripeSenders
		lanes[lane] = append(lanes[lane], d)
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(time.Second):
				s.report(out, len(history), start)
			}
		}
	}()
	var wg sync.WaitGroup
	errs := make([]error, stripeSenders)
	for i, lane := range lanes {
		wg.Go(func() {
			for _, d := range lane {
				if errs[i] = s.send(ctx, d); errs[i] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	close(done)
	s.report(out, len(history), start)
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "\nSent %d events in %v; waiting for the metrics to settle\n", len(history), time.Since(start).Round(time.Second))
	for {
		if err := p.pollMetrics(ctx); err != nil {
			return err
		}
		if time.Since(p.unchangedSince) >= 15*time.Second {
			break
		}
		if err := pause(ctx, 5*time.Second); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "The metrics have settled (%d customers active today in the account), %v after the first event. Dashboard: %s/\n",
		p.counted, time.Since(start).Round(time.Second), api.base)
	return nil
}

// stripeSender posts signed deliveries and counts them.
type stripeSender struct {
	http        *http.Client
	url, secret string
	sent, again atomic.Int64
}

// send delivers one event, signed now, and sends it again while the stack answers 429
// or 5xx (as Stripe retries), at most ten times.
func (s *stripeSender) send(ctx context.Context, d stripegen.Delivery) error {
	for attempt := range 10 {
		if attempt > 0 {
			s.again.Add(1)
			if err := pause(ctx, time.Duration(attempt)*500*time.Millisecond); err != nil {
				return err
			}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(d.Payload))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json; charset=utf-8")
		req.Header.Set("Stripe-Signature", stripegen.Sign(d.Payload, s.secret, time.Now()))
		resp, err := s.http.Do(req)
		if err != nil {
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusOK:
			s.sent.Add(1)
			return nil
		case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
			continue
		default:
			return fmt.Errorf("%s (%s): %d %s", d.ID, d.Type, resp.StatusCode, strings.TrimSpace(string(body)))
		}
	}
	return fmt.Errorf("%s (%s): no 200 after ten attempts", d.ID, d.Type)
}

func (s *stripeSender) report(out io.Writer, total int, start time.Time) {
	sent, elapsed := s.sent.Load(), time.Since(start)
	fmt.Fprintf(out, "\r%d of %d events delivered (%d sent again), %.0f events/s, %v elapsed   ",
		sent, total, s.again.Load(), float64(sent)/elapsed.Seconds(), elapsed.Round(time.Second))
}

func randomSecret() string {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
