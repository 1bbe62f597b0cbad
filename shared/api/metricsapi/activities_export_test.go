package metricsapi_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/sqsworker"
	"github.com/subsight/subsight/shared/workers"
)

// TestActivitiesExport: POST /v1/activities_export answers the pending export; the
// jobs worker writes the filtered activities as CSV to the bucket; GET then answers
// succeeded with a presigned URL that downloads exactly the rows GET /v1/activities
// lists with the same filter. Bad filters are 400s and unknown exports 404s (family A).
func TestActivitiesExport(t *testing.T) {
	b := apitest.NewBilling(t, "2024-03-10T00:00:00Z")
	b.ImportInvoices(
		b.MonthInvoice("jan", "s1", "2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", 1000, "successful"),
		b.MonthInvoice("feb", "s1", "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z", 3000, "successful"),
		b.MonthInvoice("feb-2", "s2", "2024-02-10T00:00:00Z", "2024-03-10T00:00:00Z", 500, "successful"))
	b.Recompute()

	for _, bad := range []map[string]any{{"type": "upsell"}, {"start-date": "yesterday"},
		{"start-date": "2024-02-01", "end-date": "2024-01-01"}} {
		if status, body := b.Call("CreateActivitiesExport", nil, nil, bad); status != 400 || body["code"] != 400.0 {
			t.Errorf("%v: %d %v", bad, status, body)
		}
	}
	status, created := b.Call("CreateActivitiesExport", nil, nil,
		map[string]any{"start-date": "2024-02-01T00:00:00Z", "end-date": "2024-02-29", "type": "expansion"})
	params, _ := created["params"].(map[string]any)
	if status != 200 || created["status"] != "pending" || created["file_url"] != nil || created["expires_at"] != nil ||
		created["created_at"] != "2024-03-10T00:00:00+00:00" || params["kind"] != "activities" ||
		fmt.Sprint(params["params"]) != "map[activity_type:expansion end_date:2024-02-29 23:59:59 +0000 start_date:2024-02-01 00:00:00 +0000]" {
		t.Fatalf("create: %d %v", status, created)
	}
	id := created["id"].(string)
	get := func(account, id string) (int, map[string]any) {
		return getExport(t, b, account, id)
	}
	if status, got := get(b.Acc, id); status != 200 || got["status"] != "pending" {
		t.Fatalf("before the worker: %d %v", status, got)
	}
	for _, other := range []struct{ account, id string }{{"acc_other", id}, {b.Acc, "00000000-0000-4000-8000-000000000000"}, {b.Acc, "nope"}} {
		if status, body := get(other.account, other.id); status != 404 || body["code"] != 404.0 {
			t.Errorf("%v: %d %v", other, status, body)
		}
	}

	env := b.F.Env
	env.DrainJobs(t, workers.Jobs(b.F.D.Workers()))
	status, done := get(b.Acc, id)
	url, _ := done["file_url"].(string)
	if status != 200 || done["status"] != "succeeded" || url == "" || done["expires_at"] != "2024-03-10T01:00:00+00:00" {
		t.Fatalf("after the worker: %d %v", status, done)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("download %s: %d %s", url, resp.StatusCode, raw)
	}
	rows, err := csv.NewReader(strings.NewReader(string(raw))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	_, listed := b.Call("ListActivities", nil,
		map[string][]string{"start-date": {"2024-02-01T00:00:00Z"}, "end-date": {"2024-02-29"}, "type": {"expansion"}}, nil)
	entries := listed["entries"].([]any)
	if len(entries) == 0 || len(rows) != len(entries)+1 || strings.Join(rows[0], ",") != strings.Join(workers.ExportColumns(), ",") {
		t.Fatalf("CSV %q, want a header and the %d listed activities %v", rows, len(entries), entries)
	}
	for i, e := range entries {
		for j, col := range rows[0] {
			if want := fmt.Sprint(e.(map[string]any)[col]); rows[i+1][j] != want {
				t.Errorf("row %d %s = %q, want %q", i+1, col, rows[i+1][j], want)
			}
		}
	}
}

// getExport reads the activities export id as account.
func getExport(t *testing.T, b *apitest.Billing, account, id string) (int, map[string]any) {
	t.Helper()
	return apitest.Do(t, b.D, "GetActivitiesExport", apigwtest.Call{PathParams: map[string]string{"id": id}, AccountID: account})
}

// TestActivitiesExportInSteps: on a slow jobs worker (every look at the clock finds
// 25 s gone, so an invocation of 60 s with its margin of 15 s reads one page, here of
// one activity) the export takes several steps, each writing a part and saving its
// position on the export; the file is the parts in order: the header and every
// activity once, as the export written at once has them.
func TestActivitiesExportInSteps(t *testing.T) {
	b := apitest.NewBilling(t, "2024-03-10T00:00:00Z")
	b.ImportInvoices(
		b.MonthInvoice("jan", "s1", "2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", 1000, "successful"),
		b.MonthInvoice("feb", "s1", "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z", 3000, "successful"),
		b.MonthInvoice("feb-2", "s2", "2024-02-10T00:00:00Z", "2024-03-10T00:00:00Z", 500, "successful"))
	b.Recompute()
	export := func(worker sqsworker.Handler) [][]string {
		t.Helper()
		status, created := b.Call("CreateActivitiesExport", nil, nil, map[string]any{})
		if status != 200 {
			t.Fatalf("create: %d %v", status, created)
		}
		b.F.Env.DrainJobs(t, worker)
		status, done := getExport(t, b, b.Acc, created["id"].(string))
		url, _ := done["file_url"].(string)
		if status != 200 || done["status"] != "succeeded" || url == "" {
			t.Fatalf("after the worker: %d %v", status, done)
		}
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		rows, err := csv.NewReader(resp.Body).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	whole := export(workers.Jobs(b.F.D.Workers()))
	clock := &testenv.SlowClock{Step: 25 * time.Second, Timeout: time.Minute}
	w := b.F.D.Workers()
	w.DeadlineClock, w.ExportPageSize = clock.Now, 1
	stepped := export(clock.Invoke(workers.Jobs(w)))
	if len(whole) < 4 {
		t.Fatalf("%d rows: too few activities to take steps", len(whole))
	}
	if clock.Invocations() < 3 {
		t.Errorf("%d invocations, want several steps", clock.Invocations())
	}
	if fmt.Sprint(stepped) != fmt.Sprint(whole) {
		t.Errorf("written in steps:\n%q\nat once:\n%q", stepped, whole)
	}
	// Every step delivered twice (a redelivery after its continuation was sent): the
	// position saved on the export makes the repeat move on, not write a part again.
	twice := clock.Invoke(workers.Jobs(w))
	repeated := export(func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		if _, err := twice(ctx, ev); err != nil {
			return events.SQSEventResponse{}, err
		}
		return twice(ctx, ev)
	})
	if fmt.Sprint(repeated) != fmt.Sprint(whole) {
		t.Errorf("written in repeated steps:\n%q\nat once:\n%q", repeated, whole)
	}
}
