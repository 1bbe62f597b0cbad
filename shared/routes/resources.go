package routes

import (
	"github.com/subsight/subsight/shared/api/billing"
	"github.com/subsight/subsight/shared/api/crm"
)

// resourceAPIs are the plan and customer-note operations.
var resourceAPIs = map[string]API{
	"CreatePlanFunction":         billing.CreatePlan,
	"ImportPlanFunction":         billing.ImportPlan,
	"ListPlansFunction":          billing.ListPlans,
	"GetPlanFunction":            billing.GetPlan,
	"UpdatePlanFunction":         billing.UpdatePlan,
	"DeletePlanFunction":         billing.DeletePlan,
	"CreateCustomerNoteFunction": crm.CreateCustomerNote,
	"ListCustomerNotesFunction":  crm.ListCustomerNotes,
	"GetCustomerNoteFunction":    crm.GetCustomerNote,
	"UpdateCustomerNoteFunction": crm.UpdateCustomerNote,
	"DeleteCustomerNoteFunction": crm.DeleteCustomerNote,
}
