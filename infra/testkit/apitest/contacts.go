package apitest

import (
	"context"

	"github.com/subsight/subsight/shared/model"
)

func (e *ResourceEnv) CreateContact(body map[string]any) map[string]any {
	e.t.Helper()
	status, c := e.Do(e.Acc, "CreateContact", nil, nil, body)
	if status != 201 {
		e.t.Fatalf("create contact: %d %v", status, c)
	}
	return c
}

func (e *ResourceEnv) DefineContactAttr(key string, t model.AttrType) {
	e.t.Helper()
	if _, err := e.D.Store.DefineAttribute(context.Background(), model.AttrDefinition{AccountID: e.Acc,
		Object: model.AttrObjectContact, Key: key, Type: t}); err != nil {
		e.t.Fatal(err)
	}
}
