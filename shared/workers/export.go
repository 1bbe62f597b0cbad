package workers

import (
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/subsight/subsight/shared/accountseries"
	"github.com/subsight/subsight/shared/activityview"
	"github.com/subsight/subsight/shared/jobs"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/sqsworker"
	"github.com/subsight/subsight/shared/store"
)

// exportPageSize is how many activities one read of an export takes.
const exportPageSize = 200

// exportActivities carries out an activities export: it reads the account's activities
// with the export's filter (as GET /v1/activities does, one Query a page of 200),
// writes them as CSV to the bucket (blobs.ExportKey) and marks the export succeeded.
// An export that outgrows one invocation is written in steps (writeExport). A finished
// export is left as it is, so a redelivered job changes nothing; on the last receive
// before the dead-letter queue the export is marked failed (Jobs).
func exportActivities(ctx context.Context, d *Deps, job jobs.Message) error {
	e, err := d.Store.GetActivitiesExport(ctx, job.AccountID, job.ExportID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && e.Status != model.ExportPending) {
		return nil
	}
	if err != nil {
		return err
	}
	return writeExport(ctx, d, &e)
}

// failExport marks a pending export failed (its job goes to the dead-letter queue).
func failExport(ctx context.Context, d *Deps, job jobs.Message) {
	e, err := d.Store.GetActivitiesExport(ctx, job.AccountID, job.ExportID)
	if err == nil && e.Status == model.ExportPending {
		e.Status, e.UpdatedAt = model.ExportFailed, d.Now()
		err = d.Store.FinishActivitiesExport(ctx, e)
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrConflict) {
		slog.ErrorContext(ctx, "could not mark the export failed", "account_id", job.AccountID, "export_id", job.ExportID, "error", err.Error())
	}
}

// writeExport writes the export from where its last step got (e.Part, e.Next). Out of
// time (sqsworker.MayStart) after a page, the step writes what it read as the
// export's next part (exportPartKey), saves its position on the export and stops with
// moreSteps; the step that reads the last page writes the file: the parts, then what it
// read. The position lives on the export, not in the job, so a step repeated (its job
// redelivered, or sent twice) starts where the last step stopped, never writes a part
// another step already counted, and finds a finished export finished.
func writeExport(ctx context.Context, d *Deps, e *model.ActivitiesExport) error {
	acc, err := d.Store.GetAccount(ctx, e.AccountID)
	if err != nil {
		return err
	}
	loc := accountseries.Calendar(acc).Location
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if e.Part == 0 {
		if err := w.Write(ExportColumns()); err != nil {
			return err
		}
	}
	filter := store.ActivityFilter{From: e.From, To: e.To, Type: e.Type}
	start := store.PageToken(e.Next)
	for {
		page, err := d.Store.ListActivities(ctx, e.AccountID, filter, cmp.Or(d.ExportPageSize, exportPageSize), start)
		if err != nil {
			return err
		}
		for _, a := range page.Items {
			fields := activityview.Fields(a, acc.Currency, loc)
			row := make([]string, len(fields))
			for i, f := range fields {
				row[i] = cell(f.Value)
			}
			if err := w.Write(row); err != nil {
				return err
			}
			e.Rows++
		}
		if !page.HasMore {
			break
		}
		start = page.Next
		if !sqsworker.MayStart(ctx) {
			return saveExportPart(ctx, d, e, w, &buf, start)
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	body := buf.Bytes()
	if e.Part > 0 {
		var whole bytes.Buffer
		for part := range e.Part {
			b, err := d.Files.Get(ctx, exportPartKey(e.AccountID, e.ID, part))
			if err != nil {
				return err
			}
			whole.Write(b)
		}
		whole.Write(body)
		body = whole.Bytes()
	}
	e.FileKey = ExportKey(e.AccountID, e.ID)
	if err := d.Files.PutFile(ctx, e.FileKey, "text/csv; charset=utf-8", body); err != nil {
		return err
	}
	e.Status, e.UpdatedAt = model.ExportSucceeded, d.Now()
	if err := d.Store.FinishActivitiesExport(ctx, *e); err != nil && !errors.Is(err, store.ErrConflict) {
		return err
	}
	return nil
}

// saveExportPart writes what a step read as the export's next part and moves its
// position on to next; the job continues in another step (moreSteps), unless another
// step moved the export on already.
func saveExportPart(ctx context.Context, d *Deps, e *model.ActivitiesExport, w *csv.Writer, buf *bytes.Buffer, next store.PageToken) error {
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	if err := d.Files.PutFile(ctx, exportPartKey(e.AccountID, e.ID, e.Part), "text/csv; charset=utf-8", buf.Bytes()); err != nil {
		return err
	}
	part := e.Part
	e.Part, e.Next, e.UpdatedAt = part+1, next, d.Now()
	err := d.Store.SaveActivitiesExportStep(ctx, *e, part)
	if errors.Is(err, store.ErrConflict) {
		return nil // finished, or a later step ran: this job has nothing more to do
	}
	if err != nil {
		return err
	}
	return &moreSteps{}
}

// exportPartKey is where the part of an export written by one of its steps lives
// until the file is written (the bucket's lifecycle removes them with the exports).
func exportPartKey(accountID, exportID string, part int) string {
	return fmt.Sprintf("exports/%s/%s.part-%d.csv", accountID, exportID, part)
}

// ExportKey is where an export's CSV lives in the bucket, under its own prefix (the
// functions that write and read it are granted that prefix only); the key starts with
// the account id.
func ExportKey(accountID, exportID string) string {
	return fmt.Sprintf("exports/%s/%s.csv", accountID, exportID)
}

// ExportColumns are the export's CSV columns: the fields of an activity of GET
// /v1/activities, in their order (activityview.Fields).
func ExportColumns() []string {
	fields := activityview.Fields(store.Activity{}, "", time.UTC)
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.Key
	}
	return out
}

// cell is a field's value as CSV text: numbers in decimal, text as it is.
func cell(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}
