// Package jsonbody is the one decoder of request bodies. It accepts exactly one JSON
// object of valid UTF-8 within a size and a depth limit, keeps numbers as their exact
// text (json.Number), and words its errors with the body's public field names, never
// with Go types, so that every route refuses a malformed body the same way.
package jsonbody

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/subsight/subsight/shared/apperr"
)

// MaxBytes is the largest body accepted (ChartMogul's 5 MB import limit, the largest
// body any route takes; API Gateway itself stops at 10 MB).
const MaxBytes = 5 << 20

// MaxDepth is the deepest nesting of objects and arrays accepted. The deepest body
// the API defines (a json_imports customer's custom attribute values) nests 6 levels.
const MaxDepth = 64

// Decode reads b, which must hold exactly one JSON object, into v. An empty body is
// {}. Every error is an *apperr.Error: 413 above MaxBytes, else 400.
func Decode(b []byte, v any) error {
	if len(b) > MaxBytes {
		return apperr.TooLarge("The request body is larger than 5 MB")
	}
	start := skipSpace(b, 0)
	if start == len(b) {
		b, start = []byte("{}"), 0
	}
	if err := check(b); err != nil {
		return err
	}
	if b[start] != '{' {
		return apperr.BadRequest("", "The request body must be a JSON object, not %s", kindOfLiteral(b[start]))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return apperr.BadRequest("", "The request body must hold one JSON value and nothing after it")
	}
	return nil
}

// Number decodes one JSON value of a body field keeping numbers as json.Number; for
// types whose own UnmarshalJSON reads a part of a body Decode already checked.
func Number(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

// check verifies what encoding/json lets through or stops too late: every string is
// valid UTF-8 without lone surrogate escapes (encoding/json would store U+FFFD), and
// nesting stays within MaxDepth. Syntax is left to the decoder.
func check(b []byte) *apperr.Error {
	depth, key := 0, ""
	for i := 0; i < len(b); {
		switch c := b[i]; c {
		case '{', '[':
			depth++
			if depth > MaxDepth {
				return apperr.BadRequest(key, "The request body nests deeper than %d levels", MaxDepth)
			}
		case '}', ']':
			depth--
		case '"':
			end, problem := scanString(b, i+1)
			if problem != "" {
				if key == "" {
					return apperr.BadRequest("", "The request body %s", problem)
				}
				return apperr.BadRequest(key, "%q %s", key, problem)
			}
			if j := skipSpace(b, end); j < len(b) && b[j] == ':' {
				if k, err := strconv.Unquote(string(b[i:end])); err == nil {
					key = k
				} else {
					var s string
					if json.Unmarshal(b[i:end], &s) == nil {
						key = s
					}
				}
			}
			i = end
			continue
		}
		i++
	}
	return nil
}

// scanString reads a string's contents from i (after the opening quote) and returns
// the index after the closing quote, or a description of what is wrong with it.
func scanString(b []byte, i int) (int, string) {
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			return i + 1, ""
		case c == '\\':
			if i+1 < len(b) && b[i+1] == 'u' {
				r, ok := hex4(b, i+2)
				if !ok {
					return len(b), "" // malformed escape: a syntax error for the decoder
				}
				switch {
				case r >= 0xDC00 && r <= 0xDFFF:
					return i, "contains a lone UTF-16 surrogate escape"
				case r >= 0xD800 && r <= 0xDBFF:
					low, ok := rune(0), i+8 <= len(b) && b[i+6] == '\\' && b[i+7] == 'u'
					if ok {
						low, ok = hex4(b, i+8)
					}
					if !ok || low < 0xDC00 || low > 0xDFFF {
						return i, "contains a lone UTF-16 surrogate escape"
					}
					i += 12
					continue
				}
				i += 6
				continue
			}
			i += 2
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return i, "is not valid UTF-8"
			}
			i += size
		}
	}
	return len(b), ""
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[i:i+4]), 16, 32)
	return rune(n), err == nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func kindOfLiteral(c byte) string {
	switch c {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	if c == '-' || (c >= '0' && c <= '9') {
		return "a number"
	}
	return "something else"
}

func decodeError(err error) error {
	if e, ok := apperr.As(err); ok {
		return e
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		field := typeErr.Field
		if field == "" {
			return apperr.BadRequest("", "The request body must be %s", expected(typeErr.Type))
		}
		return apperr.BadRequest(field, "%q must be %s", field, expected(typeErr.Type))
	}
	var syntaxErr *json.SyntaxError
	if errors.As(err, &syntaxErr) {
		return apperr.BadRequest("", "The request body is not valid JSON (at byte %d)", syntaxErr.Offset)
	}
	return apperr.BadRequest("", "The request body is not valid JSON")
}

// expected names the JSON type a Go type takes, in the API's words.
func expected(t reflect.Type) string {
	if t == nil {
		return "a JSON value"
	}
	if t == reflect.TypeFor[json.Number]() {
		return "a number"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return expected(t.Elem())
	}
	return "a JSON value"
}
