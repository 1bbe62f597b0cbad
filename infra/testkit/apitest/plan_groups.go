package apitest

const (
	PlanGroupsRoute     = "/v1/plan_groups"
	PlanGroupRoute      = "/v1/plan_groups/{plan_group_uuid}"
	PlanGroupPlansRoute = "/v1/plan_groups/{plan_group_uuid}/plans"
)
