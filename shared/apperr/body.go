package apperr

import (
	"bytes"
	"cmp"
	"encoding/json"
)

// Body returns the JSON-ready body of e in family f (e's own family wins when set).
func (e *Error) Body(f Family) any {
	if e.Family != FamilyDefault {
		f = e.Family
	}
	switch f {
	case FamilyB:
		code := e.Code
		if code == "" {
			code = "invalid"
		}
		param := e.Param
		if param == "" {
			param = "base"
		}
		return familyB{Error: e.Message, Details: []Detail{{Param: param, Code: code, Message: e.Message}}}
	case FamilyE:
		details := e.Details
		if len(details) == 0 {
			details = []Detail{{Param: cmp.Or(e.Param, "base"), Code: cmp.Or(e.Code, "invalid"), Message: e.Message}}
		}
		return familyE(details)
	case FamilyC:
		fields := e.Fields
		if len(fields) == 0 {
			key := e.Param
			if key == "" {
				key = "base"
			}
			fields = map[string]string{key: e.Message}
		}
		return familyC{Errors: fields}
	default:
		var param *string
		if e.Param != "" {
			p := e.Param
			param = &p
		}
		return familyA{Code: e.Status, Message: e.Message, Param: param}
	}
}

// familyE renders each field's messages as a list, then the details.
type familyE []Detail

func (e familyE) MarshalJSON() ([]byte, error) {
	var fields []string
	byField := map[string][]string{}
	for _, d := range e {
		if _, seen := byField[d.Param]; !seen {
			fields = append(fields, d.Param)
		}
		byField[d.Param] = append(byField[d.Param], d.Message)
	}
	var buf bytes.Buffer
	buf.WriteByte('{')
	for _, f := range fields {
		k, _ := json.Marshal(f)
		v, _ := json.Marshal(byField[f])
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
		buf.WriteByte(',')
	}
	details, err := json.Marshal([]Detail(e))
	if err != nil {
		return nil, err
	}
	buf.WriteString(`"error_details":`)
	buf.Write(details)
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

type familyA struct {
	Code    int     `json:"code"`
	Message string  `json:"message"`
	Param   *string `json:"param"`
}

type familyB struct {
	Error   string   `json:"error"`
	Details []Detail `json:"error_details"`
}

type familyC struct {
	Errors map[string]string `json:"errors"`
}
