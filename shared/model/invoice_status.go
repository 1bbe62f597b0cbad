package model

// Invoice statuses set through PUT /v1/data_sources/{ds}/invoices/{external_id}/status
// (docs/api.md, "Endpoints"). An invoice without one is issued ("open"); imports never set
// or clear a status. Voided and written-off invoices count for nothing in the metrics
// (docs/metrics-engine.md §1.3).
const (
	InvoiceVoided     = "voided"
	InvoiceWrittenOff = "written_off"
)

// ValidInvoiceStatus reports whether s can be requested.
func ValidInvoiceStatus(s string) bool { return s == InvoiceVoided || s == InvoiceWrittenOff }

// InvoiceStatusTransitionAllowed reports whether an invoice in status from may be set to
// to. ChartMogul documents only that some transitions are refused; the choice follows
// the usual invoice life cycle: an issued invoice may be voided or written off, a
// written-off one may still be voided, a voided one is final. Setting the current status
// again is allowed (a retried request must succeed).
func InvoiceStatusTransitionAllowed(from, to string) bool {
	if from == to {
		return true
	}
	switch from {
	case "":
		return ValidInvoiceStatus(to)
	case InvoiceWrittenOff:
		return to == InvoiceVoided
	}
	return false
}
