package apperr

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
		return familyB{Error: e.Message, Details: []detail{{Param: param, Code: code, Message: e.Message}}}
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

type familyA struct {
	Code    int     `json:"code"`
	Message string  `json:"message"`
	Param   *string `json:"param"`
}

type familyB struct {
	Error   string   `json:"error"`
	Details []detail `json:"error_details"`
}

type detail struct {
	Param   string `json:"param"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

type familyC struct {
	Errors map[string]string `json:"errors"`
}
