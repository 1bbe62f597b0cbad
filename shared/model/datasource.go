package model

import (
	"time"

	"github.com/subsight/subsight/shared/ids"
)

// SystemImportAPI is the billing system of data sources created through the API.
const SystemImportAPI = "Import API"

// Data source statuses.
const (
	DataSourceIdle     = "idle"
	DataSourceDeleting = "deleting"
)

// DataSource is a source of billing data.
type DataSource struct {
	AccountID string
	UUID      string
	Name      string
	System    string
	Status    string
	CreatedAt time.Time
}

// NewDataSource returns a new Import API data source.
func NewDataSource(accountID, name string, now time.Time) DataSource {
	return DataSource{AccountID: accountID, UUID: ids.New(ids.DataSource), Name: name,
		System: SystemImportAPI, Status: DataSourceIdle, CreatedAt: now}
}
