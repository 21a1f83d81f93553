// Command agentc compiles an agent-contract spec written in CUE into every
// artifact that must agree with it, and gates CI on their agreement.
package main

import (
	"os"

	"github.com/agentc-dev/agentc/gen/cli"
	"github.com/agentc-dev/agentc/gen/hugeheap"
)

func main() {
	// Before anything allocates much: loading a large spec touches a
	// heap of ~100 MB, far cheaper in huge pages (package hugeheap).
	hugeheap.Reserve(hugeheap.Size)
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
