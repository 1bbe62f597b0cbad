// Package jsonimports holds the HTTP operations of bulk imports: a data source's
// json_imports (create, retrieve, list), whose intake and progress are the import
// pipeline's (shared/imports).
package jsonimports
