package gogen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	"github.com/agentc-dev/agentc/gen/internal/testspecs"
	"github.com/agentc-dev/agentc/gen/proxygen"
)

// TestClaimsCoverPackage: every package-level identifier of the generated
// package (proxy.go, emitter "proxy"'s, included) is claimed before the
// package is emitted, so that a spec name meeting one is a vet finding, not
// a compile error; and every fixed name is one the package declares. The
// specs: the default, the first contract version, the decoder layouts and
// the TypeScript coverage spec.
func TestClaimsCoverPackage(t *testing.T) {
	root := nodetool.ModuleRoot(t)
	declaredAny := map[string]bool{}
	for _, dir := range []string{"", filepath.Join(root, "spec", "testdata", "v0"), filepath.Join("testdata", "decodetext"),
		filepath.Join(root, "gen", "tsgen", "testdata", "coverage")} {
		s := testspecs.Load(t, dir)
		g, errs := newGenerator(s)
		if errs != nil {
			t.Fatal(errs.Err())
		}
		var files []emit.File
		for _, e := range []*emit.Emitter{Emitter, proxygen.Emitter} {
			fs, err := e.Run(&emit.Pass{Spec: s})
			if err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			files = append(files, fs...)
		}
		fset := token.NewFileSet()
		declared := map[string]bool{}
		for _, f := range files {
			if path.Dir(f.Path) != s.Codegen.GoDir || path.Ext(f.Path) != ".go" {
				continue // the runtime's copy, the plugin
			}
			af, err := parser.ParseFile(fset, f.Path, f.Data, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range af.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil {
						declared[d.Name.Name] = true
					}
				case *ast.GenDecl:
					for _, sp := range d.Specs {
						switch sp := sp.(type) {
						case *ast.TypeSpec:
							declared[sp.Name.Name] = true
						case *ast.ValueSpec:
							for _, n := range sp.Names {
								declared[n.Name] = true
							}
						}
					}
				}
			}
		}
		if len(declared) < 60 {
			t.Fatalf("%s: found only %d declarations", dir, len(declared))
		}
		for id := range declared {
			declaredAny[id] = true
			if _, ok := g.claims[id]; !ok && id != "_" {
				t.Errorf("%s: %s is declared by the generated package but not claimed: add it to fixedNames or proxyNames", dir, id)
			}
		}
	}
	for _, id := range slices.Concat(fixedNames, proxyNames) {
		if !declaredAny[id] {
			t.Errorf("fixed name %s is not declared by the generated package", id)
		}
	}
}
