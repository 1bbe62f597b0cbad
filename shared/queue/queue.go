// Package queue is the contract of the FIFO queues the service sends to: a message
// with its group and deduplication id, and a sender. It imports no AWS package; the
// SQS implementation is package fifo, built by the wiring.
package queue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
)

// Message is one message of a FIFO queue: messages of one Group are delivered in the
// order sent, and a resend with the same DedupID within the queue's deduplication
// window is dropped.
type Message struct {
	Body    string
	Group   string
	DedupID string
}

// FIFO sends messages to one FIFO queue.
type FIFO interface {
	// Send sends one message.
	Send(ctx context.Context, m Message) error
	// SendBatch sends msgs in order (nothing when there are none). Order within a
	// group holds as long as a group has at most one message per call.
	SendBatch(ctx context.Context, msgs []Message) error
}

// ID is a message group or deduplication id made of parts: the hex SHA-256 of the
// parts, each ended by a NUL so that ("ab", "c") and ("a", "bc") differ; 64 characters,
// within SQS's 128, whatever the parts' lengths.
func ID(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}
