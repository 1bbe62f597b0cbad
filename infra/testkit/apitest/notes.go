package apitest

func FamilyA(code int, message, param string) map[string]any {
	return map[string]any{"code": float64(code), "message": message, "param": param}
}

func (e *ResourceEnv) CreateNote(accountID string, body map[string]any) map[string]any {
	e.t.Helper()
	status, note := e.Do(accountID, "CreateCustomerNote", nil, nil, body)
	if status != 201 {
		e.t.Fatalf("create note: %d %v", status, note)
	}
	return note
}

func (e *ResourceEnv) GetNote(accountID, uuid string) (int, map[string]any) {
	e.t.Helper()
	return e.Do(accountID, "GetCustomerNote", map[string]string{"note_uuid": uuid}, nil, nil)
}
