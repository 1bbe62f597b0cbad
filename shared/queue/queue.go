// Package queue is the contract of the FIFO queues the service sends to: a message
// with its group and deduplication id, and a sender. It imports no AWS package; the
// SQS implementation is package fifo, built by the wiring.
package queue

import "context"

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
