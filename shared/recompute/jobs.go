package recompute

import "github.com/subsight/subsight/shared/jobs"

// Job types of the metrics area on the jobs queue. They are grouped by customer
// (jobs.Message.CustomerUUID), so two jobs of one customer never run at the same time.
const (
	// RecomputeCustomerJob recomputes one customer's metrics from its stored records.
	RecomputeCustomerJob = jobs.RecomputeCustomer
	// MergeCustomersJob carries out the pending merges into one customer.
	MergeCustomersJob = "merge_customers"
)
