package gogen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestExportedNamesDocumented: every exported name the generated package
// declares — types, functions, methods, constants and variables — has a
// doc comment (a constant or variable may share its group's), over the
// specs of the line-length test.
func TestExportedNamesDocumented(t *testing.T) {
	for _, dir := range lineSpecs {
		files := goFiles(t, dir)
		exported := 0
		for _, f := range files {
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, f.Path, f.Data, parser.ParseComments)
			if err != nil {
				t.Fatalf("%s: %v", f.Path, err)
			}
			for _, missing := range undocumented(file, &exported) {
				t.Errorf("spec %q: %s:%d: exported %s has no doc comment", dir, f.Path, fset.Position(missing.Pos()).Line, missing.Name)
			}
		}
		if exported < 50 {
			t.Errorf("spec %q: found %d exported names, want the package's (at least 50)", dir, exported)
		}
	}
}

// undocumented returns the exported names in file without a doc comment,
// counting the exported names it saw in n.
func undocumented(file *ast.File, n *int) []*ast.Ident {
	var out []*ast.Ident
	check := func(id *ast.Ident, docs ...*ast.CommentGroup) {
		if !id.IsExported() {
			return
		}
		*n++
		for _, d := range docs {
			if d != nil && strings.TrimSpace(d.Text()) != "" {
				return
			}
		}
		out = append(out, id)
	}
	for _, decl := range file.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil && !exportedRecv(d.Recv) {
				continue
			}
			check(d.Name, d.Doc)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch sp := spec.(type) {
				case *ast.TypeSpec:
					check(sp.Name, sp.Doc, d.Doc)
				case *ast.ValueSpec:
					for _, id := range sp.Names {
						check(id, sp.Doc, d.Doc)
					}
				}
			}
		}
	}
	return out
}

// exportedRecv reports whether a method's receiver type is exported.
func exportedRecv(fl *ast.FieldList) bool {
	t := fl.List[0].Type
	if st, ok := t.(*ast.StarExpr); ok {
		t = st.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}
