package importstore

import (
	"context"

	"github.com/subsight/subsight/shared/keys"
	"github.com/subsight/subsight/shared/model"
	"github.com/subsight/subsight/shared/store"
	"github.com/subsight/subsight/shared/store/dynamo/table"
)

// ListImports reads one page of a data source's json_imports records, in the order of
// their external ids (the sort key of the data source's partition: one consistent
// Query a page, whatever the source holds besides).
func (s *Store) ListImports(ctx context.Context, accountID, dsUUID string, limit int, start store.PageToken) (store.Page[model.Import], error) {
	q := table.PrefixListing(keys.DataSourcePartition(accountID, dsUUID), keys.ImportPrefix)
	return table.ListPage(ctx, s.t, q, limit, start, func(it importItem) model.Import { return it.record(accountID) }, nil)
}
