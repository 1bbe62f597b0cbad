// Package ids makes the public identifiers of the service (ChartMogul-style prefixed
// UUIDs) and checks their shape.
package ids

import (
	"strings"

	"github.com/google/uuid"
)

// Prefixes of the public ids.
const (
	Account      = "acc_"
	DataSource   = "ds_"
	Customer     = "cus_"
	Contact      = "con_"
	Note         = "note_"
	Plan         = "pl_"
	Invoice      = "inv_"
	LineItem     = "li_"
	Transaction  = "tr_"
	Subscription = "sub_"
	PlanGroup    = "plg_"
)

// New returns prefix + a new time-ordered UUID (v7), like ChartMogul's time-based ids.
func New(prefix string) string {
	id, err := uuid.NewV7()
	if err != nil {
		id = uuid.New()
	}
	return prefix + id.String()
}

// Valid reports whether s is prefix followed by a UUID.
func Valid(s, prefix string) bool {
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok || len(rest) != 36 {
		return false
	}
	_, err := uuid.Parse(rest)
	return err == nil
}

// Bare strips the prefix (ChartMogul's not-found messages echo the bare UUID).
func Bare(s, prefix string) string { return strings.TrimPrefix(s, prefix) }
