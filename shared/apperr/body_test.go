package apperr

import (
	"encoding/json"
	"testing"
)

func TestBodyFamilies(t *testing.T) {
	tests := []struct {
		name   string
		err    *Error
		family Family
		want   string
	}{
		{"unauthorized is always family A", Unauthorized(), FamilyB,
			`{"code":401,"message":"No valid API key provided","param":null}`},
		{"missing param", MissingParam("name"), FamilyA,
			`{"code":400,"message":"Parameter \"name\" is missing","param":"name"}`},
		{"family B not found", NotFound("data_source_uuid", "Data source not found"), FamilyB,
			`{"error":"Data source not found","error_details":[{"param":"data_source_uuid","code":"invalid","message":"Data source not found"}]}`},
		{"family C fields", Validation(map[string]string{"name": "A name is required for each data source."}), FamilyA,
			`{"errors":{"name":"A name is required for each data source."}}`},
		{"error's own family wins", MissingParam("name").In(FamilyA), FamilyB,
			`{"code":400,"message":"Parameter \"name\" is missing","param":"name"}`},
		{"family C from a plain error", Unprocessable("interval_unit", "bad"), FamilyC,
			`{"errors":{"interval_unit":"bad"}}`},
		{"family E as recorded for a plan group without name and plans", FieldErrors(
			Detail{Param: "name", Code: "blank", Message: "Name can't be blank"},
			Detail{Param: "plan_ids", Code: "blank", Message: "Plan ids can't be blank"}), FamilyB,
			`{"name":["Name can't be blank"],"plan_ids":["Plan ids can't be blank"],"error_details":[` +
				`{"param":"name","code":"blank","message":"Name can't be blank"},` +
				`{"param":"plan_ids","code":"blank","message":"Plan ids can't be blank"}]}`},
		{"family E from a plain error", Unprocessable("plan_ids", "Plan pl_x does not exist"), FamilyE,
			`{"plan_ids":["Plan pl_x does not exist"],"error_details":[{"param":"plan_ids","code":"invalid","message":"Plan pl_x does not exist"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.err.Body(tt.family))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestValidationMessageIsDeterministic(t *testing.T) {
	fields := map[string]string{"name": "n", "interval_count": "c", "data_source_uuid": "d"}
	for range 20 {
		if got := Validation(fields).Message; got != "data_source_uuid: d" {
			t.Fatalf("message %q", got)
		}
	}
}
