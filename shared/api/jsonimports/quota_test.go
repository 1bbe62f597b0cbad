package jsonimports_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/subsight/subsight/infra/testkit/apitest"
	"github.com/subsight/subsight/infra/testkit/testclock"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/apigw/apigwtest"
	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// quotaEnv is an account with a data source and limits, whose operations run on a clock
// the test moves.
type quotaEnv struct {
	env   *testenv.Env
	acc   model.Account
	ds    model.DataSource
	clock *testclock.Clock
	// deps are the operations' dependencies on the test's clock.
	deps *api.Deps
	// store is the store on the test's clock (markers expire by it).
	store store.LimitCounters
}

func newQuotaEnv(t *testing.T, limits model.Limits) *quotaEnv {
	t.Helper()
	q := &quotaEnv{env: testenv.New(t), clock: testclock.At(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))}
	q.acc = q.env.NewAccount(t, "Quota")
	ctx := context.Background()
	if err := q.env.Deps.Store.UpdateLimits(ctx, q.acc.ID, limits); err != nil {
		t.Fatal(err)
	}
	q.ds = q.env.NewDataSource(t, q.acc.ID, "Billing")
	wired := q.env.With(nil, q.clock.Now)
	q.deps, q.store = wired.API(), wired.Store
	return q
}

func (q *quotaEnv) post(t *testing.T, externalID string) (int, string, map[string]string) {
	t.Helper()
	resp := apitest.Raw(t, q.deps, "CreateJsonImport", apigwtest.Call{
		PathParams: map[string]string{"data_source_uuid": q.ds.UUID}, Body: apitest.FiftyCustomers(externalID), AccountID: q.acc.ID})
	return resp.StatusCode, resp.Body, resp.Headers
}

func (q *quotaEnv) status(t *testing.T, externalID string) string {
	t.Helper()
	status, body := apitest.Do(t, q.deps, "GetJsonImport", apigwtest.Call{
		PathParams: map[string]string{"data_source_uuid": q.ds.UUID, "import_id": externalID}, AccountID: q.acc.ID})
	if status == http.StatusNotFound {
		return "absent"
	}
	return fmt.Sprint(body["status"])
}

// drain runs the import worker over the queue.
func (q *quotaEnv) drain(t *testing.T) {
	t.Helper()
	q.env.DrainImports(t)
}

// leavesNoTrace: a refused import has no record, no marker and can take its external id.
func (q *quotaEnv) leavesNoTrace(t *testing.T, externalID string) {
	t.Helper()
	if _, err := q.env.Deps.Store.GetImport(context.Background(), q.acc.ID, q.ds.UUID, externalID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("refused import %s recorded: %v", externalID, err)
	}
	markers, err := q.store.ImportsInFlight(context.Background(), q.acc.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range markers {
		if m.ExternalID == externalID {
			t.Fatalf("refused import %s left a marker", externalID)
		}
	}
	if got := q.status(t, externalID); got != "absent" {
		t.Fatalf("refused import %s: status %s", externalID, got)
	}
}

const fiftyCustomersRecords = 50 + 1 + 100 + 100 + 100 + 50 // FiftyCustomers' records, every kind

func TestJSONImportQuotas(t *testing.T) {
	type step struct {
		do         string // post, drain, advance
		externalID string
		wantStatus int
		wantRetry  int // seconds; 0: no header
		wantBody   string
	}
	tests := []struct {
		name   string
		limits model.Limits
		steps  []step
		// completed are the imports that must end completed.
		completed []string
	}{
		{name: "imports in flight", limits: model.Limits{ImportsInFlight: 2}, steps: []step{
			{do: "post", externalID: "a", wantStatus: 200},
			{do: "post", externalID: "b", wantStatus: 200},
			{do: "post", externalID: "c", wantStatus: 429, wantRetry: 60,
				wantBody: `{"code":429,"message":"The account has 2 json_imports queued or processing, its limit; send this one again once one of them has completed","param":null}`},
			{do: "drain"},
			{do: "post", externalID: "c", wantStatus: 200},
			{do: "drain"},
		}, completed: []string{"a", "b", "c"}},
		{name: "records per minute", limits: model.Limits{ImportRecordsPerMinute: fiftyCustomersRecords + 100}, steps: []step{
			{do: "advance", wantRetry: 15},
			{do: "post", externalID: "a", wantStatus: 200},
			{do: "post", externalID: "b", wantStatus: 429, wantRetry: 45,
				wantBody: `{"code":429,"message":"The account's json_imports have reached its limit of 501 records per minute; send this one again in the next minute","param":null}`},
			{do: "drain"},
			{do: "advance", wantRetry: 45},
			{do: "post", externalID: "b", wantStatus: 200},
			{do: "drain"},
		}, completed: []string{"a", "b"}},
		{name: "an import larger than a minute's records", limits: model.Limits{ImportRecordsPerMinute: 100}, steps: []step{
			{do: "post", externalID: "a", wantStatus: 422,
				wantBody: `{"code":422,"message":"The import has 401 records, more than the account's limit of 100 per minute; split it into several imports","param":null}`},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newQuotaEnv(t, tt.limits)
			for i, s := range tt.steps {
				switch s.do {
				case "drain":
					q.drain(t)
				case "advance":
					q.clock.Advance(time.Duration(s.wantRetry) * time.Second)
				case "post":
					status, body, headers := q.post(t, s.externalID)
					if status != s.wantStatus || (s.wantBody != "" && body != s.wantBody) {
						t.Fatalf("step %d: %d %s", i, status, body)
					}
					if got, _ := strconv.Atoi(headers["Retry-After"]); got != s.wantRetry {
						t.Fatalf("step %d: Retry-After %q, want %d", i, headers["Retry-After"], s.wantRetry)
					}
					if status != http.StatusOK {
						q.leavesNoTrace(t, s.externalID)
					}
				}
			}
			for _, ext := range tt.completed {
				if got := q.status(t, ext); got != model.ImportCompleted {
					t.Fatalf("import %s: %s", ext, got)
				}
			}
		})
	}
}

// TestImportMarkersRepair: markers of imports that finished or whose intake was
// abandoned stop counting once the account reaches its limit, and are deleted.
func TestImportMarkersRepair(t *testing.T) {
	q := newQuotaEnv(t, model.Limits{ImportsInFlight: 2})
	ctx := context.Background()
	st := q.store
	// An intake that died before its record: counts for a while, then not.
	if err := st.PutImportInFlight(ctx, store.ImportInFlight{AccountID: q.acc.ID, ImportID: "00000000-0000-0000-0000-000000000001",
		DataSourceUUID: q.ds.UUID, ExternalID: "ghost", CreatedAt: q.clock.Now()}, 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	if status, _, _ := q.post(t, "a"); status != 200 {
		t.Fatalf("a: %d", status)
	}
	if status, _, _ := q.post(t, "b"); status != 429 {
		t.Fatalf("b beside a live intake: %d", status)
	}
	q.clock.Advance(16 * time.Minute)
	if status, _, _ := q.post(t, "b"); status != 200 {
		t.Fatalf("b after the abandoned intake's grace: %d", status)
	}
	markers, _ := st.ImportsInFlight(ctx, q.acc.ID)
	if len(markers) != 2 {
		t.Fatalf("markers %+v", markers)
	}
	for _, m := range markers {
		if m.ExternalID == "ghost" || !keys.OwnedBy(keys.ImportsInFlightPartition(m.AccountID), q.acc.ID) {
			t.Fatalf("marker %+v", m)
		}
	}
}
