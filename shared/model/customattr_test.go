package model

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestCoerceAttrValue(t *testing.T) {
	tests := []struct {
		t    AttrType
		in   any
		want any // nil with ok=false means an error
		ok   bool
	}{
		{AttrString, "hi", "hi", true},
		{AttrString, json.Number("12"), "12", true},
		{AttrString, strings.Repeat("é", 255), strings.Repeat("é", 255), true},
		{AttrString, strings.Repeat("x", 256), nil, false},
		{AttrInteger, json.Number("1234"), json.Number("1234"), true},
		{AttrInteger, "42", json.Number("42"), true},
		{AttrInteger, json.Number("1.5"), nil, false},
		{AttrInteger, true, nil, false},
		{AttrDecimal, json.Number("12.50"), json.Number("12.5"), true},
		{AttrDecimal, "abc", nil, false},
		{AttrTimestamp, "2016-01-31 00:00:00 UTC", "2016-01-31T00:00:00.000Z", true},
		{AttrTimestamp, "2016-01-01 12:00:00 +0300", "2016-01-01T09:00:00.000Z", true},
		{AttrTimestamp, "tomorrow", nil, false},
		{AttrBoolean, true, true, true},
		{AttrBoolean, "TRUE", true, true},
		{AttrBoolean, "t", true, true},
		{AttrBoolean, json.Number("1"), true, true},
		{AttrBoolean, "FALSE", false, true},
		{AttrBoolean, "f", false, true},
		{AttrBoolean, "0", false, true},
		{AttrBoolean, "yes", nil, false},
		{AttrBoolean, nil, nil, true},
	}
	for _, tt := range tests {
		v, err := CoerceAttrValue(tt.t, tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("%s %#v: err %v", tt.t, tt.in, err)
			continue
		}
		if tt.ok && v.JSON() != tt.want {
			t.Errorf("%s %#v = %#v, want %#v", tt.t, tt.in, v.JSON(), tt.want)
		}
	}
}

func TestCustomerFieldRules(t *testing.T) {
	now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	ok := func(got string, err error, want string) {
		t.Helper()
		if err != nil || got != want {
			t.Errorf("got %q %v, want %q", got, err, want)
		}
	}
	fails := func(_ string, err error) {
		t.Helper()
		if err == nil {
			t.Error("expected an error")
		}
	}
	s, err := USState("US-CA")
	ok(s, err, "CA")
	fails(USState("CA"))
	fails(USState("US-ZZ"))
	s, err = Country("de")
	ok(s, err, "DE")
	fails(Country("XX"))
	fails(Country("USA"))
	s, err = WebsiteURL("chartmogul.com")
	ok(s, err, "https://chartmogul.com")
	s, err = WebsiteURL("http://a.example/x?y=1")
	ok(s, err, "http://a.example/x?y=1")
	fails(WebsiteURL("ftp://example.com"))
	fails(WebsiteURL("just words"))
	fails(LeadStatus("Active"))
	s, err = LeadStatus("working_lead")
	ok(s, err, "Working Lead")
	if _, err := PastTime("lead_created_at", "2024-01-02", now); err == nil {
		t.Error("future date accepted")
	}
	if got, err := PastTime("lead_created_at", "2023-12-31T10:00:00", now); err != nil || !got.Equal(time.Date(2023, 12, 31, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("no-zone date: %v %v", got, err)
	}
	if CountryName("US") != "United States" || StateName("CA") != "California" {
		t.Error("display names")
	}
	c := Customer{ID: 7, Name: "Richard Hendricks", Company: "Pied Piper"}
	if got := c.PageURL("https://app.example/"); got != "https://app.example/#/customers/7-Pied_Piper" {
		t.Errorf("url %s", got)
	}
}
