package model

import (
	"time"

	"github.com/google/uuid"
)

// Statuses of an activities export, as ChartMogul shows them.
const (
	ExportPending   = "pending"
	ExportSucceeded = "succeeded"
	ExportFailed    = "failed"
)

// ActivitiesExport is a request to write the account's activities (filtered by type and
// dates, as GET /v1/activities filters them) to a CSV file, which the jobs worker
// carries out.
type ActivitiesExport struct {
	AccountID string
	ID        string // bare UUID
	Type      string // "" for every type
	// From and To bound the activities' dates (To inclusive); zero when not given.
	From, To time.Time
	Status   string
	FileKey  string // the CSV object, once succeeded
	Rows     int
	// Part and Next are how far a pending export got: the CSV parts written (the
	// steps before) and where the activities listing resumes (a store page token).
	Part      int
	Next      map[string]string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// NewActivitiesExportID is a new export's id (time-ordered, like ChartMogul's).
func NewActivitiesExportID() string {
	id, err := uuid.NewV7()
	if err != nil {
		id = uuid.New()
	}
	return id.String()
}
