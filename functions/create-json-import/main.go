// Command create-json-import accepts a json_imports batch.
package main

import (
	"github.com/subsight/subsight/shared/api"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(api.CreateJSONImport) }
