// Package config reads the functions' settings from the environment once, at start.
package config

import (
	"fmt"
	"os"
)

// Config is the environment every function shares (template.yaml Globals).
type Config struct {
	TableName      string
	ImportBucket   string
	ImportQueueURL string
	JobsQueueURL   string
	CursorSecret   string
	// AppURL is the base of the links to the web app (customer "chartmogul-url").
	AppURL string
}

// FromEnv reads the configuration; TABLE_NAME and CURSOR_SECRET are required.
func FromEnv() (Config, error) {
	c := Config{
		TableName:      os.Getenv("TABLE_NAME"),
		ImportBucket:   os.Getenv("IMPORT_BUCKET"),
		ImportQueueURL: os.Getenv("IMPORT_QUEUE_URL"),
		JobsQueueURL:   os.Getenv("JOBS_QUEUE_URL"),
		CursorSecret:   os.Getenv("CURSOR_SECRET"),
		AppURL:         os.Getenv("APP_URL"),
	}
	if c.TableName == "" {
		return c, fmt.Errorf("config: TABLE_NAME is not set")
	}
	if len(c.CursorSecret) < 16 {
		return c, fmt.Errorf("config: CURSOR_SECRET must be set (at least 16 characters)")
	}
	if c.AppURL == "" {
		c.AppURL = "https://app.subsight.dev"
	}
	return c, nil
}

// Env returns the configuration as environment variables (the local stack and tests
// use it to start functions the way Lambda would).
func (c Config) Env() map[string]string {
	return map[string]string{
		"TABLE_NAME":       c.TableName,
		"IMPORT_BUCKET":    c.ImportBucket,
		"IMPORT_QUEUE_URL": c.ImportQueueURL,
		"JOBS_QUEUE_URL":   c.JobsQueueURL,
		"CURSOR_SECRET":    c.CursorSecret,
		"APP_URL":          c.AppURL,
	}
}
