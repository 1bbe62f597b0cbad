package jobs

// BackfillStripe reads a data source's Stripe history into it, a step at a time.
const BackfillStripe = "backfill_stripe"

// Backfill is the job that carries out the data source's Stripe backfill backfillID (its
// progress item says where each step resumes). It runs in the Stripe backfill queue in
// the data source's message group, so a backfill's steps never run at once, while other
// data sources' backfills go on beside it.
func Backfill(accountID, dsUUID, backfillID string) Message {
	return Message{Type: BackfillStripe, AccountID: accountID, DataSourceUUID: dsUUID, Nonce: backfillID}
}
