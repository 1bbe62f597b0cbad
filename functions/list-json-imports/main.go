// Command list-json-imports lists a data source's json imports.
package main

import (
	"github.com/subsight/subsight/shared/api/jsonimports"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(jsonimports.ListJSONImports) }
