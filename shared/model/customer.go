package model

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/ids"
	"github.com/subsight/subsight/shared/timefmt"
)

// Customer statuses, as the API shows them.
const (
	StatusNewLead         = "New Lead"
	StatusWorkingLead     = "Working Lead"
	StatusQualifiedLead   = "Qualified Lead"
	StatusUnqualifiedLead = "Unqualified Lead"
	StatusActive          = "Active"
	StatusPastDue         = "Past Due"
	StatusCancelled       = "Cancelled"
)

// LeadStatuses can be set through the API; the others are computed from
// subscriptions.
var LeadStatuses = []string{StatusNewLead, StatusWorkingLead, StatusQualifiedLead, StatusUnqualifiedLead}

// CustomerStatuses are every status a customer can have.
var CustomerStatuses = append(slices.Clone(LeadStatuses), StatusActive, StatusPastDue, StatusCancelled)

// BillingSystemCustom is the billing-system-type of customers of API-created sources.
const BillingSystemCustom = "Custom"

// MaxTextLength bounds free-text fields of customers and contacts.
const MaxTextLength = 255

// Customer is one customer (or lead) of an account.
type Customer struct {
	AccountID          string
	ID                 int64
	UUID               string
	DataSourceUUID     string
	DataSourceUUIDs    []string
	ExternalID         string
	ExternalIDs        []string
	Systems            []string // billing systems of its data sources
	Name               string
	Email              string
	Company            string
	City               string // "" is unset (null)
	Zip                string
	Country            string // ISO 3166-1 alpha-2
	State              string // US state code without "US-"
	LeadCreatedAt      *time.Time
	FreeTrialStartedAt *time.Time
	CustomerSince      *time.Time
	Status             string
	Tags               []string
	Custom             map[string]AttrValue
	MRR                int64 // cents; set by the metrics engine
	ARR                int64
	BillingSystemType  string
	Currency           string
	Owner              string // team member e-mail; "" is none
	WebsiteURL         string
	LastSeen           *time.Time
	CreatedAt          time.Time
	UpdatedAt          time.Time
	Version            int64 // optimistic concurrency

	// BillingCurrencies (the currencies of its invoices and events, sorted) and
	// ActiveQuantity (the quantities of its active subscriptions, summed) are kept by
	// the recomputation for the Metrics API's filters; no response shows them.
	BillingCurrencies []string
	ActiveQuantity    int64
}

// NewCustomerUUID returns a new cus_ id.
func NewCustomerUUID() string { return ids.New(ids.Customer) }

// RuleError is a value that breaks a rule of the API; Param names the field.
type RuleError struct {
	Param   string
	Message string
}

func (e *RuleError) Error() string { return e.Param + ": " + e.Message }

func ruleErr(param, format string, args ...any) *RuleError {
	return &RuleError{Param: param, Message: fmt.Sprintf(format, args...)}
}

// IsLead reports whether the status is a lead status.
func IsLead(status string) bool { return slices.Contains(LeadStatuses, status) }

// NormalizeStatus reads a status in either spelling ("Past_Due" or "Past Due").
func NormalizeStatus(s string) (string, bool) {
	s = strings.ReplaceAll(strings.TrimSpace(s), "_", " ")
	for _, st := range CustomerStatuses {
		if strings.EqualFold(s, st) {
			return st, true
		}
	}
	return "", false
}

// LeadStatus validates a status sent by a client: only lead statuses may be set.
func LeadStatus(s string) (string, error) {
	st, ok := NormalizeStatus(s)
	if !ok || !IsLead(st) {
		return "", ruleErr("status", "Status must be one of %s", strings.Join(LeadStatuses, ", "))
	}
	return st, nil
}

// Country validates an ISO 3166-1 alpha-2 code; "" clears it.
func Country(s string) (string, error) {
	code := strings.ToUpper(strings.TrimSpace(s))
	if code == "" {
		return "", nil
	}
	if _, ok := countryNames[code]; !ok {
		return "", ruleErr("country", "%q is not an ISO 3166-1 alpha-2 country code", s)
	}
	return code, nil
}

// USState validates a full ISO 3166-2 US code ("US-CA") and returns the two letters
// after the hyphen; "" clears it.
func USState(s string) (string, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	if s == "" {
		return "", nil
	}
	code, ok := strings.CutPrefix(s, "US-")
	if _, known := usStateNames[code]; !ok || !known {
		return "", ruleErr("state", "%q is not an ISO 3166-2 US state code such as US-CA", s)
	}
	return code, nil
}

// CountryName is the display name of a country code ("" when unknown).
func CountryName(code string) string { return countryNames[code] }

// StateName is the display name of a US state code ("" when unknown).
func StateName(code string) string { return usStateNames[code] }

var bareDomain = regexp.MustCompile(`^([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}(:[0-9]{1,5})?([/?#]\S*)?$`)

// WebsiteURL validates a website: it must be an http:// or https:// URL, and a bare
// domain gets https:// prepended. "" clears it.
func WebsiteURL(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	if len(s) > 2048 {
		return "", ruleErr("website_url", "The website URL is too long")
	}
	if !strings.Contains(s, "://") {
		if !bareDomain.MatchString(s) {
			return "", ruleErr("website_url", "The website URL must start with http:// or https://")
		}
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", ruleErr("website_url", "The website URL must start with http:// or https://")
	}
	return s, nil
}

// PastTime parses an ISO 8601 timestamp (UTC when it has no zone) that must not be
// later than now.
func PastTime(param, s string, now time.Time) (time.Time, error) {
	t, err := timefmt.Parse(s)
	if err != nil {
		return time.Time{}, ruleErr(param, "%q is not a valid ISO 8601 timestamp", s)
	}
	if t.After(now) {
		return time.Time{}, ruleErr(param, "The %s must be in the past", param)
	}
	return t, nil
}

// Text checks a free-text field's length.
func Text(param, s string) (string, error) {
	if len([]rune(s)) > MaxTextLength {
		return "", ruleErr(param, "The %s is too long (maximum is %d characters)", param, MaxTextLength)
	}
	return s, nil
}

// EmailAddress checks an e-mail address; "" clears it.
func EmailAddress(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	if !ValidEmail(s) || len(s) > MaxTextLength {
		return "", ruleErr("email", "The value provided does not appear to be a valid email address.")
	}
	return s, nil
}

// CheckDates enforces that the free trial does not start before the lead was created.
func (c *Customer) CheckDates() error {
	if c.LeadCreatedAt != nil && c.FreeTrialStartedAt != nil && c.FreeTrialStartedAt.Before(*c.LeadCreatedAt) {
		return ruleErr("free_trial_started_at", "The free trial cannot start before the lead was created")
	}
	return nil
}

// CheckState enforces that a state goes with a US (or unset) country.
func (c *Customer) CheckState() error {
	if c.State != "" && c.Country != "" && c.Country != "US" {
		return ruleErr("state", "A state can only be given for customers in the United States")
	}
	return nil
}

// AddTags adds tags that the customer does not have yet, keeping their order.
func (c *Customer) AddTags(tags []string) {
	for _, t := range tags {
		if !slices.Contains(c.Tags, t) {
			c.Tags = append(c.Tags, t)
		}
	}
}

// RemoveTags removes tags.
func (c *Customer) RemoveTags(tags []string) {
	c.Tags = slices.DeleteFunc(c.Tags, func(t string) bool { return slices.Contains(tags, t) })
}

// CleanTags trims tags, drops empty ones and checks their length.
func CleanTags(tags []string) ([]string, error) {
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if len([]rune(t)) > MaxTextLength {
			return nil, ruleErr("tags", "A tag can be at most %d characters long", MaxTextLength)
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// DisplayName is the name shown in the customer page link: the company when known,
// the name otherwise.
func (c *Customer) DisplayName() string {
	if strings.TrimSpace(c.Company) != "" {
		return c.Company
	}
	return c.Name
}

// PageURL is the link to the customer's page in the web app.
func (c *Customer) PageURL(appURL string) string {
	slug := strings.Join(strings.Fields(c.DisplayName()), "_")
	return strings.TrimRight(appURL, "/") + "/#/customers/" + strconv.FormatInt(c.ID, 10) + "-" + url.PathEscape(slug)
}

// LatestLastSeen is the latest of the given times (nil when none).
func LatestLastSeen(times []*time.Time) *time.Time {
	var latest *time.Time
	for _, t := range times {
		if t != nil && (latest == nil || t.After(*latest)) {
			tt := *t
			latest = &tt
		}
	}
	return latest
}
