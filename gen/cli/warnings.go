package cli

import (
	"github.com/agentc-dev/agentc/gen/diag"
	"github.com/agentc-dev/agentc/gen/load"
)

// warnSpec prints, on stderr, the findings about the spec in dir that do
// not stop a command (a stale metaschema copy), one per line, sorted. The
// embedded default spec ("") has none.
func (e *env) warnSpec(dir string) {
	if dir == "" {
		return
	}
	src, err := load.Dir(dir)
	if err != nil {
		return // the command's own load reports it
	}
	if w := load.Warnings(src); len(w) > 0 {
		diag.Print(e.stderr, w.Err())
	}
}
