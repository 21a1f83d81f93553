package cli

import (
	"github.com/agentc-dev/agentc/gen/diag"
	"github.com/agentc-dev/agentc/gen/load"
)

// warn prints, on stderr, the findings about the spec's files that do not
// stop a command (a stale metaschema copy), one per line, sorted. The
// embedded default spec has none.
func (e *env) warn(src *load.Source) {
	if w := load.Warnings(src); len(w) > 0 {
		diag.Print(e.stderr, w.Err())
	}
}
