package model

import (
	"time"

	"github.com/subsight/subsight/shared/ids"
)

// Contact is a person at a customer.
type Contact struct {
	AccountID          string
	UUID               string
	CustomerUUID       string
	CustomerExternalID string
	DataSourceUUID     string
	ExternalID         *string
	Position           int
	FirstName          *string
	LastName           *string
	Title              *string
	Email              *string
	Phone              *string
	LinkedIn           *string
	Twitter            *string
	Notes              *string
	Custom             map[string]AttrValue
	LastSeen           *time.Time
	CreatedAt          time.Time
	UpdatedAt          time.Time
	Version            int64
}

// NewContactUUID returns a new con_ id.
func NewContactUUID() string { return ids.New(ids.Contact) }

// MaxNotesLength bounds contact notes, which may hold several lines.
const MaxNotesLength = 10000

// EmailValue is the contact's e-mail or "".
func (c *Contact) EmailValue() string {
	if c.Email == nil {
		return ""
	}
	return *c.Email
}

// FillFrom copies into c every field that c lacks and from has (contact merge).
func (c *Contact) FillFrom(from Contact) {
	fill := func(dst **string, src *string) {
		if (*dst == nil || **dst == "") && src != nil && *src != "" {
			v := *src
			*dst = &v
		}
	}
	fill(&c.ExternalID, from.ExternalID)
	fill(&c.FirstName, from.FirstName)
	fill(&c.LastName, from.LastName)
	fill(&c.Title, from.Title)
	fill(&c.Email, from.Email)
	fill(&c.Phone, from.Phone)
	fill(&c.LinkedIn, from.LinkedIn)
	fill(&c.Twitter, from.Twitter)
	fill(&c.Notes, from.Notes)
	for k, v := range from.Custom {
		if _, ok := c.Custom[k]; !ok {
			if c.Custom == nil {
				c.Custom = map[string]AttrValue{}
			}
			c.Custom[k] = v
		}
	}
	if c.LastSeen == nil || (from.LastSeen != nil && from.LastSeen.After(*c.LastSeen)) {
		c.LastSeen = from.LastSeen
	}
}
