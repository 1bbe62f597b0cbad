// Command get-json-import shows a json_imports batch's progress.
package main

import (
	"github.com/subsight/subsight/shared/api/jsonimports"
	"github.com/subsight/subsight/shared/lambdaapp"
)

func main() { lambdaapp.API(jsonimports.GetJSONImport) }
