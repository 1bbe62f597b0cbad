// Package cursor makes opaque, tamper-evident pagination cursors. A cursor carries the
// DynamoDB key where the next page starts, bound by an HMAC to the account and to the
// listing that made it, so a crafted cursor can neither move a query to another
// partition nor be replayed against another listing.
package cursor

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/subsight/subsight/shared/keys"
)

// ErrInvalid is returned for any cursor that was not made by this signer for this
// account and scope.
var ErrInvalid = errors.New("invalid cursor")

// Signer signs and verifies cursors with one secret.
type Signer struct{ secret []byte }

// NewSigner returns a signer; the secret must be stable across all functions.
func NewSigner(secret string) *Signer { return &Signer{secret: []byte(secret)} }

type payload struct {
	Scope string            `json:"s"`
	Key   map[string]string `json:"k"`
}

// Encode returns the cursor for a page that ended at lastKey; nil when lastKey is empty.
// Scope names the listing (e.g. "customers?status=Active").
func (s *Signer) Encode(accountID, scope string, lastKey map[string]types.AttributeValue) (*string, error) {
	if len(lastKey) == 0 {
		return nil, nil
	}
	k := make(map[string]string, len(lastKey))
	for name, v := range lastKey {
		sv, ok := v.(*types.AttributeValueMemberS)
		if !ok {
			return nil, errors.New("cursor: non-string key attribute " + name)
		}
		k[name] = sv.Value
	}
	body, err := json.Marshal(payload{Scope: scope, Key: k})
	if err != nil {
		return nil, err
	}
	mac := s.mac(accountID, body)
	out := base64.RawURLEncoding.EncodeToString(body) + "." + base64.RawURLEncoding.EncodeToString(mac)
	return &out, nil
}

// Decode verifies a cursor and returns the ExclusiveStartKey it carries.
func (s *Signer) Decode(accountID, scope, cursor string) (map[string]types.AttributeValue, error) {
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
	if err := json.Unmarshal(body, &p); err != nil || p.Scope != scope || len(p.Key) == 0 {
		return nil, ErrInvalid
	}
	out := make(map[string]types.AttributeValue, len(p.Key))
	for name, v := range p.Key {
		// Defence in depth: every partition attribute must belong to the account.
		if strings.HasSuffix(name, "PK") && !keys.OwnedBy(v, accountID) {
			return nil, ErrInvalid
		}
		out[name] = &types.AttributeValueMemberS{Value: v}
	}
	return out, nil
}

func (s *Signer) mac(accountID string, body []byte) []byte {
	h := hmac.New(sha256.New, s.secret)
	h.Write([]byte(accountID))
	h.Write([]byte{0})
	h.Write(body)
	return h.Sum(nil)
}
