package kmssealer_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/secrets"
	"github.com/subsight/subsight/shared/secrets/kmssealer"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// countingClient counts a sealer's KMS Decrypt requests.
type countingClient struct {
	next interface {
		Do(*http.Request) (*http.Response, error)
	}
	decrypts *atomic.Int64
}

func (c *countingClient) Do(r *http.Request) (*http.Response, error) {
	if r.Header.Get("X-Amz-Target") == "TrentService.Decrypt" {
		c.decrypts.Add(1)
	}
	return c.next.Do(r)
}

// processes returns a function that starts the sealer of a new process on one Env's
// KMS key (the template's SecretsKey), with its Decrypt requests counted.
func processes(t *testing.T) func() (*kmssealer.Sealer, *atomic.Int64) {
	t.Helper()
	e := testenv.New(t)
	keyID := e.Deps.Config.SecretsKeyID
	if keyID == "" {
		t.Fatal("SECRETS_KEY_ID is not resolved from the template")
	}
	return func() (*kmssealer.Sealer, *atomic.Int64) {
		decrypts := new(atomic.Int64)
		cfg := e.AWS.Copy()
		var next interface {
			Do(*http.Request) (*http.Response, error)
		} = http.DefaultClient
		if cfg.HTTPClient != nil {
			next = cfg.HTTPClient
		}
		cfg.HTTPClient = &countingClient{next: next, decrypts: decrypts}
		return kmssealer.New(cfg, keyID), decrypts
	}
}

var bindA = secrets.Binding{AccountID: "acc_a", DataSourceUUID: "ds_1"}

// TestSealOpen: a sealed secret opens under its binding only, in a process that did not
// seal it; it is not the secret in clear.
func TestSealOpen(t *testing.T) {
	ctx := context.Background()
	process := processes(t)
	sealer, _ := process()
	secret := []byte("whsec_test_0123456789")
	sealed, err := sealer.Seal(ctx, secret, bindA)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, secret) {
		t.Fatal("the sealed value holds the secret in clear")
	}
	tampered := bytes.Clone(sealed)
	tampered[len(tampered)/2] ^= 0x01
	tests := []struct {
		name    string
		sealed  []byte
		binding secrets.Binding
		wantErr error
	}{
		{"its own binding", sealed, bindA, nil},
		{"another account", sealed, secrets.Binding{AccountID: "acc_b", DataSourceUUID: "ds_1"}, secrets.ErrNotOpened},
		{"another data source", sealed, secrets.Binding{AccountID: "acc_a", DataSourceUUID: "ds_2"}, secrets.ErrNotOpened},
		{"a tampered ciphertext", tampered, bindA, secrets.ErrNotOpened},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cold, _ := process()
			got, err := cold.Open(ctx, tt.sealed, tt.binding)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Open = %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr == nil && !bytes.Equal(got, secret) {
				t.Fatalf("Open = %q, want %q", got, secret)
			}
		})
	}
}

// TestIncompleteBinding: nothing is sealed or opened without both halves of a binding.
func TestIncompleteBinding(t *testing.T) {
	ctx := context.Background()
	sealer, _ := processes(t)()
	for _, b := range []secrets.Binding{{AccountID: "acc_a"}, {DataSourceUUID: "ds_1"}} {
		if _, err := sealer.Seal(ctx, []byte("whsec_x"), b); err == nil || !strings.Contains(err.Error(), "binding") {
			t.Fatalf("Seal under %+v = %v, want a binding error", b, err)
		}
	}
}

// TestOpenedOnce: a process pays one Decrypt per sealed value and binding; a failed
// open is not remembered, and a cached value never opens under another binding.
func TestOpenedOnce(t *testing.T) {
	ctx := context.Background()
	process := processes(t)
	sealer, _ := process()
	sealed, err := sealer.Seal(ctx, []byte("rk_test_abcd"), bindA)
	if err != nil {
		t.Fatal(err)
	}
	cold, decrypts := process()
	for range 3 {
		got, err := cold.Open(ctx, sealed, bindA)
		if err != nil || string(got) != "rk_test_abcd" {
			t.Fatalf("Open = %q, %v", got, err)
		}
		got[0] = 'X' // a caller's change does not reach the cache
	}
	if n := decrypts.Load(); n != 1 {
		t.Fatalf("%d Decrypt requests for three opens, want 1", n)
	}
	other := secrets.Binding{AccountID: "acc_b", DataSourceUUID: "ds_1"}
	for range 2 {
		if _, err := cold.Open(ctx, sealed, other); !errors.Is(err, secrets.ErrNotOpened) {
			t.Fatalf("Open under another binding = %v, want ErrNotOpened", err)
		}
	}
	if n := decrypts.Load(); n != 3 {
		t.Fatalf("%d Decrypt requests, want 3 (each failed open asks KMS)", n)
	}
	// The sealing process has what it sealed and needs no Decrypt.
	sealing, sealingDecrypts := process()
	resealed, err := sealing.Seal(ctx, []byte("whsec_y"), bindA)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := sealing.Open(ctx, resealed, bindA); err != nil || string(got) != "whsec_y" || sealingDecrypts.Load() != 0 {
		t.Fatalf("Open after Seal = %q, %v with %d Decrypts, want the secret without one", got, err, sealingDecrypts.Load())
	}
}
