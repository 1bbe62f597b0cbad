// Command create-json-import accepts a json_imports batch.
package main

import (
	"github.com/subsight/subsight/shared/api/jsonimports"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(jsonimports.CreateJSONImport) }
