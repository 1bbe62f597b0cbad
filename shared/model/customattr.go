package model

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/subsight/subsight/shared/timefmt"
)

// AttrType is the type of a custom attribute.
type AttrType string

// Custom attribute types, spelled as the API spells them.
const (
	AttrString    AttrType = "String"
	AttrInteger   AttrType = "Integer"
	AttrDecimal   AttrType = "Decimal"
	AttrTimestamp AttrType = "Timestamp"
	AttrBoolean   AttrType = "Boolean"
)

// AttrTypes lists every type.
var AttrTypes = []AttrType{AttrString, AttrInteger, AttrDecimal, AttrTimestamp, AttrBoolean}

// Objects that carry custom attributes.
const (
	AttrObjectCustomer = "customer"
	AttrObjectContact  = "contact"
)

// MaxAttrStringLength is the longest String value, in characters.
const MaxAttrStringLength = 255

// ParseAttrType reads a type name, ignoring case.
func ParseAttrType(s string) (AttrType, bool) {
	for _, t := range AttrTypes {
		if strings.EqualFold(s, string(t)) {
			return t, true
		}
	}
	return "", false
}

// AttrDefinition fixes the type of one custom attribute key for an object type of an
// account; values of that key must then fit the type.
type AttrDefinition struct {
	AccountID string
	Object    string
	Key       string
	Type      AttrType
	CreatedAt time.Time
}

var attrKey = regexp.MustCompile(`^[A-Za-z0-9_]{1,255}$`)

// ValidAttrKey reports whether k is a usable key: letters, digits and underscores.
func ValidAttrKey(k string) bool { return attrKey.MatchString(k) }

// AttrValue is one typed custom attribute value in canonical text form, so that it
// is stored exactly and rendered with its JSON type.
type AttrValue struct {
	Type AttrType
	Text string
	Null bool
}

// JSON returns the value as it appears in responses.
func (v AttrValue) JSON() any {
	if v.Null {
		return nil
	}
	switch v.Type {
	case AttrInteger, AttrDecimal:
		return json.Number(v.Text)
	case AttrBoolean:
		return v.Text == "true"
	}
	return v.Text
}

// AttrMapJSON renders a custom attribute map.
func AttrMapJSON(m map[string]AttrValue) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v.JSON()
	}
	return out
}

// CoerceAttrValue checks raw (a value decoded with json.Decoder.UseNumber) against t
// and returns its canonical form, or an error that says why it does not fit.
func CoerceAttrValue(t AttrType, raw any) (AttrValue, error) {
	if raw == nil {
		return AttrValue{Type: t, Null: true}, nil
	}
	text, isString := raw.(string)
	num, isNumber := raw.(json.Number)
	b, isBool := raw.(bool)
	bad := func() (AttrValue, error) {
		return AttrValue{}, fmt.Errorf("the value %s is not a valid %s", describe(raw), t)
	}
	switch t {
	case AttrString:
		switch {
		case isString:
		case isNumber:
			text = num.String()
		case isBool:
			text = strconv.FormatBool(b)
		default:
			return bad()
		}
		if utf8.RuneCountInString(text) > MaxAttrStringLength {
			return AttrValue{}, fmt.Errorf("a String value can be at most %d characters long", MaxAttrStringLength)
		}
		return AttrValue{Type: t, Text: text}, nil
	case AttrInteger:
		if isNumber {
			text = num.String()
		} else if !isString {
			return bad()
		}
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil {
			return bad()
		}
		return AttrValue{Type: t, Text: strconv.FormatInt(n, 10)}, nil
	case AttrDecimal:
		if isNumber {
			text = num.String()
		} else if !isString {
			return bad()
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil || f != f || f > 1e300 || f < -1e300 {
			return bad()
		}
		return AttrValue{Type: t, Text: strconv.FormatFloat(f, 'f', -1, 64)}, nil
	case AttrTimestamp:
		if !isString {
			return bad()
		}
		ts, err := timefmt.Parse(text)
		if err != nil {
			return bad()
		}
		return AttrValue{Type: t, Text: timefmt.Millis(ts)}, nil
	case AttrBoolean:
		if isBool {
			return AttrValue{Type: t, Text: strconv.FormatBool(b)}, nil
		}
		if isNumber {
			text = num.String()
		} else if !isString {
			return bad()
		}
		switch text {
		case "TRUE", "true", "t", "1":
			return AttrValue{Type: t, Text: "true"}, nil
		case "FALSE", "false", "f", "0":
			return AttrValue{Type: t, Text: "false"}, nil
		}
		return bad()
	}
	return AttrValue{}, fmt.Errorf("unknown type %q", t)
}

func describe(v any) string {
	b, err := json.Marshal(v)
	if err != nil || len(b) > 80 {
		return "given"
	}
	return string(b)
}
