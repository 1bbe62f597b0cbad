package billing

import (
	"time"

	"github.com/subsight/subsight/shared/model"
)

// disabled is the stored disabled state of a record: an attribute of an invoice or a
// subscription event item, a field of a line item or transaction packed in its
// invoice (hence the short names). Absent while the record is enabled, so enabled
// records cost no bytes.
type disabled struct {
	At time.Time `dynamodbav:"a" json:"a"`
	By string    `dynamodbav:"b,omitempty" json:"b,omitempty"`
}

func disabledOf(s model.DisabledState) *disabled {
	if !s.Disabled {
		return nil
	}
	d := &disabled{By: s.DisabledBy}
	if s.DisabledAt != nil {
		d.At = *s.DisabledAt
	}
	return d
}

func (d *disabled) state() model.DisabledState {
	if d == nil {
		return model.DisabledState{}
	}
	at := d.At.UTC()
	return model.DisabledState{Disabled: true, DisabledAt: &at, DisabledBy: d.By}
}
