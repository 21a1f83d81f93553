// Package emitters lists the emitters agentc runs, in one place (as
// go/analysis's multichecker is handed its analyzers): the CLI's gen,
// check and vet, and the tests that generate as gen does, take the list
// from here.
package emitters

import (
	"github.com/agentc-dev/agentc/gen/docgen"
	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/gogen"
	"github.com/agentc-dev/agentc/gen/jsonschemagen"
	"github.com/agentc-dev/agentc/gen/mcpgen"
	"github.com/agentc-dev/agentc/gen/proxygen"
	"github.com/agentc-dev/agentc/gen/tsgen"
)

// All returns every emitter, sorted by name (as --only lists them).
func All() []*emit.Emitter {
	return []*emit.Emitter{
		docgen.Emitter,
		gogen.Emitter,
		jsonschemagen.Emitter,
		mcpgen.Emitter,
		tsgen.OpenCodeEmitter,
		proxygen.Emitter,
		tsgen.TSEmitter,
	}
}
