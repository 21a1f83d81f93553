package load

import (
	"encoding/json"
	"strconv"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/token"

	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/names"
)

// The element type of an open list of plain structs, read from its syntax.
//
// typ finds the element type of [...{…}] by evaluating the list's element
// schema (Value.LookupPath with AnyIndex), and for an item-limited list
// first reaches the list operand with Value.Expr: work cue vet never does,
// since it does not evaluate the element schema of an open list. When the
// list field is declared once and its element is a struct literal of
// scalar fields written in the forms fastConstraints knows, whose kinds
// and defaults the syntax settles and where nothing could be reported,
// fastItems builds the same element type from the syntax. Anything else
// takes the general way, so every finding is still CUE's or walk's.
// TestFastPathsAgree holds both to the same model over every corpus spec.

// fastItems returns the element type of v, a list field, read from its
// syntax; field names the element (the list field's name made singular).
func (w *typeWalker) fastItems(v cue.Value, base, tsBase, field string) (*model.Type, bool) {
	e, ok := w.fieldExpr(v, true)
	if !ok {
		return nil, false
	}
	ops := conjuncts(e, nil)
	l, ok := ops[0].(*ast.ListLit)
	if !ok || len(l.Elts) != 1 {
		return nil, false
	}
	if _, ok := w.l.syn.single(v); !ok {
		return nil, false
	}
	el, ok := l.Elts[0].(*ast.Ellipsis)
	if !ok || el.Type == nil {
		return nil, false
	}
	st, ok := el.Type.(*ast.StructLit)
	if !ok {
		return nil, false
	}
	probe := &model.Type{Kind: model.Array}
	for _, op := range ops[1:] {
		if c, ok := op.(*ast.CallExpr); !ok || !w.fastCall(c, probe) {
			return nil, false
		}
	}
	goName, tsName := base+names.GoExported(field), tsBase+names.TSPascal(field)
	t := &model.Type{Kind: model.Object, GoName: goName, TSName: tsName, Pos: w.l.pos(st.Pos()), Doc: w.l.syn.docs[st.Pos()]}
	goNames := map[string]bool{}
	for _, d := range st.Elts {
		f, ok := w.fastField(d)
		if !ok || f.GoName == "" || goNames[f.GoName] {
			return nil, false
		}
		goNames[f.GoName] = true
		t.Fields = append(t.Fields, f)
	}
	return t, true
}

// conjuncts appends the operands of e's conjunction (&) to ops.
func conjuncts(e ast.Expr, ops []ast.Expr) []ast.Expr {
	switch x := e.(type) {
	case *ast.ParenExpr:
		return conjuncts(x.X, ops)
	case *ast.BinaryExpr:
		if x.Op == token.AND {
			return conjuncts(x.Y, conjuncts(x.X, ops))
		}
	}
	return append(ops, e)
}

// disjuncts appends the operands of e's disjunction (|) to alts, as
// written: a parenthesized disjunction is one operand.
func disjuncts(e ast.Expr, alts []ast.Expr) []ast.Expr {
	if b, ok := e.(*ast.BinaryExpr); ok && b.Op == token.OR {
		return disjuncts(b.Y, disjuncts(b.X, alts))
	}
	return append(alts, e)
}

// fastField returns the field d declares in a list's element struct, when
// it is a plain, required or optional field of a scalar type the syntax
// settles.
func (w *typeWalker) fastField(d ast.Decl) (*model.Field, bool) {
	fd, ok := d.(*ast.Field)
	if !ok || fd.Value == nil || len(fd.Attrs) > 0 {
		return nil, false
	}
	id, ok := fd.Label.(*ast.Ident)
	if !ok || id.Name == "" || id.Name[0] == '#' || id.Name[0] == '_' {
		return nil, false
	}
	f := &model.Field{Name: id.Name, Pos: w.l.pos(fd.Pos()), Presence: model.Required}
	switch fd.Constraint {
	case token.ILLEGAL:
	case token.OPTION:
		f.Presence = model.Optional
	default:
		return nil, false
	}
	f.GoName = names.GoExported(f.Name)
	f.TSName = names.TSProperty(f.Name)
	val := unparen(fd.Value)
	kind, def, ok := w.fastKind(val)
	if !ok {
		return nil, false
	}
	if def != nil {
		if f.Presence == model.Optional {
			return nil, false // a finding
		}
		f.Presence, f.Default = model.Defaulted, def
	}
	t := &model.Type{Kind: kind, Pos: f.Pos, Doc: w.l.syn.docs[fd.Pos()]}
	w.root, w.rootPos = val, f.Pos
	// t is new, without slices the dry run could share: a copy in the
	// walker saves allocating one for each field.
	w.dry = *t
	w.named = false
	if !w.fast(val, &w.dry, false, 0) || !saneLimits(&w.dry) {
		return nil, false
	}
	w.settle(val, t, &w.dry)
	f.Type = t
	return f, true
}

// saneLimits reports whether t's limits are ones constraints accepts and
// CUE keeps as bounds: lengths in order, and numeric bounds far enough
// apart that CUE neither finds them contradictory nor narrows them to one
// value.
func saneLimits(t *model.Type) bool {
	if t.MinLength != nil && t.MaxLength != nil && *t.MinLength > *t.MaxLength {
		return false
	}
	if t.Minimum == nil || t.Maximum == nil {
		return true
	}
	// Both are smallInt's, so their difference fits an int64.
	lo, err1 := strconv.ParseInt(string(t.Minimum.Value), 10, 64)
	hi, err2 := strconv.ParseInt(string(t.Maximum.Value), 10, 64)
	return err1 == nil && err2 == nil && hi-lo >= 3
}

// fastKind returns the model kind of a field's value e and its default
// (JSON), as typ and object would find them, for the forms fast knows: a
// conjunction of operands of one kind, an enum of string literals with at
// most one default, or a string or integer default beside the type it
// belongs to.
func (w *typeWalker) fastKind(e ast.Expr) (model.Kind, json.RawMessage, bool) {
	b, ok := e.(*ast.BinaryExpr)
	if !ok || b.Op != token.OR {
		k, ok := w.conjKind(e)
		return k, nil, ok
	}
	var def ast.Expr
	var rest []ast.Expr
	for _, a := range disjuncts(b, nil) {
		if u, ok := a.(*ast.UnaryExpr); ok && u.Op == token.MUL {
			if def != nil {
				return "", nil, false // two defaults: not a concrete one
			}
			def = u.X
			continue
		}
		rest = append(rest, a)
	}
	if len(rest) == 0 {
		return "", nil, false
	}
	lit, ok := def.(*ast.BasicLit)
	if def != nil && !ok {
		return "", nil, false
	}
	allStrings := true
	for _, a := range rest {
		if l, ok := a.(*ast.BasicLit); !ok {
			allStrings = false
		} else if _, ok := stringLit(l); !ok {
			allStrings = false
		}
	}
	if allStrings && def == nil {
		return model.String, nil, len(rest) > 1
	}
	if allStrings {
		// An enum with its default; *"a" | "a" is left to CUE.
		s, ok := stringLit(lit)
		if r, _ := stringLit(rest[0].(*ast.BasicLit)); !ok || len(rest) == 1 && r == s {
			return "", nil, false
		}
		j, ok := plainJSON(s)
		return model.String, j, ok
	}
	if def == nil || len(rest) != 1 {
		return "", nil, false
	}
	k, ok := w.conjKind(rest[0])
	if !ok {
		return "", nil, false
	}
	if s, ok := stringLit(lit); ok {
		j, ok := plainJSON(s)
		return k, j, ok && k == model.String
	}
	n, ok := smallInt(lit)
	if !ok || k != model.Integer && k != model.Number {
		return "", nil, false
	}
	return k, json.RawMessage(strconv.FormatInt(n, 10)), true
}

// plainJSON encodes s as JSON when it holds only characters every JSON
// encoder writes as themselves.
func plainJSON(s string) (json.RawMessage, bool) {
	for _, c := range s {
		if c < ' ' || c > '~' || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return nil, false
		}
	}
	return json.RawMessage(`"` + s + `"`), true
}

// conjKind returns the one kind all operands of conjunction e have.
func (w *typeWalker) conjKind(e ast.Expr) (model.Kind, bool) {
	var kinds []model.Kind
	for _, op := range conjuncts(e, nil) {
		k, ok := w.operandKind(op)
		if !ok {
			return "", false
		}
		kinds = append(kinds, k)
	}
	// int and number meet in int; any other pair must be equal.
	k := kinds[0]
	for _, o := range kinds[1:] {
		switch {
		case o == k:
		case k == model.Number && o == model.Integer:
			k = model.Integer
		case k == model.Integer && o == model.Number:
		default:
			return "", false
		}
	}
	return k, true
}

// operandKind returns the kind of one operand of a conjunction.
func (w *typeWalker) operandKind(e ast.Expr) (model.Kind, bool) {
	switch x := e.(type) {
	case *ast.Ident:
		if x.Node == nil && w.l.syn.decls["\x00"+x.Name].count == 0 {
			switch x.Name {
			case "string":
				return model.String, true
			case "int":
				return model.Integer, true
			case "number":
				return model.Number, true
			case "bool":
				return model.Boolean, true
			}
		}
		if len(x.Name) < 2 || x.Name[0] != '#' || x.Node == nil || !w.l.syn.topDefs[x.Node] {
			return "", false
		}
		if w.l.topDef(x.Name).kind == cue.StringKind {
			return model.String, true
		}
	case *ast.BasicLit:
		if _, ok := stringLit(x); ok {
			return model.String, true
		}
	case *ast.CallExpr:
		if sel, ok := x.Fun.(*ast.SelectorExpr); ok {
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "strings" {
				return model.String, true // fast accepts strings.MinRunes and MaxRunes only
			}
		}
	case *ast.UnaryExpr:
		switch x.Op {
		case token.MAT:
			return model.String, true
		case token.GEQ, token.GTR, token.LEQ, token.LSS:
			return model.Number, true
		}
	}
	return "", false
}

// crossCheckItems finds v's element type the general way, as typ does
// without fastItems, and reports it beside items, the one fastItems found.
func (w *typeWalker) crossCheckItems(v cue.Value, items *model.Type, base, tsBase, field string) {
	n := len(w.l.errs)
	lv := v
	if v.Err() != nil {
		var ok bool
		if lv, ok = w.fastListLeaf(v); !ok {
			var leaves []cue.Value
			w.leaves(v, &leaves, 0)
			for _, lf := range leaves {
				if lf.IncompleteKind() == cue.ListKind {
					lv = lf
					break
				}
			}
		}
	}
	type result struct {
		Items    model.Type
		Prefix   int
		Findings int
	}
	slow := result{Prefix: prefixLen(lv)}
	elem := lv.LookupPath(cue.MakePath(cue.AnyIndex))
	if elem.Exists() {
		st := w.typ(elem, base, tsBase, names.Singular(field))
		st.Doc = w.l.docOf(elem)
		slow.Items = *st
	}
	slow.Findings = len(w.l.errs) - n
	w.l.errs = w.l.errs[:n]
	crossCheck("items of "+v.Path().String(), result{Items: *items}, slow)
}
