package cursor

import (
	"strings"
	"testing"
)

func TestRoundTripAndTampering(t *testing.T) {
	signer := NewSigner("0123456789abcdef0123")
	last := map[string]string{"PK": "acc_1#CUS#x", "SK": "CUSTOMER", "GSI1PK": "acc_1#CUSTOMERS", "GSI1SK": "000001"}
	c, err := signer.Encode("acc_1", "customers", last)
	if err != nil || c == nil {
		t.Fatalf("encode: %v", err)
	}
	got, err := signer.Decode("acc_1", "customers", *c)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if got["GSI1SK"] != "000001" || len(got) != len(last) {
		t.Fatalf("round trip lost the key: %v", got)
	}

	body, mac, _ := strings.Cut(*c, ".")
	forged, _ := signer.Encode("acc_2", "customers", map[string]string{"PK": "acc_2#CUS#y"})
	tests := []struct {
		name, account, scope, cursor string
	}{
		{"other account", "acc_2", "customers", *c},
		{"other listing", "acc_1", "plans", *c},
		{"flipped body", "acc_1", "customers", "x" + body[1:] + "." + mac},
		{"no signature", "acc_1", "customers", body},
		{"garbage", "acc_1", "customers", "not-a-cursor"},
		{"empty", "acc_1", "customers", ""},
		{"another account's cursor", "acc_1", "customers", *forged},
		{"other secret", "acc_1", "customers", func() string {
			c2, _ := NewSigner("another-secret-0000").Encode("acc_1", "customers", last)
			return *c2
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := signer.Decode(tt.account, tt.scope, tt.cursor); err != ErrInvalid {
				t.Fatalf("want ErrInvalid, got %v", err)
			}
		})
	}
}

func TestNoPositionHasNoCursor(t *testing.T) {
	c, err := NewSigner("0123456789abcdef0123").Encode("acc_1", "x", nil)
	if err != nil || c != nil {
		t.Fatalf("got %v, %v", c, err)
	}
}
