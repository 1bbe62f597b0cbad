// Package cursor makes opaque, tamper-evident pagination cursors. A cursor carries a
// listing position (the store's page token, which this package never reads), bound by
// an HMAC to the account and to the listing that made it, so a crafted cursor can
// neither move a query to another partition nor be replayed against another listing.
package cursor

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
)

// ErrInvalid is returned for any cursor that was not made by this signer for this
// account and scope.
var ErrInvalid = errors.New("invalid cursor")

// Signer signs and verifies cursors with one secret.
type Signer struct{ secret []byte }

// NewSigner returns a signer; the secret must be stable across all functions.
func NewSigner(secret string) *Signer { return &Signer{secret: []byte(secret)} }

type payload struct {
	Scope    string            `json:"s"`
	Position map[string]string `json:"k"`
}

// Encode returns the cursor of a listing position; nil when there is none. Scope names
// the listing (e.g. "customers?status=Active").
func (s *Signer) Encode(accountID, scope string, position map[string]string) (*string, error) {
	if len(position) == 0 {
		return nil, nil
	}
	body, err := json.Marshal(payload{Scope: scope, Position: position})
	if err != nil {
		return nil, err
	}
	mac := s.mac(accountID, body)
	out := base64.RawURLEncoding.EncodeToString(body) + "." + base64.RawURLEncoding.EncodeToString(mac)
	return &out, nil
}

// Decode verifies a cursor and returns the position it carries.
func (s *Signer) Decode(accountID, scope, cursor string) (map[string]string, error) {
	bodyPart, macPart, ok := strings.Cut(cursor, ".")
	if !ok {
		return nil, ErrInvalid
	}
	body, err1 := base64.RawURLEncoding.DecodeString(bodyPart)
	mac, err2 := base64.RawURLEncoding.DecodeString(macPart)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, s.mac(accountID, body)) {
		return nil, ErrInvalid
	}
	var p payload
	if err := json.Unmarshal(body, &p); err != nil || p.Scope != scope || len(p.Position) == 0 {
		return nil, ErrInvalid
	}
	return p.Position, nil
}

func (s *Signer) mac(accountID string, body []byte) []byte {
	h := hmac.New(sha256.New, s.secret)
	h.Write([]byte(accountID))
	h.Write([]byte{0})
	h.Write(body)
	return h.Sum(nil)
}
