package keys

// AccountRate is the account's request counter and the proof that the account and its
// keys are still live: created with the account and with each key, the rate gate
// refuses a request once it is gone.
func AccountRate(accountID string) Key {
	return Key{PK: Partition(accountID, "RATE"), SK: "RATE"}
}
