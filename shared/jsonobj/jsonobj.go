// Package jsonobj is a JSON object that keeps its keys in the order given, for
// responses whose shape depends on the request (optional includes) and whose key
// order should match ChartMogul's.
package jsonobj

import (
	"bytes"
	"encoding/json"
)

// Field is one key and value.
type Field struct {
	Key   string
	Value any
}

// Object is an ordered JSON object.
type Object []Field

// MarshalJSON writes the fields in order.
func (o Object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, err := json.Marshal(f.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(f.Value)
		if err != nil {
			return nil, err
		}
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
