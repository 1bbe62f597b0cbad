package main

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
)

// loadFXRates is `load-fx-rates -account ID -file rates.csv`: each CSV line is
// date,currency,rate, the rate being the value of one unit of currency in the account
// currency on that UTC day (e.g. 2017-05-01,EUR,1.090861 for a USD account). A header
// line "date,currency,rate" is allowed. The whole file is checked before anything is
// written; loading the same file again changes nothing.
func loadFXRates(ctx context.Context, e env, args []string) error {
	fs := newFlags("load-fx-rates")
	account := fs.String("account", "", "account id")
	file := fs.String("file", "", "CSV file of date,currency,rate lines (- for standard input)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	acc, err := requireAccount(ctx, e, *account)
	if err != nil {
		return err
	}
	if *file == "" {
		return errors.New("-file is required")
	}
	in := io.Reader(os.Stdin)
	if *file != "-" {
		f, err := os.Open(*file)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	rates, err := parseFXRates(in, acc.Currency)
	if err != nil {
		return err
	}
	if err := requireJobs(e); err != nil {
		return err
	}
	if err := e.store.PutFXRates(ctx, acc.ID, rates); err != nil {
		return err
	}
	// Every customer, not only those invoicing in these currencies: finding those would
	// read every customer's invoices, while a recomputation that changes nothing writes
	// nothing.
	n, err := recomputeAccount(ctx, e, acc.ID)
	if err != nil {
		return fmt.Errorf("rates stored, but enqueueing the recomputations failed after %d (run the command again): %w", n, err)
	}
	var currencies []string
	for _, r := range rates {
		if !slices.Contains(currencies, r.Currency) {
			currencies = append(currencies, r.Currency)
		}
	}
	slices.Sort(currencies)
	return printJSON(e.stdout, map[string]any{"account_id": acc.ID, "rates": len(rates), "currencies": currencies, "recomputations": n})
}

// parseFXRates reads and validates every line; an error names the line.
func parseFXRates(in io.Reader, accountCurrency string) ([]store.FXRate, error) {
	r := csv.NewReader(in)
	r.FieldsPerRecord = 3
	r.TrimLeadingSpace = true
	r.Comment = '#'
	var out []store.FXRate
	seen := map[string]bool{}
	for line := 1; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("rates: %w", err)
		}
		if line == 1 && strings.EqualFold(strings.TrimSpace(rec[0]), "date") {
			continue
		}
		rate, err := parseFXLine(rec, accountCurrency)
		if err != nil {
			return nil, fmt.Errorf("rates line %d: %w", line, err)
		}
		if seen[rate.Day+rate.Currency] {
			return nil, fmt.Errorf("rates line %d: %s on %s given twice", line, rate.Currency, rate.Day)
		}
		seen[rate.Day+rate.Currency] = true
		out = append(out, rate)
	}
	if len(out) == 0 {
		return nil, errors.New("rates: the file has no rates")
	}
	return out, nil
}

func parseFXLine(rec []string, accountCurrency string) (store.FXRate, error) {
	day, cur, text := strings.TrimSpace(rec[0]), strings.ToUpper(strings.TrimSpace(rec[1])), strings.TrimSpace(rec[2])
	if _, err := time.Parse(time.DateOnly, day); err != nil {
		return store.FXRate{}, fmt.Errorf("date %q is not YYYY-MM-DD", day)
	}
	if !slices.Contains(model.Currencies, cur) {
		return store.FXRate{}, fmt.Errorf("currency %q is not an ISO 4217 code", rec[1])
	}
	if cur == accountCurrency {
		return store.FXRate{}, fmt.Errorf("%s is the account currency (its rate is always 1)", cur)
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil || v <= 0 || v > 1e9 {
		return store.FXRate{}, fmt.Errorf("rate %q is not a positive number", text)
	}
	return store.FXRate{Day: day, Currency: cur, Rate: text}, nil
}
