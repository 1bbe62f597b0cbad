package model

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/ids"
)

// Plan is a billing plan of a data source.
type Plan struct {
	AccountID      string
	UUID           string
	DataSourceUUID string
	// System is the data source's billing system, copied so that listings can filter
	// on it without reading data sources.
	System        string
	ExternalID    string
	Name          string
	IntervalCount int
	IntervalUnit  string
	CreatedAt     time.Time
	// References counts the subscriptions and invoice line items that use the plan;
	// while it is above zero the interval cannot change and the plan cannot be deleted.
	References int
}

// IntervalUnits are the allowed values of interval_unit.
var IntervalUnits = []string{"day", "month", "year"}

// Limits of plan fields; they keep items far below DynamoDB's key and item sizes.
const (
	MaxPlanNameLength = 255
	MaxExternalIDLen  = 255
	MaxIntervalCount  = math.MaxInt32
)

// Family C messages of plan validation (ChartMogul's wording where recorded).
const (
	MsgPlanName           = "A unique name is required for each plan."
	MsgPlanNameTooLong    = "is too long (maximum is 255 characters)"
	MsgNotANumber         = "is not a number"
	MsgMustBeInteger      = "must be an integer"
	MsgMustBePositive     = "must be greater than 0"
	MsgIntervalTooLarge   = "must be less than or equal to 2147483647"
	MsgIntervalUnit       = "Only 'day', 'month' or 'year' are valid values for interval_unit."
	MsgPlanDataSource     = "A valid data source UUID is required for each plan."
	MsgPlanExternalIDUsed = "The external ID for this plan already exists in our system."
	MsgExternalIDTooLong  = "is too long (maximum is 255 characters)"
)

// NewPlanUUID returns a new pl_ id. Its UUID is time-ordered, which makes the
// account-wide listing read in creation order.
func NewPlanUUID() string { return ids.New(ids.Plan) }

// DefaultPlanExternalID is the external id of a plan created without one: its uuid
// without the prefix, as ChartMogul does since 2020.
func DefaultPlanExternalID(planUUID string) string { return ids.Bare(planUUID, ids.Plan) }

// ValidIntervalUnit reports whether u is day, month or year.
func ValidIntervalUnit(u string) bool { return slices.Contains(IntervalUnits, u) }

// ParseIntervalCount reads interval_count from a decoded JSON value. Numbers and
// numeric strings are accepted, as ChartMogul's Rails validation does; the error is
// the field's message.
func ParseIntervalCount(v any) (int, error) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case json.Number:
		var err error
		if f, err = strconv.ParseFloat(string(x), 64); err != nil {
			return 0, errors.New(MsgNotANumber)
		}
	case string:
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(x), 64); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, errors.New(MsgNotANumber)
		}
	default:
		return 0, errors.New(MsgNotANumber)
	}
	switch {
	case f != math.Trunc(f):
		return 0, errors.New(MsgMustBeInteger)
	case f <= 0:
		return 0, errors.New(MsgMustBePositive)
	case f > MaxIntervalCount:
		return 0, errors.New(MsgIntervalTooLarge)
	}
	return int(f), nil
}

// ValidPlanName trims a plan name and checks it; the error is the field's message.
func ValidPlanName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		//lint:ignore ST1005 the error's text is ChartMogul's message, returned to the client as it is
		return "", errors.New(MsgPlanName)
	case len([]rune(name)) > MaxPlanNameLength:
		return "", errors.New(MsgPlanNameTooLong)
	}
	return name, nil
}

// SystemFilter turns a `system` query value into the stored billing-system name:
// "Custom" selects the sources created through the API, as in ChartMogul.
func SystemFilter(system string) string {
	if system == "Custom" {
		return SystemImportAPI
	}
	return system
}
