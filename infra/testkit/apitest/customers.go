package apitest

func Cus(uuid string) map[string]string { return map[string]string{"customer_uuid": uuid} }

func (e *ResourceEnv) CreateCustomer(body map[string]any) map[string]any {
	e.t.Helper()
	status, c := e.Do(e.Acc, "CreateCustomer", nil, nil, body)
	if status != 201 {
		e.t.Fatalf("create customer: %d %v", status, c)
	}
	return c
}

func (e *ResourceEnv) GetCustomer(accountID, uuid string) (int, map[string]any) {
	e.t.Helper()
	return e.Do(accountID, "GetCustomer", Cus(uuid), nil, nil)
}
