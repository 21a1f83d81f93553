package load

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/token"

	"github.com/agentc-dev/agentc/spec"
)

// The metaschema's closedness, read from the syntax.
//
// metaschema unifies #Spec with the whole spec to find fields the closed
// definitions do not allow, which evaluates the spec a second time. That
// unification can only add "field not allowed" errors: the spec already
// holds #Spec (it is embedded), and no struct disjunction there could be
// decided differently once closed. Those errors are about fields the user's
// files declare, so when every field the user's files declare is allowed by
// the definition at its place — read from both files' syntax — the second
// evaluation would find nothing, and is skipped. Wherever the syntax does
// not say everything (an embedding, a comprehension, a pattern, a reference
// where a struct is expected, a form of the metaschema this reading does not
// know), the unification runs as before, so every finding is still CUE's.

// shapeKind is what a metaschema value admits below it.
type shapeKind int

const (
	unknownShape shapeKind = iota // a form not read here: decide by unification
	leafShape                     // a scalar (or a list of scalars' like)
	structShape                   // a closed struct, or open with an ellipsis
	listShape                     // a list whose elements are elem
)

// shape is the part of a metaschema value that closedness depends on.
type shape struct {
	kind     shapeKind
	fields   map[string]*shape
	patterns []patternShape
	open     bool   // an ellipsis: any other label is allowed, unconstrained
	elem     *shape // a list's elements
}

// patternShape is a pattern constraint [label]: value.
type patternShape struct {
	match func(label string) bool
	value *shape
}

var unknown = &shape{kind: unknownShape}

// schemaShapes reads the metaschema's syntax.
type schemaShapes struct {
	defs map[string]ast.Expr
	memo map[string]*shape
	busy map[string]bool
}

// closedBySyntax reports whether every field the user's files declare is
// allowed where it stands by the metaschema's closed definitions (true), or
// whether that takes CUE's unification to decide (false). files are the
// instance's parsed files.
func (l *loader) closedBySyntax(files []*ast.File, userFiles []string) bool {
	var schema *ast.File
	var user []*ast.File
	for _, f := range files {
		if filepath.Dir(f.Filename) != l.src.abs {
			continue
		}
		switch base := filepath.Base(f.Filename); {
		case base == spec.SchemaFile:
			schema = f
		case slices.Contains(userFiles, base):
			user = append(user, f)
		}
	}
	if schema == nil {
		return false
	}
	s := &schemaShapes{defs: map[string]ast.Expr{}, memo: map[string]*shape{}, busy: map[string]bool{}}
	for _, d := range schema.Decls {
		if f, ok := d.(*ast.Field); ok {
			if id, ok := f.Label.(*ast.Ident); ok && strings.HasPrefix(id.Name, "#") {
				s.defs[id.Name] = f.Value
			}
		}
	}
	root := s.def("#Spec")
	if root.kind != structShape {
		return false
	}
	for _, f := range user {
		for _, d := range f.Decls {
			// A definition of the metaschema's declared again in the
			// spec adds to it (a pattern may then admit fewer keys).
			if fd, ok := d.(*ast.Field); ok {
				if id, ok := fd.Label.(*ast.Ident); ok && s.defs[id.Name] != nil {
					return false
				}
			}
		}
		if !allowedDecls(f.Decls, root, true) {
			return false
		}
	}
	return true
}

// allowedDecls reports whether the declarations of a struct (a file's, at
// the top) are all allowed by sh, as far as the syntax tells.
func allowedDecls(decls []ast.Decl, sh *shape, top bool) bool {
	for _, d := range decls {
		switch d := d.(type) {
		case *ast.Package, *ast.ImportDecl, *ast.Attribute, *ast.CommentGroup:
			if !top {
				return false
			}
		case *ast.Field:
			if id, ok := d.Label.(*ast.Ident); ok && (strings.HasPrefix(id.Name, "_") || strings.HasPrefix(id.Name, "#")) {
				if !top {
					return false
				}
				continue // the spec's own definitions and hidden fields
			}
			if _, ok := d.Label.(*ast.ListLit); ok {
				// A pattern ([_]: tools: x: "available") adds its fields
				// to whichever fields it matches: they must be allowed
				// under each that could be there.
				for _, c := range sh.children() {
					if !allowedValue(d.Value, c) {
						return false
					}
				}
				continue
			}
			name, ok := labelName(d.Label)
			if !ok {
				return false
			}
			child, ok := sh.child(name)
			if !ok {
				return false
			}
			if child != nil && !allowedValue(d.Value, child) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// child returns the shape a field named name has under sh; nil when the
// field is allowed and unconstrained (an ellipsis admits it), false when
// it is not allowed or the syntax does not tell.
func (sh *shape) child(name string) (*shape, bool) {
	var found []*shape
	if c, ok := sh.fields[name]; ok {
		found = append(found, c)
	}
	for _, p := range sh.patterns {
		if p.match == nil {
			return nil, false
		}
		if p.match(name) {
			found = append(found, p.value)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], true
	case len(found) == 0 && sh.open:
		return nil, true
	}
	return nil, false
}

// children returns the shapes a field of sh may have: each declared
// field's and each pattern's (a field only an ellipsis admits is
// unconstrained).
func (sh *shape) children() []*shape {
	var out []*shape
	for _, c := range sh.fields {
		out = append(out, c)
	}
	for _, p := range sh.patterns {
		out = append(out, p.value)
	}
	return out
}

// allowedValue reports whether a user's value for a field of shape sh
// declares only allowed fields.
func allowedValue(v ast.Expr, sh *shape) bool {
	switch sh.kind {
	case leafShape:
		// A scalar: no fields to allow. A struct here conflicts with the
		// metaschema and was reported by evaluation; it is left to CUE.
		_, isStruct := v.(*ast.StructLit)
		return !isStruct
	case structShape:
		st, ok := v.(*ast.StructLit)
		if !ok {
			return false
		}
		if sh.open && len(sh.fields) == 0 && len(sh.patterns) == 0 {
			return true // {...}: an argument schema, free-form JSON
		}
		return allowedDecls(st.Elts, sh, false)
	case listShape:
		l, ok := v.(*ast.ListLit)
		if !ok {
			return sh.elem != nil && sh.elem.kind == leafShape
		}
		for _, e := range l.Elts {
			if _, ok := e.(*ast.Ellipsis); ok || sh.elem == nil {
				return false
			}
			if _, ok := e.(*ast.Comprehension); ok {
				return false
			}
			if !allowedValue(e, sh.elem) {
				return false
			}
		}
		return true
	}
	return false
}

// def returns the shape of the metaschema's definition name.
func (s *schemaShapes) def(name string) *shape {
	if sh, ok := s.memo[name]; ok {
		return sh
	}
	x, ok := s.defs[name]
	if !ok || s.busy[name] {
		return unknown
	}
	s.busy[name] = true
	sh := s.of(x)
	s.busy[name] = false
	s.memo[name] = sh
	return sh
}

// of returns the shape of a metaschema expression.
func (s *schemaShapes) of(x ast.Expr) *shape {
	switch x := x.(type) {
	case *ast.StructLit:
		return s.structOf(x.Elts)
	case *ast.ParenExpr:
		return s.of(x.X)
	case *ast.Ident:
		if strings.HasPrefix(x.Name, "#") {
			return s.def(x.Name)
		}
		switch x.Name {
		case "string", "int", "number", "bool", "float", "bytes", "null":
			return &shape{kind: leafShape}
		}
		return unknown
	case *ast.BasicLit:
		return &shape{kind: leafShape}
	case *ast.UnaryExpr:
		if x.Op == token.MUL { // a default marker
			return s.of(x.X)
		}
		if _, ok := x.X.(*ast.BasicLit); ok {
			return &shape{kind: leafShape} // a bound or a pattern
		}
		return unknown
	case *ast.ListLit:
		if len(x.Elts) == 0 {
			return &shape{kind: listShape}
		}
		if e, ok := x.Elts[len(x.Elts)-1].(*ast.Ellipsis); ok && len(x.Elts) == 1 && e.Type != nil {
			return &shape{kind: listShape, elem: s.of(e.Type)}
		}
		leaf := true
		for _, e := range x.Elts {
			leaf = leaf && s.of(e).kind == leafShape
		}
		if leaf {
			return &shape{kind: listShape, elem: &shape{kind: leafShape}}
		}
		return unknown
	case *ast.BinaryExpr:
		a, b := s.of(x.X), s.of(x.Y)
		switch x.Op {
		case token.AND:
			switch {
			case a.kind == leafShape && b.kind == leafShape:
				return a
			case a.kind == structShape && b.kind == structShape && b.within(a):
				return a
			case a.kind == structShape && b.kind == structShape && a.within(b):
				return b
			}
		case token.OR:
			switch {
			case a.kind == leafShape && b.kind == leafShape:
				return a
			case a.kind == listShape && b.kind == listShape:
				// [...T] | *[]: the elements are T's.
				switch {
				case b.elem == nil || a.elem != nil && b.elem.kind == leafShape && a.elem.kind == leafShape:
					return a
				case a.elem == nil:
					return b
				}
			}
		}
		return unknown
	case *ast.CallExpr:
		return &shape{kind: leafShape}
	}
	return unknown
}

// within reports whether a struct shape declares only fields sh declares,
// with no pattern or ellipsis of its own (the {name: Name} beside #Tool).
func (sh *shape) within(of *shape) bool {
	if sh.open || len(sh.patterns) > 0 {
		return false
	}
	for name := range sh.fields {
		if _, ok := of.fields[name]; !ok {
			return false
		}
	}
	return true
}

// structOf returns the shape of a struct literal's declarations.
func (s *schemaShapes) structOf(decls []ast.Decl) *shape {
	sh := &shape{kind: structShape, fields: map[string]*shape{}}
	var conditional []*ast.StructLit
	for _, d := range decls {
		switch d := d.(type) {
		case *ast.CommentGroup, *ast.Attribute:
		case *ast.Comprehension:
			// if execution == "sandbox" { summary: string }: allowed
			// labels stay the same when it only sets declared fields.
			st, ok := d.Value.(*ast.StructLit)
			if !ok {
				return unknown
			}
			conditional = append(conditional, st)
		case *ast.Ellipsis:
			if d.Type != nil {
				return unknown
			}
			sh.open = true
		case *ast.EmbedDecl:
			e := s.of(d.Expr)
			if e.kind != structShape {
				return unknown
			}
			for name, c := range e.fields {
				if _, dup := sh.fields[name]; dup {
					return unknown
				}
				sh.fields[name] = c
			}
			sh.patterns = append(sh.patterns, e.patterns...)
			sh.open = sh.open || e.open
		case *ast.Field:
			if l, ok := d.Label.(*ast.ListLit); ok {
				sh.patterns = append(sh.patterns, patternShape{match: s.labelMatch(l), value: s.of(d.Value)})
				continue
			}
			name, ok := labelName(d.Label)
			if !ok {
				return unknown
			}
			if _, dup := sh.fields[name]; dup {
				return unknown
			}
			sh.fields[name] = s.of(d.Value)
		default:
			return unknown
		}
	}
	for _, st := range conditional {
		for _, d := range st.Elts {
			f, ok := d.(*ast.Field)
			if !ok {
				return unknown
			}
			name, ok := labelName(f.Label)
			if _, declared := sh.fields[name]; !ok || !declared {
				return unknown
			}
		}
	}
	return sh
}

// labelMatch returns the matcher of a pattern label ([string],
// [Name=string], [#Identifier], [=~"re"]), or nil when it is not one of
// those.
func (s *schemaShapes) labelMatch(l *ast.ListLit) func(string) bool {
	if len(l.Elts) != 1 {
		return nil
	}
	x := l.Elts[0]
	if a, ok := x.(*ast.Alias); ok {
		x = a.Expr
	}
	for range 8 {
		id, ok := x.(*ast.Ident)
		if !ok || !strings.HasPrefix(id.Name, "#") {
			break
		}
		if x, ok = s.defs[id.Name]; !ok {
			return nil
		}
	}
	switch x := x.(type) {
	case *ast.Ident:
		if x.Name == "string" {
			return func(string) bool { return true }
		}
	case *ast.UnaryExpr:
		lit, ok := x.X.(*ast.BasicLit)
		if x.Op != token.MAT || !ok || lit.Kind != token.STRING {
			return nil
		}
		pat, err := literal.Unquote(lit.Value)
		if err != nil {
			return nil
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			return nil
		}
		return re.MatchString
	}
	return nil
}
