package load

import (
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"unicode/utf8"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/token"

	"github.com/agentc-dev/agentc/gen/model"
)

// The constraints of a field, read from its syntax.
//
// walk reads a field's constraints through Value.Expr, which evaluates each
// operand of the expression again as a value of its own: most of the time
// vet spends building the model. For a field written in the common forms —
// conjunctions (&) of the basic types, string literals, strings.MinRunes,
// strings.MaxRunes, list.MinItems, list.MaxItems with integer literals,
// integer bounds, =~ patterns, named checks (#Def with @check), an enum of
// string literals, and a literal default beside the type it belongs to —
// fastConstraints applies the same constraints straight from the field's
// syntax. Anything else, and anything walk would report, takes walk, so
// that every finding is walk's. TestFastPathsAgree holds both to the same
// model over every corpus spec.

// fastConstraints applies v's constraints to t from v's syntax and reports
// whether it could; when it could not, t is unchanged. single says that v
// has one conjunct, its field's (see fieldExpr).
func (w *typeWalker) fastConstraints(v cue.Value, t *model.Type, single bool) bool {
	e, ok := w.fieldExpr(v, single)
	if !ok {
		return false
	}
	// A pattern that is the field's whole value is placed where walk
	// places it: at the field (an operand elsewhere, at its =~).
	w.root, w.rootPos = e, w.l.vpos(v)
	for p, ok := e.(*ast.ParenExpr); ok; p, ok = w.root.(*ast.ParenExpr) {
		w.root = p.X
	}
	dry := cloneType(t)
	w.named = false
	if !w.fast(e, dry, false, 0) {
		return false
	}
	w.settle(e, t, dry)
	return true
}

// fieldExpr returns the expression v is written as, when v is a field's
// value with that one conjunct: with one conjunct, Source is the field; with
// more, it is the value's own (an expression, never a field) unless it is
// an error. single says that v is not an error, or that the syntax shows its
// one declaration (syntaxIndex.single).
func (w *typeWalker) fieldExpr(v cue.Value, single bool) (ast.Expr, bool) {
	if w.l.syn == nil || !single {
		return nil, false
	}
	f, ok := v.Source().(*ast.Field)
	if !ok || f.Value == nil {
		return nil, false
	}
	return f.Value, true
}

// cloneType copies what constraints change in t.
func cloneType(t *model.Type) *model.Type {
	c := *t
	c.Patterns = slices.Clone(t.Patterns)
	c.Checks = slices.Clone(t.Checks)
	c.Enum = slices.Clone(t.Enum)
	return &c
}

// fast applies expression e to t as walk would, and reports whether every
// part of e is a form it knows that walk would accept without a finding.
// With apply false it only finds out (named checks are looked up, not
// recorded); with apply true it records them, and cannot fail where the
// dry run did not.
func (w *typeWalker) fast(e ast.Expr, t *model.Type, apply bool, depth int) bool {
	if depth > 64 {
		return false
	}
	switch x := e.(type) {
	case *ast.ParenExpr:
		return w.fast(x.X, t, apply, depth+1)
	case *ast.BinaryExpr:
		switch x.Op {
		case token.AND:
			return w.fast(x.X, t, apply, depth+1) && w.fast(x.Y, t, apply, depth+1)
		case token.OR:
			return w.fastOr(x, t, apply, depth)
		}
		return false
	case *ast.Ident:
		switch x.Name {
		case "string", "int", "number", "bool":
			// The base type, already in t.Kind, unless a field of the
			// spec's package takes its name.
			return x.Node == nil && w.l.syn.decls["\x00"+x.Name].count == 0
		}
		return w.fastCheck(x, t, apply)
	case *ast.BasicLit:
		s, ok := stringLit(x)
		if !ok || t.Kind != model.String {
			return false
		}
		t.Kind, t.Literal = model.Literal, s
		return true
	case *ast.ListLit:
		return t.Kind == model.Array // the list's shape; its elements are typed apart
	case *ast.CallExpr:
		return w.fastCall(x, t)
	case *ast.UnaryExpr:
		return w.fastUnary(x, t)
	}
	return false
}

// fastCheck handles a reference to a named check, a top-level definition
// of the spec carrying @check("message").
func (w *typeWalker) fastCheck(x *ast.Ident, t *model.Type, apply bool) bool {
	if len(x.Name) < 2 || x.Name[0] != '#' || t.Kind != model.String {
		return false
	}
	if x.Node != nil && !w.l.syn.topDefs[x.Node] {
		return false
	}
	d := w.l.topDef(x.Name)
	if !d.v.Exists() {
		return false
	}
	if d.attr.Err() != nil {
		return false // a plain definition: walk follows it
	}
	w.named = true
	if apply {
		w.check(d.v, d.path, d.attr, t)
	}
	return true
}

// settle applies e to t after a dry run filled dry, a copy of t that the
// walker may keep no longer: the dry run's result is the same unless e
// names a check, which only the second run records.
func (w *typeWalker) settle(e ast.Expr, t, dry *model.Type) {
	if w.named {
		w.fast(e, t, true, 0)
		return
	}
	if crossCheck != nil {
		applied := cloneType(t)
		w.fast(e, applied, true, 0)
		crossCheck(fmt.Sprintf("dry run of %v", w.l.pos(e.Pos())), *dry, *applied)
	}
	*t = *dry
}

// topDefinition is a top-level definition of the spec, with what the fast
// paths ask of it.
type topDefinition struct {
	path cue.Path
	v    cue.Value
	kind cue.Kind      // v's incomplete kind
	attr cue.Attribute // v's @check attribute
}

// topDef returns the top-level definition name (#Name), looked up once:
// each field that uses a named check refers to it.
func (l *loader) topDef(name string) *topDefinition {
	if d, ok := l.defs[name]; ok {
		return d
	}
	path := cue.MakePath(cue.Def(name))
	v := l.root.LookupPath(path)
	d := &topDefinition{path: path, v: v, kind: v.IncompleteKind(), attr: v.Attribute("check")}
	if l.defs == nil {
		l.defs = map[string]*topDefinition{}
	}
	l.defs[name] = d
	return d
}

// fastCall handles strings.MinRunes, strings.MaxRunes, list.MinItems and
// list.MaxItems with a literal argument walk accepts.
func (w *typeWalker) fastCall(x *ast.CallExpr, t *model.Type) bool {
	sel, ok := x.Fun.(*ast.SelectorExpr)
	if !ok || len(x.Args) != 1 {
		return false
	}
	pkg, ok1 := sel.X.(*ast.Ident)
	name, ok2 := sel.Sel.(*ast.Ident)
	if !ok1 || !ok2 {
		return false
	}
	imp, ok := pkg.Node.(*ast.ImportSpec)
	if !ok || imp.Name != nil || imp.Path == nil || imp.Path.Value != `"`+pkg.Name+`"` {
		return false
	}
	lit, ok := x.Args[0].(*ast.BasicLit)
	if !ok {
		return false
	}
	n, ok := smallInt(lit)
	if !ok || n < 0 || n > 1<<31 {
		return false
	}
	i := int(n)
	lim, ok := limits[pkg.Name+"."+name.Name]
	if !ok || t.Kind != lim.kind {
		return false
	}
	if f := lim.field(t); lim.min {
		*f = tighterMin(*f, &i)
	} else {
		*f = tighterMax(*f, &i)
	}
	return true
}

// limits are the builtins call accepts: the kind each applies to and the
// limit it sets.
var limits = map[string]struct {
	kind  model.Kind
	min   bool
	field func(*model.Type) **int
}{
	"strings.MinRunes": {model.String, true, func(t *model.Type) **int { return &t.MinLength }},
	"strings.MaxRunes": {model.String, false, func(t *model.Type) **int { return &t.MaxLength }},
	"list.MinItems":    {model.Array, true, func(t *model.Type) **int { return &t.MinItems }},
	"list.MaxItems":    {model.Array, false, func(t *model.Type) **int { return &t.MaxItems }},
}

// fastUnary handles integer bounds and =~ with a string literal.
func (w *typeWalker) fastUnary(x *ast.UnaryExpr, t *model.Type) bool {
	switch x.Op {
	case token.MAT:
		lit, ok := x.X.(*ast.BasicLit)
		if !ok || t.Kind != model.String {
			return false
		}
		re, ok := stringLit(lit)
		if !ok {
			return false
		}
		if _, err := regexp.Compile(re); err != nil {
			return false
		}
		pos := w.l.pos(x.Pos())
		if x == w.root {
			pos = w.rootPos
		}
		t.Patterns = append(t.Patterns, model.Pattern{Regexp: re, Pos: pos})
		return true
	case token.GEQ, token.GTR, token.LEQ, token.LSS:
		if t.Kind != model.Number && t.Kind != model.Integer {
			return false
		}
		n, ok := boundLit(x.X)
		if !ok {
			return false
		}
		bd := &model.Bound{Value: json.Number(strconv.FormatInt(n, 10)), Exclusive: x.Op == token.GTR || x.Op == token.LSS}
		if x.Op == token.GEQ || x.Op == token.GTR {
			if t.Minimum != nil {
				return false
			}
			t.Minimum = bd
		} else {
			if t.Maximum != nil {
				return false
			}
			t.Maximum = bd
		}
		return true
	}
	return false
}

// fastOr handles an enum of string literals (one of them perhaps the
// default) and a literal default beside the type it belongs to
// (*1 | int & >=1): Value.Expr drops a default that another disjunct
// subsumes, and walk goes on with what is left.
func (w *typeWalker) fastOr(x *ast.BinaryExpr, t *model.Type, apply bool, depth int) bool {
	disj := disjuncts(x, nil)
	type alt struct {
		e   ast.Expr
		def bool
	}
	alts := make([]alt, len(disj))
	strs := true
	for i, d := range disj {
		if u, ok := d.(*ast.UnaryExpr); ok && u.Op == token.MUL {
			alts[i] = alt{u.X, true}
		} else {
			alts[i] = alt{d, false}
		}
		if lit, ok := alts[i].e.(*ast.BasicLit); !ok {
			strs = false
		} else if _, ok := stringLit(lit); !ok {
			strs = false
		}
	}
	if strs {
		if t.Kind != model.String {
			return false
		}
		var plain, vals []string
		for _, a := range alts {
			if !a.def {
				s, _ := stringLit(a.e.(*ast.BasicLit))
				plain = append(plain, s)
			}
		}
		for _, a := range alts {
			s, _ := stringLit(a.e.(*ast.BasicLit))
			if a.def && slices.Contains(plain, s) {
				continue // subsumed by the same literal
			}
			if !slices.Contains(vals, s) {
				vals = append(vals, s)
			}
		}
		if len(vals) == 1 {
			t.Kind, t.Literal = model.Literal, vals[0]
		} else {
			t.Kind, t.Enum = model.Enum, vals
		}
		return true
	}
	if len(alts) != 2 || alts[0].def == alts[1].def {
		return false
	}
	d, e := alts[0].e, alts[1].e
	if alts[1].def {
		d, e = e, d
	}
	// The default must be an instance of the other disjunct, read alone.
	alone := &model.Type{Kind: t.Kind}
	if !w.fast(e, alone, false, depth+1) || !instanceOf(d, alone, e) {
		return false
	}
	return w.fast(e, t, apply, depth+1)
}

// instanceOf reports whether literal d is certainly an instance of e, the
// expression read into t alone: a string within t's lengths and patterns,
// an integer within its bounds, a bool of type bool.
func instanceOf(d ast.Expr, t *model.Type, e ast.Expr) bool {
	if len(t.Checks) > 0 || t.Enum != nil {
		return false
	}
	kinds := map[string]bool{} // the identifiers e names, but for functions
	ast.Walk(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			return false
		case *ast.Ident:
			kinds[n.Name] = true
		}
		return true
	}, nil)
	only := func(names ...string) bool {
		for k := range kinds {
			if !slices.Contains(names, k) {
				return false
			}
		}
		return true
	}
	switch d := d.(type) {
	case *ast.Ident:
		return (d.Name == "true" || d.Name == "false") && d.Node == nil && t.Kind == model.Boolean && only("bool")
	case *ast.BasicLit:
		if s, ok := stringLit(d); ok {
			if t.Kind != model.String || !only("string") || t.Minimum != nil || t.Maximum != nil {
				return false
			}
			n := utf8.RuneCountInString(s)
			if t.MinLength != nil && n < *t.MinLength || t.MaxLength != nil && n > *t.MaxLength {
				return false
			}
			for _, p := range t.Patterns {
				if !regexp.MustCompile(p.Regexp).MatchString(s) {
					return false
				}
			}
			return true
		}
		n, ok := smallInt(d)
		if !ok || t.Kind != model.Integer && t.Kind != model.Number || !only("int", "number") ||
			t.MinLength != nil || t.MaxLength != nil || len(t.Patterns) > 0 {
			return false
		}
		return within(n, t.Minimum, 1) && within(n, t.Maximum, -1)
	}
	return false
}

// within reports whether n satisfies bound b on the side sign says (1: a
// lower bound, -1: an upper one).
func within(n int64, b *model.Bound, sign int) bool {
	if b == nil {
		return true
	}
	m, err := strconv.ParseInt(string(b.Value), 10, 64)
	if err != nil {
		return false
	}
	c := cmp.Compare(n, m) * sign
	return c > 0 || c == 0 && !b.Exclusive
}

// stringLit returns the value of a one-line string literal.
func stringLit(lit *ast.BasicLit) (string, bool) {
	if lit.Kind != token.STRING || len(lit.Value) < 2 || lit.Value[0] != '"' || lit.Value[1] == '"' && len(lit.Value) > 2 {
		return "", false
	}
	s, err := literal.Unquote(lit.Value)
	return s, err == nil
}

// smallInt returns the value of a plain decimal integer literal (of at
// most 18 digits: an int64 holds it).
func smallInt(lit *ast.BasicLit) (int64, bool) {
	if lit.Kind != token.INT || lit.Value == "" || len(lit.Value) > 18 || lit.Value[0] == '0' && lit.Value != "0" {
		return 0, false
	}
	for _, c := range lit.Value {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(lit.Value, 10, 64)
	return n, err == nil
}

// boundLit returns the integer a bound is written with: N or -N.
func boundLit(e ast.Expr) (int64, bool) {
	neg := false
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.SUB {
		neg, e = true, u.X
	}
	lit, ok := e.(*ast.BasicLit)
	if !ok {
		return 0, false
	}
	n, ok := smallInt(lit)
	if !ok || neg && n == 0 {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// fastListLeaf returns the list operand of v when v is an open list with
// item limits, [...T] & list.MinItems(n) & list.MaxItems(m), written once:
// an error value as a whole (its default, [], may fail MinItems), whose
// kind and list typ would find among all the operands of its expression,
// each evaluated again (leaves). The list comes first, so it is reached by
// following the left operands alone; the others are item limits, which
// the syntax applies.
func (w *typeWalker) fastListLeaf(v cue.Value) (cue.Value, bool) {
	if w.l.syn == nil {
		return cue.Value{}, false
	}
	if _, ok := w.l.syn.single(v); !ok {
		return cue.Value{}, false
	}
	e, ok := w.fieldExpr(v, true)
	if !ok {
		return cue.Value{}, false
	}
	ops := conjuncts(e, nil)
	l, ok := ops[0].(*ast.ListLit)
	if !ok || len(l.Elts) != 1 {
		return cue.Value{}, false
	}
	if el, ok := l.Elts[0].(*ast.Ellipsis); !ok || el.Type == nil {
		return cue.Value{}, false
	}
	probe := &model.Type{Kind: model.Array}
	for _, op := range ops[1:] {
		if c, ok := op.(*ast.CallExpr); !ok || !w.fastCall(c, probe) {
			return cue.Value{}, false
		}
	}
	lv := v
	for x := unparen(e); ; {
		b, ok := x.(*ast.BinaryExpr)
		if !ok || b.Op != token.AND {
			break
		}
		op, args := w.l.expr(lv)
		if op != cue.AndOp || len(args) != 2 {
			return cue.Value{}, false
		}
		lv, x = args[0], unparen(b.X)
	}
	if lv.Err() != nil || lv.IncompleteKind() != cue.ListKind {
		return cue.Value{}, false
	}
	return lv, true
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}
