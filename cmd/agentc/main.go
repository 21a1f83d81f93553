// Command agentc compiles an agent-contract spec written in CUE into every
// artifact that must agree with it, and gates CI on their agreement.
package main

import (
	"os"

	"github.com/agentc-dev/agentc/gen/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
