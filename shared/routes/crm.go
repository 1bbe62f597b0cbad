package routes

import "github.com/subsight/subsight/shared/api"

// crmAPIs are the CRM records (notes and call logs, opportunities, tasks), plan groups and
// the customer unmerge.
var crmAPIs = map[string]API{
	"UnmergeCustomersFunction":   api.UnmergeCustomers,
	"CreateNoteFunction":         api.CreateNote,
	"ListNotesFunction":          api.ListNotes,
	"GetNoteFunction":            api.GetNote,
	"UpdateNoteFunction":         api.UpdateNote,
	"DeleteNoteFunction":         api.DeleteNote,
	"CreateOpportunityFunction":  api.CreateOpportunity,
	"ListOpportunitiesFunction":  api.ListOpportunities,
	"GetOpportunityFunction":     api.GetOpportunity,
	"UpdateOpportunityFunction":  api.UpdateOpportunity,
	"DeleteOpportunityFunction":  api.DeleteOpportunity,
	"CreateTaskFunction":         api.CreateTask,
	"ListTasksFunction":          api.ListTasks,
	"GetTaskFunction":            api.GetTask,
	"UpdateTaskFunction":         api.UpdateTask,
	"DeleteTaskFunction":         api.DeleteTask,
	"CreatePlanGroupFunction":    api.CreatePlanGroup,
	"ListPlanGroupsFunction":     api.ListPlanGroups,
	"GetPlanGroupFunction":       api.GetPlanGroup,
	"UpdatePlanGroupFunction":    api.UpdatePlanGroup,
	"DeletePlanGroupFunction":    api.DeletePlanGroup,
	"ListPlanGroupPlansFunction": api.ListPlanGroupPlans,
}
