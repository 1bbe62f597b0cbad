// Package secrets seals the secrets a data source holds (a Stripe webhook secret, a
// restricted API key) so that the table stores only ciphertext, bound to the account
// and data source it belongs to: a sealed value copied to another data source does not
// open.
package secrets

import (
	"context"
	"errors"
)

// Binding is what a sealed value belongs to; opening it under another binding fails.
type Binding struct {
	AccountID      string
	DataSourceUUID string
}

// Sealer encrypts and decrypts secrets.
type Sealer interface {
	Seal(ctx context.Context, plaintext []byte, b Binding) ([]byte, error)
	Open(ctx context.Context, sealed []byte, b Binding) ([]byte, error)
}

// ErrNotOpened is the error of Open for a sealed value that does not open under the
// binding: tampered, sealed for another account or data source, or under another key.
var ErrNotOpened = errors.New("secrets: the sealed value does not open under this binding")
