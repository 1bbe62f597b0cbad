// Command admin is the operator's tool: accounts, API keys, team members and account
// settings. With -local it acts on the running local stack (.local/stack.json);
// without it, on the AWS deployment whose table is given by -table or TABLE_NAME.
package main

import (
	"context"
	"os"
	_ "time/tzdata" // validate IANA zones the same way on every machine
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
