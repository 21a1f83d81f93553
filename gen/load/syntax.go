package load

import (
	"path/filepath"
	"slices"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/token"

	"github.com/agentc-dev/agentc/spec"
)

// syntaxIndex is what the loader reads from the spec's own syntax, once,
// instead of asking CUE: the doc comment of every field, and where each
// field of the plainly written part of the spec is declared.
type syntaxIndex struct {
	// docs maps a field's position (its label's or its value's, in the
	// parsed files values come from) to its doc comment.
	docs map[token.Pos]string
	// decls maps a field path (see pathKey) to the position of its label
	// and the number of its declarations in the user's files.
	decls map[string]declSite
	// opaque holds the paths below which the syntax does not say every
	// declaration: an embedding, a comprehension, a pattern or a computed
	// label, a let, or a field whose value is not a struct literal may add
	// conjuncts there that no field declares.
	opaque map[string]bool
	// topDefs holds the top-level definitions of the user's files (their
	// fields and values), which an identifier resolved in its own file
	// points to.
	topDefs map[ast.Node]bool
	// defNames holds the names of those definitions.
	defNames map[string]bool
	// schemaTool is the metaschema's #Tool, when it is a struct literal.
	schemaTool *ast.StructLit
}

type declSite struct {
	pos   token.Pos
	count int
	// lit is the struct literal of the first declaration, if its value
	// is one.
	lit *ast.StructLit
}

// indexSyntax reads the user's files (userFiles, by name) among the
// instance's parsed files.
func (l *loader) indexSyntax(files []*ast.File, userFiles []string) *syntaxIndex {
	// Sized for the spec from the length of its files (a field of a
	// documented spec every 50 bytes or so), so that the maps do not grow
	// step by step at a thousand tools.
	size := 0
	for _, name := range userFiles {
		size += len(l.src.Files[name])
	}
	x := &syntaxIndex{docs: make(map[token.Pos]string, size/64), decls: make(map[string]declSite, size/128),
		opaque: make(map[string]bool, size/256), topDefs: map[ast.Node]bool{}, defNames: map[string]bool{}}
	for _, f := range files {
		if filepath.Dir(f.Filename) == l.src.abs && filepath.Base(f.Filename) == spec.SchemaFile {
			x.schemaTool = topStruct(f, "#Tool")
		}
		if filepath.Dir(f.Filename) != l.src.abs || !slices.Contains(userFiles, filepath.Base(f.Filename)) {
			continue
		}
		x.fields(f.Decls, "")
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.Field); ok {
				if id, ok := fd.Label.(*ast.Ident); ok && strings.HasPrefix(id.Name, "#") {
					x.topDefs[fd], x.topDefs[fd.Value] = true, true
					x.defNames[id.Name] = true
				}
			}
		}
		ast.Walk(f, func(n ast.Node) bool {
			fd, ok := n.(*ast.Field)
			if !ok {
				return true
			}
			var parts []string
			for _, cg := range ast.Comments(fd) {
				if cg.Doc && !cg.Line {
					if t := strings.TrimSpace(cg.Text()); t != "" {
						parts = append(parts, t)
					}
				}
			}
			if len(parts) > 0 {
				doc := strings.Join(parts, "\n")
				x.docs[fd.Label.Pos()] = doc
				x.docs[fd.Pos()] = doc
				if fd.Value != nil {
					x.docs[fd.Value.Pos()] = doc
				}
			}
			return true
		}, nil)
	}
	return x
}

// topStruct returns the struct literal the top-level field name of f is
// declared as, or nil.
func topStruct(f *ast.File, name string) *ast.StructLit {
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.Field); ok {
			if id, ok := fd.Label.(*ast.Ident); ok && id.Name == name {
				lit, _ := fd.Value.(*ast.StructLit)
				return lit
			}
		}
	}
	return nil
}

// fields records the declarations among decls, a struct's at path prefix.
func (x *syntaxIndex) fields(decls []ast.Decl, prefix string) {
	for _, d := range decls {
		switch d := d.(type) {
		case *ast.Package, *ast.ImportDecl, *ast.Attribute, *ast.CommentGroup:
		case *ast.Field:
			if id, ok := d.Label.(*ast.Ident); ok && (strings.HasPrefix(id.Name, "_") || strings.HasPrefix(id.Name, "#")) {
				continue // hidden fields and definitions are arcs of their own
			}
			name, ok := labelName(d.Label)
			if !ok {
				x.opaque[prefix] = true
				continue
			}
			key := prefix + "\x00" + name
			s := x.decls[key]
			if s.count == 0 {
				s.pos = d.Pos()
				s.lit, _ = d.Value.(*ast.StructLit)
			}
			s.count++
			x.decls[key] = s
			if st, ok := d.Value.(*ast.StructLit); ok {
				x.fields(st.Elts, key)
			} else {
				x.opaque[key] = true
			}
		default:
			x.opaque[prefix] = true
		}
	}
}

// labelName returns the name a plain label declares: an identifier or a
// string literal.
func labelName(l ast.Label) (string, bool) {
	switch l := l.(type) {
	case *ast.Ident:
		return l.Name, true
	case *ast.BasicLit:
		if l.Kind != token.STRING {
			return "", false
		}
		s, err := literal.Unquote(l.Value)
		return s, err == nil
	}
	return "", false
}

// pathKey returns the index key of v's path from the root, or false for a
// path with a selector no plain label makes (an index, a definition).
func pathKey(v cue.Value) (string, bool) {
	var b strings.Builder
	for _, s := range v.Path().Selectors() {
		if s.LabelType() != cue.StringLabel {
			return "", false
		}
		b.WriteByte(0)
		b.WriteString(s.Unquoted())
	}
	return b.String(), true
}

// single reports whether the syntax shows exactly one declaration of v's
// path, under no embedding, pattern or other form that could add more, and
// returns the path's key.
func (x *syntaxIndex) single(v cue.Value) (string, bool) {
	key, ok := pathKey(v)
	if !ok || x.decls[key].count != 1 {
		return "", false
	}
	for i := 0; i < len(key); i++ {
		if key[i] == 0 && x.opaque[key[:i]] {
			return "", false
		}
	}
	return key, true
}

// plainStruct returns the struct literal of the field at key (see pathKey)
// when the syntax shows it declared once, as a struct literal of plain
// fields, under no embedding, pattern or other form that could add more.
func (x *syntaxIndex) plainStruct(key string) (*ast.StructLit, bool) {
	s := x.decls[key]
	if s.count != 1 || s.lit == nil || x.opaque[key] {
		return nil, false
	}
	for i := 0; i < len(key); i++ {
		if key[i] == 0 && x.opaque[key[:i]] {
			return nil, false
		}
	}
	return s.lit, true
}

// declPos returns the position of the one declaration of v's path in the
// user's files, when the syntax says v has exactly one conjunct there: the
// field's label, where a search of v's conjuncts (userPos) would find it.
func (x *syntaxIndex) declPos(v cue.Value) (token.Pos, bool) {
	if x == nil || v.Source() != nil {
		// A value with one conjunct (or an expression's operand) is not a
		// field's whole value.
		return token.NoPos, false
	}
	// The field itself must be plain too: a value other than a struct
	// literal may bring conjuncts of its own.
	key, ok := x.single(v)
	if !ok || x.opaque[key] {
		return token.NoPos, false
	}
	return x.decls[key].pos, true
}
