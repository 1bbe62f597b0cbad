package cursor

import (
	"errors"
	"testing"
)

// FuzzDecode: a cursor string the signer did not make for this account and listing is
// ErrInvalid, never a panic or another account's position; one it made decodes to the
// position it carries. Seed corpus: testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	signer := NewSigner("0123456789abcdef0123")
	good, _ := signer.Encode("acc_1", "customers", map[string]string{"PK": "acc_1#CUS#x", "SK": "CUSTOMER"})
	for _, s := range []string{*good, "", ".", "x.y", "eyJzIjoiY3VzdG9tZXJzIn0.", *good + "x", "not-a-cursor"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, c string) {
		pos, err := signer.Decode("acc_1", "customers", c)
		if err != nil {
			if !errors.Is(err, ErrInvalid) || pos != nil {
				t.Fatalf("%q: %v, %v: want ErrInvalid and no position", c, pos, err)
			}
			return
		}
		if len(pos) == 0 {
			t.Fatalf("%q: accepted without a position", c)
		}
		// Accepted means signed for acc_1 and this listing: no other account or listing takes it.
		if _, err := signer.Decode("acc_2", "customers", c); err == nil {
			t.Fatalf("%q: another account's key accepts the cursor", c)
		}
		if _, err := signer.Decode("acc_1", "plans", c); err == nil {
			t.Fatalf("%q: another listing accepts the cursor", c)
		}
	})
}
