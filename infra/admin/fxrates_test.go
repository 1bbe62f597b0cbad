package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv"
)

func TestLoadFXRates(t *testing.T) {
	te := testenv.New(t)
	e := env{store: te.Deps.Store, jobs: te.Deps.Jobs}
	acc := te.NewAccount(t, "FX")
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("rates.csv", "date,currency,rate\n2017-05-01,EUR,1.090861\n2017-05-01, gbp ,1.29\n2017-05-02,EUR,1.0921\n")
	out, err := runCmd(t, e, "load-fx-rates", "-account", acc.ID, "-file", good)
	if err != nil {
		t.Fatal(err)
	}
	if out["rates"] != 3.0 || len(out["currencies"].([]any)) != 2 {
		t.Fatalf("printed %v", out)
	}
	// Loading again is harmless.
	if _, err := runCmd(t, e, "load-fx-rates", "-account", acc.ID, "-file", good); err != nil {
		t.Fatal(err)
	}
	rates, err := te.Deps.Store.FXRatesBetween(context.Background(), acc.ID, "EUR", "2017-05-01", "2017-05-31")
	if err != nil || len(rates) != 2 || rates["2017-05-01"] != 1.090861 || rates["2017-05-02"] != 1.0921 {
		t.Fatalf("stored %v %v", rates, err)
	}

	for _, tc := range []struct{ name, body, want string }{
		{"bad date", "2017-13-01,EUR,1.1\n", "line 1: date"},
		{"bad currency", "2017-05-01,XYZ,1.1\n", "line 1: currency"},
		{"account currency", "2017-05-01,USD,1\n", "account currency"},
		{"bad rate", "2017-05-01,EUR,-1\n", "line 1: rate"},
		{"twice", "2017-05-01,EUR,1.1\n2017-05-01,EUR,1.2\n", "given twice"},
		{"columns", "2017-05-01,EUR\n", "rates"},
		{"empty", "date,currency,rate\n", "no rates"},
	} {
		_, err := runCmd(t, e, "load-fx-rates", "-account", acc.ID, "-file", write(tc.name+".csv", tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if _, err := runCmd(t, e, "load-fx-rates", "-account", "acc_missing", "-file", good); err == nil {
		t.Error("unknown account accepted")
	}
}
