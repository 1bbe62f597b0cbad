package keys

// TypeDeadLetterNote is why a queue message failed on its last receive.
const TypeDeadLetterNote = "dead_letter_note"

// DeadLetterNote is the note of one message (by its SQS message id, which SQS keeps
// when it moves the message to its dead-letter queue), in a partition of the account's
// own: the dead-letter listing reads an account's notes together.
func DeadLetterNote(accountID, messageID string) Key {
	return Key{PK: Partition(accountID, "DLQ"), SK: "MSG" + sep + messageID}
}
