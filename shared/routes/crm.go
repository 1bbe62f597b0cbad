package routes

import (
	"github.com/subsight/subsight/shared/api/billing"
	"github.com/subsight/subsight/shared/api/crm"
	"github.com/subsight/subsight/shared/api/customers"
)

// crmAPIs are the CRM records (notes and call logs, opportunities, tasks), plan groups and
// the customer unmerge.
var crmAPIs = map[string]API{
	"UnmergeCustomersFunction":   customers.UnmergeCustomers,
	"CreateNoteFunction":         crm.CreateNote,
	"ListNotesFunction":          crm.ListNotes,
	"GetNoteFunction":            crm.GetNote,
	"UpdateNoteFunction":         crm.UpdateNote,
	"DeleteNoteFunction":         crm.DeleteNote,
	"CreateOpportunityFunction":  crm.CreateOpportunity,
	"ListOpportunitiesFunction":  crm.ListOpportunities,
	"GetOpportunityFunction":     crm.GetOpportunity,
	"UpdateOpportunityFunction":  crm.UpdateOpportunity,
	"DeleteOpportunityFunction":  crm.DeleteOpportunity,
	"CreateTaskFunction":         crm.CreateTask,
	"ListTasksFunction":          crm.ListTasks,
	"GetTaskFunction":            crm.GetTask,
	"UpdateTaskFunction":         crm.UpdateTask,
	"DeleteTaskFunction":         crm.DeleteTask,
	"CreatePlanGroupFunction":    billing.CreatePlanGroup,
	"ListPlanGroupsFunction":     billing.ListPlanGroups,
	"GetPlanGroupFunction":       billing.GetPlanGroup,
	"UpdatePlanGroupFunction":    billing.UpdatePlanGroup,
	"DeletePlanGroupFunction":    billing.DeletePlanGroup,
	"ListPlanGroupPlansFunction": billing.ListPlanGroupPlans,
}
