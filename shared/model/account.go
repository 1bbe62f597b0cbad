// Package model holds the service's domain types and their validation rules. It
// knows nothing of AWS or HTTP.
package model

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/subsight/subsight/shared/ids"
)

// Account is one customer of Subsight (a SaaS company).
type Account struct {
	ID          string
	Name        string
	Currency    string
	TimeZone    string
	WeekStartOn string
	Settings    Settings
	Limits      Limits
	CreatedAt   time.Time
}

// Settings are the subscription-analytics settings of an account (docs/metrics-engine.md §4.1).
type Settings struct {
	ChurnRecognition                  string
	ChurnWhenZeroMRR                  bool
	AutoChurnSubscription             bool
	RefundHandling                    string
	ProximateMovementReclassification string
}

// Allowed values of the settings.
var (
	ChurnRecognitions = []string{"churn_at_time_of_cancelation", "churn_at_period_end", "churn_at_click"}
	RefundHandlings   = []string{"refund_ignore", "refund_full_only"}
	Reclassifications = []string{"reclassification_off", "one_minute_reclassification",
		"ten_minutes_reclassification", "one_hour_reclassification", "one_day_reclassification",
		"one_week_reclassification", "thirty_days_reclassification", "sixty_days_reclassification",
		"ninety_days_reclassification"}
	WeekStarts = []string{"monday", "sunday"}
)

// AccountIncludes are the optional fields of GET /v1/account, in response order.
var AccountIncludes = []string{"churn_recognition", "churn_when_zero_mrr", "auto_churn_subscription",
	"refund_handling", "proximate_movement_reclassification"}

// DefaultSettings are ChartMogul's defaults.
func DefaultSettings() Settings {
	return Settings{
		ChurnRecognition:                  "churn_at_time_of_cancelation",
		RefundHandling:                    "refund_ignore",
		ProximateMovementReclassification: "reclassification_off",
	}
}

// NewAccountID returns a new acc_ id.
func NewAccountID() string { return ids.New(ids.Account) }

var currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)

// Validate checks an account's fields; the time zone must be loadable by the caller's
// tz database (the admin command embeds one).
func (a Account) Validate() error {
	if strings.TrimSpace(a.Name) == "" {
		return fmt.Errorf("name is required")
	}
	if !currencyCode.MatchString(a.Currency) || !slices.Contains(Currencies, a.Currency) {
		return fmt.Errorf("currency %q is not an ISO 4217 code", a.Currency)
	}
	if _, err := time.LoadLocation(a.TimeZone); err != nil || a.TimeZone == "" || a.TimeZone == "Local" {
		return fmt.Errorf("time zone %q is not an IANA time zone name", a.TimeZone)
	}
	if !slices.Contains(WeekStarts, a.WeekStartOn) {
		return fmt.Errorf("week start %q must be one of %s", a.WeekStartOn, strings.Join(WeekStarts, ", "))
	}
	return a.Settings.Validate()
}

// Validate checks every setting against its allowed values.
func (s Settings) Validate() error {
	if !slices.Contains(ChurnRecognitions, s.ChurnRecognition) {
		return fmt.Errorf("churn_recognition %q must be one of %s", s.ChurnRecognition, strings.Join(ChurnRecognitions, ", "))
	}
	if !slices.Contains(RefundHandlings, s.RefundHandling) {
		return fmt.Errorf("refund_handling %q must be one of %s", s.RefundHandling, strings.Join(RefundHandlings, ", "))
	}
	if !slices.Contains(Reclassifications, s.ProximateMovementReclassification) {
		return fmt.Errorf("proximate_movement_reclassification %q must be one of %s",
			s.ProximateMovementReclassification, strings.Join(Reclassifications, ", "))
	}
	return nil
}

// Set changes one setting by its API name, validating the value.
func (s *Settings) Set(name, value string) error {
	parseBool := func() (bool, error) {
		switch value {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return false, fmt.Errorf("%s must be true or false, not %q", name, value)
	}
	var err error
	switch name {
	case "churn_recognition":
		s.ChurnRecognition = value
	case "churn_when_zero_mrr":
		s.ChurnWhenZeroMRR, err = parseBool()
	case "auto_churn_subscription":
		s.AutoChurnSubscription, err = parseBool()
	case "refund_handling":
		s.RefundHandling = value
	case "proximate_movement_reclassification":
		s.ProximateMovementReclassification = value
	default:
		return fmt.Errorf("unknown setting %q (one of %s)", name, strings.Join(AccountIncludes, ", "))
	}
	if err != nil {
		return err
	}
	return s.Validate()
}

// Member is a team member of an account (note authors, customer owners).
type Member struct {
	AccountID string
	Email     string
	Name      string
	CreatedAt time.Time
}

var emailShape = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)

// ValidEmail is the loose e-mail check the API applies.
func ValidEmail(s string) bool { return emailShape.MatchString(s) }

// Validate checks a member.
func (m Member) Validate() error {
	if !ValidEmail(m.Email) {
		return fmt.Errorf("e-mail %q is not valid", m.Email)
	}
	if strings.TrimSpace(m.Name) == "" {
		return fmt.Errorf("display name is required")
	}
	return nil
}

// APIKey is the stored form of an API key: only its hash.
type APIKey struct {
	AccountID string
	ID        string
	Hash      string
	CreatedAt time.Time
	RevokedAt *time.Time
}
