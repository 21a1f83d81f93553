package load

import (
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/token"
	"golang.org/x/text/unicode/norm"

	"github.com/agentc-dev/agentc/spec"
)

// syntaxIndex is what the loader reads from the spec's own syntax, once:
// the doc comment of every field, and where the plainly written fields are
// declared. It says nothing of what the spec means; CUE does.
type syntaxIndex struct {
	// docs maps a field's position (its label's or its value's, in the
	// parsed files values come from) to its doc comment.
	docs map[token.Pos]string
	// decls maps a field path (see pathKey) to the position of the first
	// label that declares it in the user's files.
	decls map[string]token.Pos
	// bindsPredeclared is whether any file of the instance or of its
	// imports binds a name of CUE's predeclared types (a field labelled
	// int, a let, alias or comprehension variable named string …): only
	// then can a reference CUE resolved mean such a name's binding rather
	// than the type (see typeWalker.shadowed, which asks CUE).
	bindsPredeclared bool
	// twins are the definitions the spec's files declare at the top level
	// under a name the metaschema declares too (#Model, #Tool): the
	// metaschema is part of the spec's package, so CUE unifies the two.
	twins []*ast.Field
}

// indexSyntax reads the user's files (userFiles, by name) among the
// instance's parsed files, and for doc comments and labels the files of
// the packages they import from the spec's module (a definition in
// import "example.com/spec/common"). It reports the quoted labels there
// that are not in Unicode NFC ("e\u0301", an e and a combining acute
// accent): CUE's compiler reads a quoted label in its NFC form ("\u00e9"),
// so the name the contract carries — a tool's, an argument's, the key a
// model sends — would differ, invisibly, from the one written. CUE decides
// the name; the label is reported so that what is written is what it
// decides.
func (l *loader) indexSyntax(inst *build.Instance, userFiles []string) *syntaxIndex {
	// The user's files, then the module's files they import; the others
	// (the metaschema, a package's files above the spec directory, packages
	// outside the module) are read for their bindings alone.
	var files, others []*ast.File
	schemaDefs := map[string]bool{}
	for _, f := range inst.Files {
		inDir := filepath.Dir(f.Filename) == l.src.abs
		if inDir && slices.Contains(userFiles, filepath.Base(f.Filename)) {
			files = append(files, f)
			continue
		}
		others = append(others, f)
		if inDir && filepath.Base(f.Filename) == spec.SchemaFile {
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.Field); ok {
					if id, ok := fd.Label.(*ast.Ident); ok && strings.HasPrefix(id.Name, "#") {
						schemaDefs[id.Name] = true
					}
				}
			}
		}
	}
	own := len(files)
	for _, imp := range imports(inst, map[*build.Instance]bool{inst: true}) {
		for _, f := range imp.Files {
			if l.inModule(f.Filename) {
				files = append(files, f) // in the spec's module (the builtin packages have no files)
			} else {
				others = append(others, f)
			}
		}
	}
	// Sized for the spec from the length of its files (a field of a
	// documented spec every 50 bytes or so), so that the maps do not grow
	// step by step at a thousand tools.
	size := 0
	for _, name := range userFiles {
		size += len(l.src.Files[name])
	}
	x := &syntaxIndex{docs: make(map[token.Pos]string, size/64), decls: make(map[string]token.Pos, size/128)}
	indexed := len(files)
	for i, f := range append(files, others...) {
		if i < own {
			x.fields(f.Decls, "", schemaDefs) // the paths of the spec's own fields, and its twins
		}
		ast.Walk(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Alias:
				x.bind(n.Ident)
			case *ast.LetClause:
				x.bind(n.Ident)
			case *ast.ForClause:
				x.bind(n.Key)
				x.bind(n.Value)
			case *ast.Field:
				x.bind(n.Label)
				if i >= indexed {
					break
				}
				if lit, ok := n.Label.(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.ContainsFunc(lit.Value, func(r rune) bool { return r == '\\' || r >= utf8.RuneSelf }) {
					if name, err := literal.Unquote(lit.Value); err == nil && !norm.NFC.IsNormalString(name) {
						l.errs.Add(l.pos(lit.Pos()), "label-nfc", "the label %+q is not in Unicode normal form C: CUE reads it as %+q, a name other than the one written; write it in NFC",
							name, norm.NFC.String(name))
					}
				}
				var parts []string
				for _, cg := range ast.Comments(n) {
					if cg.Doc && !cg.Line {
						if t := strings.TrimSpace(cg.Text()); t != "" {
							parts = append(parts, t)
						}
					}
				}
				if len(parts) > 0 {
					doc := strings.Join(parts, "\n")
					x.docs[n.Label.Pos()] = doc // the field's position too
					if n.Value != nil {
						x.docs[n.Value.Pos()] = doc
					}
				}
			}
			return true
		}, nil)
	}
	return x
}

// imports returns the packages inst imports, directly or not, each once
// (seen holds those not to return).
func imports(inst *build.Instance, seen map[*build.Instance]bool) []*build.Instance {
	var out []*build.Instance
	for _, imp := range inst.Imports {
		if !seen[imp] {
			seen[imp] = true
			out = append(append(out, imp), imports(imp, seen)...)
		}
	}
	return out
}

// bind records whether n, a name a file binds (a field's label, an
// alias, a let or a comprehension's variable), is one of predeclared.
func (x *syntaxIndex) bind(n ast.Node) {
	if id, ok := n.(*ast.Ident); ok && id != nil && predeclared[id.Name] {
		x.bindsPredeclared = true
	}
}

// fields records the plain fields among decls, a struct's at path prefix,
// and the struct literals below them; and, among decls, the definitions
// twins names (the metaschema's, for a file's top level; nil below it).
func (x *syntaxIndex) fields(decls []ast.Decl, prefix string, twins map[string]bool) {
	for _, d := range decls {
		fd, ok := d.(*ast.Field)
		if !ok {
			continue
		}
		var name string
		switch l := fd.Label.(type) {
		case *ast.Ident:
			if twins[l.Name] {
				x.twins = append(x.twins, fd)
			}
			if strings.HasPrefix(l.Name, "_") || strings.HasPrefix(l.Name, "#") {
				continue // hidden fields and definitions are no path's
			}
			name = l.Name
		case *ast.BasicLit:
			// A string; Unquote refuses a literal of another kind.
			s, err := literal.Unquote(l.Value)
			if err != nil {
				continue
			}
			name = s
		default:
			continue // no plain label
		}
		key := prefix + "\x00" + name
		if _, seen := x.decls[key]; !seen {
			x.decls[key] = fd.Pos()
		}
		if st, ok := fd.Value.(*ast.StructLit); ok {
			x.fields(st.Elts, key, nil)
		}
	}
}

// declPos returns the position of the first declaration of v's field in
// the user's files, if the syntax shows one.
func (x *syntaxIndex) declPos(v cue.Value) (token.Pos, bool) {
	var names []string
	for _, s := range v.Path().Selectors() {
		if s.LabelType() != cue.StringLabel {
			return token.NoPos, false
		}
		names = append(names, s.Unquoted())
	}
	return x.declared(names)
}

// declared returns the position of the first declaration of the field at
// path (unquoted labels) in the user's files, if the syntax shows one.
func (x *syntaxIndex) declared(path []string) (token.Pos, bool) {
	p, ok := x.decls["\x00"+strings.Join(path, "\x00")]
	return p, ok
}
