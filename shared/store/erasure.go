package store

import "context"

// AccountErasure deletes a whole account (`admin delete-account`), in two steps whose
// order matters (docs/operations.md, "Deleting an account").
type AccountErasure interface {
	// CloseAccount makes the account unusable: it deletes the lookup item of every key
	// (the authorizer finds no account), the account's rate item (the rate gate refuses
	// even a request that API Gateway's cached authorizer answer still admits) and the
	// account item (the workers drop the account's queued messages). Repeatable.
	CloseAccount(ctx context.Context, accountID string) error
	// EraseAccountItems deletes every item whose partition key belongs to the account
	// (one scan of the table, in parallel segments) and returns how many it deleted.
	EraseAccountItems(ctx context.Context, accountID string) (int, error)
}
