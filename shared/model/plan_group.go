package model

import (
	"time"

	"github.com/subsight/subsight/shared/ids"
)

// MaxPlanGroupPlans bounds the plans of one plan group: the group is one item that
// lists them, and its plans listing reads them with one BatchGetItem per 100.
const MaxPlanGroupPlans = 1000

// PlanGroup is a named set of plans (/v1/plan_groups).
type PlanGroup struct {
	AccountID string
	UUID      string
	Name      string
	// Plans are the group's plans in the order they were given, each with its data
	// source (where the plan item lives).
	Plans     []PlanRef
	CreatedAt time.Time
	UpdatedAt time.Time
}

// PlanRef names a plan and the data source it lives in.
type PlanRef struct {
	UUID           string `json:"p"`
	DataSourceUUID string `json:"d"`
}

// NewPlanGroupUUID returns a new plg_ id.
func NewPlanGroupUUID() string { return ids.New(ids.PlanGroup) }
