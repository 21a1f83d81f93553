package mcpgen_test

import (
	"bytes"
	"go/format"
	"path"
	"strconv"
	"testing"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/internal/testspecs"
	"github.com/agentc-dev/agentc/gen/mcpgen"
)

// TestServerFileFollowsSpec: server.go, remembered from the run before,
// still follows every input it depends on — the core import and the
// package name, changed and changed back — and is as gofmt writes it.
func TestServerFileFollowsSpec(t *testing.T) {
	s := testspecs.WithMCP(t, "")
	for _, c := range []struct{ pkg, core string }{
		{"contractmcp", "example.com/a/contract"},
		{"contractmcp", "example.com/b/contract"},
		{"othermcp", "example.com/b/contract"},
		{"contractmcp", "example.com/a/contract"},
	} {
		s.Codegen.MCP.Package, s.Codegen.MCP.CoreImport = c.pkg, c.core
		files, err := mcpgen.Emit(&emit.Pass{Spec: s})
		if err != nil {
			t.Fatal(err)
		}
		var src []byte
		for _, f := range files {
			if path.Base(f.Path) == "server.go" {
				src = f.Data
			}
		}
		if !bytes.Contains(src, []byte("\npackage "+c.pkg+"\n")) || !bytes.Contains(src, []byte("contract "+strconv.Quote(c.core))) {
			t.Errorf("package %s, core %s: server.go has another package clause or core import", c.pkg, c.core)
		}
		if want, err := format.Source(src); err != nil || !bytes.Equal(src, want) {
			t.Errorf("package %s, core %s: server.go is not gofmt'd (%v)", c.pkg, c.core, err)
		}
	}
}
