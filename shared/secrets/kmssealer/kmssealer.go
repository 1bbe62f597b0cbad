// Package kmssealer is the AWS KMS implementation of secrets.Sealer: a secret is
// encrypted under one symmetric key of the stack (SECRETS_KEY_ID) with the binding as
// its encryption context, so KMS itself refuses to decrypt it for another account or
// data source, and the table holds only KMS's ciphertext. Opened secrets are kept for
// the life of the process, so a function pays one Decrypt per data source it serves.
package kmssealer

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/kms/types"

	"github.com/subsight/subsight/shared/secrets"
)

// Encryption context keys: what a sealed value is bound to (also visible in
// CloudTrail's record of each Decrypt, which names the account and data source).
const (
	ContextAccountID      = "account_id"
	ContextDataSourceUUID = "data_source_uuid"
)

// maxOpened bounds the cache of opened secrets; past it the cache starts again empty
// (a function serves few data sources; a worker serving more pays a Decrypt again).
const maxOpened = 4096

// Sealer seals and opens secrets with KMS.
type Sealer struct {
	cfg   aws.Config
	keyID string
	once  sync.Once
	kms   *kms.Client

	mu     sync.Mutex
	opened map[[sha256.Size]byte][]byte
}

var _ secrets.Sealer = (*Sealer)(nil)

// New returns a sealer under the KMS key keyID (an id, ARN or alias). Its KMS client
// is built on first use, so that only the binaries that seal or open secrets link it.
func New(cfg aws.Config, keyID string) *Sealer {
	return &Sealer{cfg: cfg, keyID: keyID, opened: map[[sha256.Size]byte][]byte{}}
}

func (s *Sealer) client() *kms.Client {
	s.once.Do(func() { s.kms = kms.NewFromConfig(s.cfg) })
	return s.kms
}

// encryptionContext is the binding in KMS's words; both parts must be set, else a
// value sealed with an empty part would open for any value of it left empty.
func encryptionContext(b secrets.Binding) (map[string]string, error) {
	if b.AccountID == "" || b.DataSourceUUID == "" {
		return nil, errors.New("kmssealer: the binding needs an account id and a data source uuid")
	}
	return map[string]string{ContextAccountID: b.AccountID, ContextDataSourceUUID: b.DataSourceUUID}, nil
}

// Seal encrypts plaintext (1 to 4,096 bytes) bound to b: one kms:Encrypt.
func (s *Sealer) Seal(ctx context.Context, plaintext []byte, b secrets.Binding) ([]byte, error) {
	if s.keyID == "" {
		return nil, errors.New("kmssealer: SECRETS_KEY_ID is not configured")
	}
	ec, err := encryptionContext(b)
	if err != nil {
		return nil, err
	}
	out, err := s.client().Encrypt(ctx, &kms.EncryptInput{KeyId: aws.String(s.keyID), Plaintext: plaintext,
		EncryptionContext: ec})
	if err != nil {
		return nil, fmt.Errorf("kmssealer: encrypt: %w", err)
	}
	s.remember(cacheKey(out.CiphertextBlob, b), slices.Clone(plaintext))
	return out.CiphertextBlob, nil
}

// Open decrypts a value sealed under b: a kms:Decrypt the first time this process
// opens these bytes under this binding, none after. A value that does not open under
// b (tampered, another binding, another key) is secrets.ErrNotOpened.
func (s *Sealer) Open(ctx context.Context, sealed []byte, b secrets.Binding) ([]byte, error) {
	ec, err := encryptionContext(b)
	if err != nil {
		return nil, err
	}
	k := cacheKey(sealed, b)
	s.mu.Lock()
	p, ok := s.opened[k]
	s.mu.Unlock()
	if ok {
		return slices.Clone(p), nil
	}
	if s.keyID == "" {
		return nil, errors.New("kmssealer: SECRETS_KEY_ID is not configured")
	}
	// KeyId pins the key: a ciphertext of another key in the account is refused too.
	out, err := s.client().Decrypt(ctx, &kms.DecryptInput{CiphertextBlob: sealed, KeyId: aws.String(s.keyID),
		EncryptionContext: ec})
	var invalid *types.InvalidCiphertextException
	var incorrect *types.IncorrectKeyException
	if errors.As(err, &invalid) || errors.As(err, &incorrect) {
		return nil, secrets.ErrNotOpened
	}
	if err != nil {
		return nil, fmt.Errorf("kmssealer: decrypt: %w", err)
	}
	s.remember(k, slices.Clone(out.Plaintext))
	return out.Plaintext, nil
}

func (s *Sealer) remember(k [sha256.Size]byte, plaintext []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.opened) >= maxOpened {
		clear(s.opened)
	}
	s.opened[k] = plaintext
}

// cacheKey digests the sealed bytes with the binding, each part length-prefixed, so a
// value opened under one binding is never served from the cache under another.
func cacheKey(sealed []byte, b secrets.Binding) [sha256.Size]byte {
	h := sha256.New()
	for _, part := range [][]byte{sealed, []byte(b.AccountID), []byte(b.DataSourceUUID)} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write(part)
	}
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}
