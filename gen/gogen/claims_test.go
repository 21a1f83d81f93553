package gogen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	"github.com/agentc-dev/agentc/gen/internal/testspecs"
)

// TestClaimsCoverPackage: every package-level identifier of the generated
// package (generated/go/contract, proxy.go included) is claimed before the
// package is emitted, so that a spec name meeting one is a vet finding, not
// a compile error; and every fixed name is one the package declares.
func TestClaimsCoverPackage(t *testing.T) {
	s := testspecs.Load(t, "")
	g, errs := newGenerator(s)
	if errs != nil {
		t.Fatal(errs.Err())
	}
	dir := filepath.Join(nodetool.ModuleRoot(t), s.Codegen.Out, s.Codegen.GoDir)
	pkgs, err := parser.ParseDir(token.NewFileSet(), dir, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 1 {
		t.Fatalf("%s holds %d packages, want 1", dir, len(pkgs))
	}
	numbered := regexp.MustCompile(`^(pattern|values)[0-9]+$`)
	declared := map[string]bool{}
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
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
	}
	if len(declared) < 100 {
		t.Fatalf("found only %d declarations in %s", len(declared), dir)
	}
	for id := range declared {
		if _, ok := g.claims[id]; !ok && !numbered.MatchString(id) && id != "_" {
			t.Errorf("%s is declared by the generated package but not claimed: add it to fixedNames or proxyNames", id)
		}
	}
	for _, id := range slices.Concat(fixedNames, proxyNames) {
		if !declared[id] {
			t.Errorf("fixed name %s is not declared by the generated package", id)
		}
	}
}
