package auth

import (
	"encoding/base64"
	"strings"
	"testing"
)

func basic(userPass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(userPass))
}

func TestKeyFromBasic(t *testing.T) {
	const key = "abcdefghijklmnop_QRS-123"
	tests := []struct {
		name   string
		header string
		ok     bool
	}{
		{"key with empty password", basic(key + ":"), true},
		{"scheme is case-insensitive", "basic " + base64.StdEncoding.EncodeToString([]byte(key+":")), true},
		{"missing header", "", false},
		{"bearer scheme", "Bearer " + key, false},
		{"any password is ignored", basic(key + ":secret"), true},
		{"the key as password too", basic(key + ":" + key), true},
		{"a password with colons", basic(key + ":a:b"), true},
		{"password without a key", basic(":" + key), false},
		{"no colon", basic(key), false},
		{"empty key", basic(":"), false},
		{"key too short", basic("short:"), false},
		{"key with forbidden characters", basic("abcdefghijklmnop$:"), false},
		{"key too long", basic(strings.Repeat("a", 129) + ":"), false},
		{"not base64", "Basic !!!", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := KeyFromBasic(tt.header)
			if tt.ok != (err == nil) {
				t.Fatalf("KeyFromBasic(%q) error = %v, want ok=%v", tt.header, err, tt.ok)
			}
			if tt.ok && got != key {
				t.Fatalf("key %q", got)
			}
		})
	}
}

func TestNewAPIKey(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		k, err := NewAPIKey()
		if err != nil {
			t.Fatal(err)
		}
		if len(k) != 32 || !ValidLocalKey(k) {
			t.Fatalf("key %q has the wrong shape", k)
		}
		if seen[k] {
			t.Fatalf("duplicate key %q", k)
		}
		seen[k] = true
	}
	if Hash("a") == Hash("b") || len(Hash("a")) != 64 {
		t.Fatal("hash is not a SHA-256 hex digest")
	}
}

func TestValidLocalKey(t *testing.T) {
	tests := map[string]bool{
		strings.Repeat("a", 15):  false,
		strings.Repeat("a", 16):  true,
		strings.Repeat("Z", 128): true,
		strings.Repeat("a", 129): false,
		"demo-key_0123456789":    true,
		"demo key 0123456789":    false,
	}
	for k, want := range tests {
		if got := ValidLocalKey(k); got != want {
			t.Errorf("ValidLocalKey(%q) = %v, want %v", k, got, want)
		}
	}
}
