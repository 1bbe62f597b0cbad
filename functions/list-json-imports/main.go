// Command list-json-imports lists a data source's json imports.
package main

import (
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(api.ListJSONImports) }
