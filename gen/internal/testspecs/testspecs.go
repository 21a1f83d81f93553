// Package testspecs loads the specs that tests generate from: the default
// (current) contract, the first contract version and the coverage spec,
// which uses every argument construct.
package testspecs

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
)

// Dirs are the specs' directories, absolute; "" is the embedded default.
var Dirs = []string{"", root("spec/testdata/v0"), root("gen/tsgen/testdata/coverage")}

// root returns the absolute path of rel, a path from the module's root.
func root(rel string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", filepath.FromSlash(rel))
}

// Name is a short name of the spec in dir, for test messages.
func Name(dir string) string {
	if dir == "" {
		return "default"
	}
	return filepath.Base(dir)
}

// Load loads the spec in dir (the embedded default for ""), failing the
// test if it does not load.
func Load(t testing.TB, dir string) *model.Spec {
	t.Helper()
	src := load.Default()
	if dir != "" {
		var err error
		if src, err = load.Dir(dir); err != nil {
			t.Fatal(err)
		}
	}
	s, err := load.Load(src)
	if err != nil {
		t.Fatalf("loading the %s spec: %v", Name(dir), err)
	}
	return s
}

// WithMCP is Load with codegen.mcp set to its defaults when the spec sets
// none, so that emitter "mcp" generates the MCP package from every spec.
func WithMCP(t testing.TB, dir string) *model.Spec {
	t.Helper()
	s := Load(t, dir)
	if s.Codegen.MCP == nil {
		s.Codegen.MCP = &model.MCPCodegen{Dir: "go/contractmcp", Package: "contractmcp", CoreImport: "example.com/agent/contract"}
	}
	return s
}
