package store

import (
	"context"

	"github.com/subsight/subsight/shared/model"
)

// ActivitiesExports are the activities export requests.
type ActivitiesExports interface {
	// CreateActivitiesExport records a new export request (pending).
	CreateActivitiesExport(ctx context.Context, e model.ActivitiesExport) error
	// GetActivitiesExport reads an export request; ErrNotFound when the account has none
	// with that id.
	GetActivitiesExport(ctx context.Context, accountID, id string) (model.ActivitiesExport, error)
	// FinishActivitiesExport records the outcome of an export (its status, and its file
	// and row count when it succeeded) unless it is finished already: a redelivered job
	// finds it so and changes nothing (ErrConflict).
	FinishActivitiesExport(ctx context.Context, e model.ActivitiesExport) error
	// SaveActivitiesExportStep records how far a pending export got (e's Part, Next
	// and Rows) unless it is finished or another step moved it on since it was at
	// part (ErrConflict).
	SaveActivitiesExportStep(ctx context.Context, e model.ActivitiesExport, part int) error
}
