package routes

import "github.com/subsight/subsight/shared/api"

// resourceAPIs are the plan and customer-note operations.
var resourceAPIs = map[string]API{
	"CreatePlanFunction":         api.CreatePlan,
	"ImportPlanFunction":         api.ImportPlan,
	"ListPlansFunction":          api.ListPlans,
	"GetPlanFunction":            api.GetPlan,
	"UpdatePlanFunction":         api.UpdatePlan,
	"DeletePlanFunction":         api.DeletePlan,
	"CreateCustomerNoteFunction": api.CreateCustomerNote,
	"ListCustomerNotesFunction":  api.ListCustomerNotes,
	"GetCustomerNoteFunction":    api.GetCustomerNote,
	"UpdateCustomerNoteFunction": api.UpdateCustomerNote,
	"DeleteCustomerNoteFunction": api.DeleteCustomerNote,
}
