// Package optional tells apart, in a JSON request body, a field that was left out, a
// field sent as null, and a field with a value: PATCH semantics and ChartMogul's
// different errors for missing (400) and null (422) depend on it.
package optional

import (
	"bytes"

	"github.com/subsight/subsight/shared/jsonbody"
)

// Value is one optional field of a request body.
type Value[T any] struct {
	Set  bool // the key was present
	Null bool // the key was present with null
	V    T
}

// UnmarshalJSON is only called when the key is present.
func (v *Value[T]) UnmarshalJSON(b []byte) error {
	v.Set = true
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		v.Null = true
		return nil
	}
	return jsonbody.Number(b, &v.V)
}

// Present reports whether a non-null value was sent.
func (v Value[T]) Present() bool { return v.Set && !v.Null }
