package model

import "time"

// DisabledState is whether a billing record (an invoice, line item, transaction or
// subscription event) was disabled through its disabled_state endpoint. A disabled
// record is kept and shown as disabled, but counts for nothing in the metrics
// (docs/metrics-engine.md §1.7); enabling it makes it count again exactly as before.
// Imports keep the state of the records they update: no import field sets it.
type DisabledState struct {
	Disabled   bool
	DisabledAt *time.Time
	// DisabledBy is the e-mail of the team member the change is attributed to.
	DisabledBy string
}

// SetDisabled moves the state to disabled (at, by) or back to enabled. It reports
// whether anything changed: disabling a disabled record keeps its first time and
// author, so a retried request changes nothing.
func (d *DisabledState) SetDisabled(disabled bool, at time.Time, by string) bool {
	if d.Disabled == disabled {
		return false
	}
	if !disabled {
		*d = DisabledState{}
		return true
	}
	at = at.UTC()
	*d = DisabledState{Disabled: true, DisabledAt: &at, DisabledBy: by}
	return true
}
