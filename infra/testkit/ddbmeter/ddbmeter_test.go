package ddbmeter_test

import (
	"context"
	"testing"

	"github.com/subsight/subsight/infra/testkit/ddbmeter"
	"github.com/subsight/subsight/infra/testkit/testenv"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store/dynamo"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestMeterCountsRequestsAndUnits(t *testing.T) {
	env := testenv.New(t)
	meter := ddbmeter.New()
	st := dynamo.New(meter.Client(env.AWS), env.TableName, env.Deps.Now)
	ctx := context.Background()
	acc := model.Account{ID: model.NewAccountID(), Name: "A", Currency: "USD", TimeZone: "UTC", WeekStartOn: "monday", Settings: model.DefaultSettings()}
	if err := st.CreateAccount(ctx, acc); err != nil {
		t.Fatal(err)
	}
	if _, err := st.GetAccount(ctx, acc.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ListDataSources(ctx, acc.ID); err != nil {
		t.Fatal(err)
	}
	s := meter.Snapshot()
	// CreateAccount writes the account and its request counter.
	if s.Requests["PutItem"] != 1 || s.Requests["UpdateItem"] != 1 || s.Requests["GetItem"] != 1 || s.Requests["Query"] != 1 || s.Writes() != 2 {
		t.Fatalf("counted %s", s)
	}
	t.Logf("requests %s, units reported by the emulator: %v", s, s.Units)
	meter.Reset()
	if meter.Snapshot().TotalRequests() != 0 {
		t.Fatal("reset did not clear")
	}
}
