// Package imports is the json_imports pipeline without HTTP: the intake (validate,
// store the parts in S3, record the import, apply plans, queue one FIFO message per
// customer) and the worker's apply step (one customer's records, idempotently).
// See docs/data-model.md "Imports, invoices and subscriptions".
package imports

import (
	"encoding/json"
	"fmt"

	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/queue"
)

// Message is the import queue's message: one customer of one import. It references
// the customer's part in S3 and never carries records.
type Message struct {
	Version            int    `json:"v"`
	AccountID          string `json:"account_id"`
	DataSourceUUID     string `json:"data_source_uuid"`
	ImportID           string `json:"import_id"`
	CustomerExternalID string `json:"customer_external_id"`
	// Key is the S3 object that holds the customer's Part, at Index in its list of parts.
	Key   string `json:"key"`
	Index int    `json:"index"`
	// CustomerID is an integer id reserved for the customer in case it is new.
	CustomerID int64 `json:"customer_id,omitempty"`
	// System and Currency are what a new customer needs from its data source and account.
	System   string `json:"system"`
	Currency string `json:"currency"`
}

const messageVersion = 2

// Group is the FIFO message group: one data source and customer external id, so a
// customer's imports apply one after the other and different customers in parallel.
func (m Message) Group() string {
	return queue.ID(m.AccountID, m.DataSourceUUID, m.CustomerExternalID)
}

// DedupID makes a repeated send of the same customer of the same import a no-op.
func (m Message) DedupID() string { return queue.ID(m.ImportID, m.CustomerExternalID) }

// DecodeMessage reads a message body.
func DecodeMessage(body string) (Message, error) {
	var m Message
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		return m, fmt.Errorf("imports: bad message: %w", err)
	}
	if m.Version != messageVersion || m.AccountID == "" || m.ImportID == "" || m.Key == "" || m.CustomerExternalID == "" {
		return m, fmt.Errorf("imports: message of unknown shape (version %d)", m.Version)
	}
	return m, nil
}

// Part is one customer's records of an import, in payload order.
type Part struct {
	CustomerExternalID string                    `json:"customer_external_id"`
	Customer           *model.ImportCustomer     `json:"customer,omitempty"`
	Invoices           []model.ImportInvoice     `json:"invoices,omitempty"`
	LineItems          []model.ImportLineItem    `json:"line_items,omitempty"`
	Transactions       []model.ImportTransaction `json:"transactions,omitempty"`
	Events             []model.ImportEvent       `json:"subscription_events,omitempty"`
}
