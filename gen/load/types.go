package load

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"

	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/names"
)

// supported is appended to "unsupported" findings so authors know the subset.
const supported = "supported: string, number, int, bool, string enums (\"a\" | \"b\"), defaults (*v | T), " +
	"optional (?) and required fields, nested structs, lists [...T], strings.MinRunes/MaxRunes, " +
	"list.MinItems/MaxItems, =~ patterns, numeric bounds, named checks (#Def @check(\"message\"))"

// typeWalker converts CUE argument schemas into model types.
type typeWalker struct {
	l *loader
	// checks collects named checks by definition: its path and where it
	// is declared (a package the spec imports may have a #Rel of its
	// own).
	checks map[string]*model.Check
	// funcNames holds the printed names of package functions (see
	// funcName).
	funcNames map[string]string
	// shadows holds the fields named like a predeclared type that were
	// reported, by path (see shadowed).
	shadows map[string]bool
	// at is where the value of the field being converted is written: the
	// place of a finding about a part of it that CUE places nowhere in
	// the spec (the element of [...], a builtin package's own value).
	at model.Pos
}

// object converts a struct-valued schema. goName names its type; object
// types below it are named childGo + the field's name.
func (w *typeWalker) object(v cue.Value, goName, childGo string) *model.Type {
	t := &model.Type{Kind: model.Object, GoName: goName, Pos: w.l.vpos(v)}
	// A validator among v's operands (struct.MaxFields(3) & {…}, or in a
	// definition v refers to) would be dropped: generated validators check
	// an object's fields. When it fails the object while incomplete ({…} &
	// struct.MinFields(1)), the fields are those of the struct among them.
	// close({…}) is no validator: it closes the struct, as a definition
	// does, and unknown keys are stripped from either.
	incomplete := v.IncompleteKind() == cue.BottomKind
	var leaves []cue.Value
	w.leaves(v, &leaves, 0)
	refused := false
	var st cue.Value // the first operand that is no validator
	for _, lf := range leaves {
		if op, args := w.l.expr(lf); op == cue.CallOp && w.funcName(args[0]) != "close" {
			w.errorv(lf, "unsupported", "%s on an object is not supported: the generated validators check each of an object's fields, not a rule over the object as a whole; %s", w.funcName(args[0]), supported)
			refused = true
		} else if !st.Exists() {
			st = lf
		}
	}
	if incomplete && !refused {
		// No validator fails it: CUE cannot say which fields it has (a
		// field under `if kind == "file"`, kind an argument), and no
		// one of its structs holds them all (the metaschema's {...}).
		for _, e := range w.l.convertList(v.Err(), w.l.vpos(v)) {
			w.l.errs.Add(e.Pos, "unsupported", "%s: CUE cannot list the fields of this object, so no schema can be made of it; a field may not depend on an argument's value (if kind == …): declare it optional instead (size?: int)", e.Msg)
		}
		return t
	}
	if incomplete && st.Exists() {
		v = st // the struct a validator fails while incomplete
	}
	switch {
	case refused && v.Kind() != cue.StructKind:
		// A validator with no struct beside it (opts:
		// struct.MinFields(1)), reported: there are no fields to read.
		return t
	case v.Kind() != cue.StructKind:
		// Not one struct: a disjunction of them, whose fields CUE does
		// not list.
		w.errorv(v, "unsupported", "a disjunction of structs is not supported: an object has one set of fields; %s", supported)
		return t
	}
	// With hidden fields asked for, Fields lists what it finds and reports
	// no error.
	it, _ := v.Fields(cue.Optional(true), cue.Patterns(true), cue.Hidden(true))
	goNames := map[string]*model.Field{}
	for it.Next() {
		if f := w.field(it.Selector(), it.Value(), goNames, childGo); f != nil {
			t.Fields = append(t.Fields, f)
		}
	}
	return t
}

// field converts the field sel of an object schema, its value fv, or
// returns nil for one that is no argument. goNames holds the object's
// fields by Go name so far.
func (w *typeWalker) field(sel cue.Selector, fv cue.Value, goNames map[string]*model.Field, childGo string) *model.Field {
	if sel.ConstraintType() == cue.PatternConstraint {
		w.l.errorf(fv, "unsupported", "pattern constraints ([string]: T) are not supported in argument schemas: an object has fixed fields; for a map, use a list of objects ([...{key: string, value: T}]); %s", supported)
		return nil
	}
	if w.l.skipLabel(sel, fv, false) {
		return nil
	}
	name := sel.Unquoted()
	f := &model.Field{Name: name, Pos: w.l.vpos(fv), Presence: model.Required}
	if sel.ConstraintType() == cue.OptionalConstraint {
		f.Presence = model.Optional
	}
	f.GoName = names.GoExported(name)
	f.TSName = names.TSProperty(name)
	w.l.nameText(f.Pos, name, "field name")
	if f.GoName == "" {
		w.l.errorf(fv, "name-clash", "field %q has no letters or digits to make a Go name from", name)
	} else if prev, ok := goNames[f.GoName]; ok {
		w.l.errorf(fv, "name-clash", "fields %q and %q both become Go field %s (%q is at %s)", prev.Name, name, f.GoName, prev.Name, prev.Pos)
	} else {
		goNames[f.GoName] = f
	}
	decl := fv // the field's value; its doc comment is the field's
	// A plain open list [...T] is, to CUE, a concrete list (the empty one,
	// open to more) that is its own default: no default was written.
	if d, ok := fv.Default(); ok && fv.Kind() != cue.ListKind && !openListDefault(fv, d) {
		var invalid error // why the default is no value of its type
		if k := d.Kind(); k == cue.StructKind || k == cue.ListKind {
			// The field's type is the disjunct that every other one,
			// the default among them, is an instance of (CUE's
			// Subsume says so): *{a: "x"} | {a: string} is an object
			// {a: string} whose default is {"a": "x"}, *[] | [...string]
			// a list of strings whose default is [].
			schema, ok := w.generalDisjunct(fv, d)
			if !ok {
				form, kind := "*{…} | {…}, the second the object's schema", model.Object
				if k == cue.ListKind {
					form, kind = "*[…] | [...T]", model.Array
				}
				w.l.errorf(fv, "unsupported", "the default of %q is a %v, and no alternative of the field holds every other (write it as %s)", name, k, form)
				f.Type = &model.Type{Kind: kind, Pos: f.Pos}
				return f
			}
			fv = schema
			// *{} | {level!: int}: CUE takes the default as written,
			// and it may leave out a field its type requires.
			invalid = fv.Unify(d).Validate(cue.Concrete(true))
		}
		if f.Presence == model.Optional {
			w.l.errorf(fv, "unsupported", "optional field %q has a default; drop the '?' (a field with a default may be omitted)", name)
		}
		if sel.ConstraintType() == cue.RequiredConstraint {
			w.l.errorf(fv, "unsupported", "required field %q has a default, which CUE never uses: a field marked ! must be given; drop the default, or the '!' (a field with a default may be omitted)", name)
		}
		if !d.IsConcrete() {
			w.l.errorf(fv, "unsupported", "default of %q is not a concrete value", name)
		} else if b, err := d.MarshalJSON(); err != nil {
			w.l.errorf(fv, "unsupported", "default of %q: %v", name, err)
		} else if invalid != nil {
			w.l.errorf(fv, "unsupported", "the default of %q is not a value of its type: %v", name, invalid)
		} else {
			f.Presence = model.Defaulted
			f.Default = json.RawMessage(b)
			if strings.ContainsRune(string(b), '\uFEFF') { // JSON leaves it unescaped
				w.l.errorf(fv, "text", "the default of %q holds U+FEFF (a byte order mark), which no value may hold: generated Go shows values in comments, where Go refuses it", name)
			}
		}
	}
	defer func(at model.Pos) { w.at = at }(w.at)
	if p := w.l.valPos(fv); p.IsValid() {
		w.at = p
	}
	f.Type = w.typ(fv, childGo, name)
	f.Type.Doc = w.l.docOf(decl)
	return f
}

// generalDisjunct returns the alternative of v, a field with the struct
// or list default d, that every alternative is an instance of — the
// default's own alternative only when no other is. CUE's Expr has dropped
// a default that another alternative subsumes already (*{a: "x"} | {a:
// string} is {a: string} with its default).
func (w *typeWalker) generalDisjunct(v, d cue.Value) (cue.Value, bool) {
	op, args := w.l.expr(v)
	if op != cue.OrOp {
		return args[0], len(args) == 1 && args[0].IncompleteKind() == d.Kind()
	}
	var found cue.Value
	ok := false
	for _, a := range args {
		// The default's own alternative is told from an equal one by
		// where it is written: Equals and a final Subsume overlook optional
		// fields (*{} | {verbose?: bool}).
		if subsumesAll(a, args) && (!ok || !a.Equals(d) || a.Pos() != d.Pos()) {
			found, ok = a, true
		}
	}
	return found, ok
}

// subsumesAll reports whether every one of args is an instance of a, as
// CUE's Subsume says.
func subsumesAll(a cue.Value, args []cue.Value) bool {
	return !slices.ContainsFunc(args, func(b cue.Value) bool { return a.Subsume(b, cue.Final()) != nil })
}

// typ converts any schema value of the field named field; an object type
// there is named base + the field's name.
//
// The kind is v's, unless v is an error as a whole: then it comes from the
// leaves of its expression tree. `[...T] & list.MinItems(1)` is an error
// value as a whole (its empty default fails MinItems) but a fine schema.
func (w *typeWalker) typ(v cue.Value, base, field string) *model.Type {
	pos := w.l.vpos(v)
	if w.shadowed(v, 0) {
		return &model.Type{Kind: model.String, Pos: pos}
	}
	if id, imp, ok := importOf(v.Source()); ok {
		// A package's name alone (tags: list), which CUE reads as the
		// package's struct of functions.
		w.errorv(v, "unsupported", "%s is the package %s, not a type: a list is [...T], an object {…}; %s", id.Name, imp, supported)
		return &model.Type{Kind: model.String, Pos: pos}
	}
	var leaves []cue.Value
	var verr error
	kind := v.IncompleteKind()
	if kind == cue.BottomKind {
		verr = v.Err() // computed anew on each call
		kind = cue.TopKind
		w.leaves(v, &leaves, 0)
		for _, lf := range leaves {
			kind &= lf.IncompleteKind()
		}
	}
	switch kind {
	case cue.StructKind:
		goName := base + names.GoExported(field)
		return w.object(v, goName, goName)
	case cue.ListKind:
		t := &model.Type{Kind: model.Array, Pos: pos}
		lv := v
		if verr != nil {
			// The list among the leaves, not a validator written before
			// it (list.MinItems(1) & [...string]).
			for _, lf := range leaves {
				if op, _ := w.l.expr(lf); lf.IncompleteKind() == cue.ListKind && op != cue.CallOp {
					lv = lf
					break
				}
			}
		}
		elem := lv.LookupPath(cue.MakePath(cue.AnyIndex))
		if !elem.Exists() {
			if v.IsConcrete() && w.callsMinItems(v, 0) {
				// *["x"] | [...string] & list.MinItems(1): as a schema
				// the open alternative fails (its empty default has too
				// few items), and CUE keeps the default alone.
				w.errorv(v, "unsupported", "as a schema CUE evaluates this field to the fixed list %v: the open list beside the default fails on its own (its empty default has fewer items than list.MinItems asks), "+
					"so no list type is left to generate; drop the default or the minimum item count", v)
				return t
			}
			w.errorv(w.writtenAt(v, kind), "unsupported", "only open lists [...T] are supported, not fixed-length lists")
			return t
		}
		// Elements before the "..." ([a, ...T]): Len is not concrete for
		// an open list, so they are listed, at the operand that writes
		// them ([...string] & [_, ...], CUE's non-empty list).
		if it, err := lv.List(); err == nil && it.Next() {
			n, at := 1, v
			for it.Next() {
				n++
			}
			var ops []cue.Value
			w.leaves(v, &ops, 0)
			for _, lf := range ops {
				if it, err := lf.List(); err == nil && it.Next() {
					at = lf
					break
				}
			}
			w.errorv(at, "unsupported", "list prefixes ([a, ...T]) are not supported; use [...T], and list.MinItems(%d) to require the items the prefix does ([_, ...T] is [...T] & list.MinItems(1))", n)
		}
		t.Items = w.typ(elem, base, names.Singular(field))
		t.Items.Doc = w.l.docOf(elem)
		w.constraints(v, t)
		return t
	case cue.StringKind, cue.IntKind, cue.NumberKind, cue.BoolKind:
		t := &model.Type{Kind: scalarKinds[kind], Pos: pos}
		w.constraints(v, t)
		return t
	case cue.FloatKind:
		w.errorv(w.writtenAt(v, kind), "unsupported", "float is not supported: JSON has one number type; use number (or int)")
		return &model.Type{Kind: model.Number, Pos: pos}
	case cue.BytesKind:
		w.errorv(w.writtenAt(v, kind), "unsupported", "bytes is not supported: JSON has no bytes; use string")
	case cue.TopKind, cue.BottomKind:
		if verr != nil {
			// No operand says what v is (an error such as a field a
			// closed definition does not allow, #Args & {y?: int}), or
			// its operands' kinds exclude each other.
			w.l.errs = append(w.l.errs, w.l.convertList(verr, w.l.vpos(v))...)
			break
		}
		if op, args := w.l.expr(v); op == cue.CallOp {
			w.errorv(v, "unsupported", "unsupported builtin %s; %s", w.funcName(args[0]), supported)
			break
		}
		w.errorv(w.writtenAt(v, kind), "unsupported", "a field needs a type (found _); %s", supported)
	case cue.NullKind:
		w.errorv(w.writtenAt(v, kind), "unsupported", "null is not supported in argument schemas")
	case kind | cue.NullKind:
		// *null | string: a value that may be absent is an optional
		// field; null is not absence (see "One meaning everywhere").
		w.errorv(w.writtenAt(v, kind), "unsupported", "a field that may be null is not supported: null is a value, not absence; for a value that may be left out, make the field optional (name?: T) and drop null")
	default:
		w.errorv(w.writtenAt(v, kind), "unsupported", "unsupported type %v (a union of kinds); %s", kind, supported)
	}
	return &model.Type{Kind: model.String, Pos: pos}
}

// writtenAt returns the operand of v, a field's schema, that makes it of
// kind, where the spec writes it: a definition's float (#Num: float & >=0),
// null or union of kinds rather than each field that refers to it. v when
// no operand does.
func (w *typeWalker) writtenAt(v cue.Value, kind cue.Kind) cue.Value {
	var leaves []cue.Value
	w.leaves(v, &leaves, 0)
	for _, lf := range leaves {
		if lf.IncompleteKind() == kind && inSpec(w.l.valPos(lf)) {
			return lf
		}
	}
	return v
}

// importOf returns the name and quoted import path of the package n
// names, when n (or the value of the field n) is a package's name.
func importOf(n ast.Node) (*ast.Ident, string, bool) {
	if f, ok := n.(*ast.Field); ok {
		n = f.Value
	}
	id, ok := n.(*ast.Ident)
	if !ok {
		return nil, "", false
	}
	imp, ok := id.Node.(*ast.ImportSpec)
	if !ok || imp.Path == nil {
		return nil, "", false
	}
	return id, imp.Path.Value, true
}

// callsMinItems reports whether v's expression calls list.MinItems among
// its conjunctions and disjunctions.
func (w *typeWalker) callsMinItems(v cue.Value, depth int) bool {
	op, args := w.l.expr(v)
	switch {
	case depth > 16:
		return false
	case op == cue.CallOp:
		return w.funcName(args[0]) == "list.MinItems"
	case op == cue.AndOp || op == cue.OrOp:
		return slices.ContainsFunc(args, func(a cue.Value) bool { return w.callsMinItems(a, depth+1) })
	}
	return false
}

// scalarKinds are the model's kinds of CUE's scalar kinds.
var scalarKinds = map[cue.Kind]model.Kind{cue.StringKind: model.String, cue.IntKind: model.Integer, cue.NumberKind: model.Number, cue.BoolKind: model.Boolean}

// predeclared are the names of CUE's predeclared types that a field can
// hide: a field named int makes every int of its struct, and of the structs
// within it, mean the field instead of the type.
var predeclared = map[string]bool{"bool": true, "bytes": true, "float": true, "int": true, "null": true, "number": true, "string": true}

// shadowed reports whether v, or an operand of its conjunctions and
// disjunctions, refers to a field named like a predeclared type — CUE
// resolved the name to the field (a silently different type, or an error
// such as "cannot reference optional field: int") — and reports the field,
// once, at the field.
func (w *typeWalker) shadowed(v cue.Value, depth int) bool {
	if !w.l.syn.bindsPredeclared {
		return false
	}
	op, args := w.l.expr(v)
	switch {
	case depth > 16:
		return false
	case op == cue.AndOp || op == cue.OrOp:
		found := false
		for _, a := range args {
			found = w.shadowed(a, depth+1) || found
		}
		return found
	case op != cue.SelectorOp:
		return false
	}
	root, path := v.ReferencePath()
	sels := path.Selectors()
	if !root.Exists() || len(sels) == 0 || sels[len(sels)-1].LabelType() != cue.StringLabel || !predeclared[sels[len(sels)-1].Unquoted()] {
		return false
	}
	name := sels[len(sels)-1].Unquoted()
	key := path.String()
	if !w.shadows[key] {
		w.shadows[key] = true
		at := w.l.valPos(v)
		var labels []string
		for _, s := range sels {
			if s.LabelType() != cue.StringLabel {
				// A definition's field (#Paging.number), which the
				// syntax index leaves out: where CUE says it is.
				labels = nil
				at = w.l.vpos(root.LookupPath(path))
				break
			}
			labels = append(labels, s.Unquoted())
		}
		if p, ok := w.l.syn.declared(labels); ok {
			at = w.l.pos(p)
		}
		w.l.errs.Add(at, "shadowed", "field %q hides CUE's type %s from its struct: %s there means this field, not the type (as at %s); "+
			"rename the field, quote its label (\"%s\": …, which binds no name), or write the type as __%s",
			name, name, name, w.l.valPos(v), name, name)
	}
	return true
}

// leaves collects the operands of v's top-level conjunction that are not
// themselves conjunctions, mapping builtin calls to the kind they accept.
func (w *typeWalker) leaves(v cue.Value, out *[]cue.Value, depth int) {
	if depth > 64 {
		return
	}
	op, args := w.l.expr(v)
	switch op {
	case cue.AndOp:
		for _, a := range args {
			w.leaves(a, out, depth+1)
		}
	case cue.CallOp:
		// Validators such as list.MinItems(1) report the kind they accept.
		if k := args[0].IncompleteKind(); k != cue.BottomKind {
			*out = append(*out, v)
		}
	case cue.SelectorOp:
		// A reference (#Slug): the leaves of what it refers to, which an
		// error in one of its operands leaves without a kind.
		if pkg, path := v.ReferencePath(); pkg.Exists() {
			w.leaves(pkg.LookupPath(path), out, depth+1)
			return
		}
		fallthrough
	default:
		if v.Err() == nil {
			*out = append(*out, v)
		}
	}
}

// constraints walks v's expression tree and applies each constraint to t.
func (w *typeWalker) constraints(v cue.Value, t *model.Type) {
	w.walk(v, t, v, 0)
	if (t.Kind == model.Enum || t.Kind == model.Literal) && (t.MinLength != nil || t.MaxLength != nil || len(t.Patterns) > 0 || len(t.Checks) > 0) {
		// String constraints on an enum, written before it or after: CUE
		// applied them to its values, so the field allows the values that
		// meet them (strings.MinRunes(4) & ("calm" | "hi") is "calm").
		vals := t.Enum
		if t.Kind == model.Literal {
			vals = []string{t.Literal}
		}
		if !w.unified(v, t) {
			w.errorv(v, "unsupported", "no value of %s meets the field's other constraints, so CUE leaves the field none", model.Disjunction(vals))
		}
		t.MinLength, t.MaxLength, t.Patterns, t.Checks = nil, nil, nil, nil
	}
	if t.MinLength != nil && t.MaxLength != nil && *t.MinLength > *t.MaxLength {
		w.errorv(v, "unsupported", "minimum length %d exceeds maximum length %d", *t.MinLength, *t.MaxLength)
	}
	if t.MinItems != nil && t.MaxItems != nil && *t.MinItems > *t.MaxItems {
		w.errorv(v, "unsupported", "minimum item count %d exceeds maximum item count %d", *t.MinItems, *t.MaxItems)
	}
	for _, s := range append([]string{t.Literal}, t.Enum...) {
		if strings.ContainsRune(s, '\uFEFF') {
			w.errorv(v, "text", "the value %q holds U+FEFF (a byte order mark), which no value may hold: generated Go shows values in comments, where Go refuses it", s)
		}
	}
}

// walk applies v, a part of field's schema, to t. A constraint for
// another kind of value than the field's (int & =~"^1", [...string] &
// strings.MinRunes(1), a named check on an int) never reaches it: CUE
// refuses the field as a conflict of types when it evaluates the spec.
func (w *typeWalker) walk(v cue.Value, t *model.Type, field cue.Value, depth int) {
	if depth > 64 {
		w.errorv(v, "unsupported", "constraint nested too deeply")
		return
	}
	op, args := w.l.expr(v)
	switch op {
	case cue.AndOp:
		for _, a := range args {
			w.walk(a, t, field, depth+1)
		}
		return
	case cue.OrOp:
		w.disjunction(v, args, t, field, depth)
		return
	case cue.NoOp, cue.SelectorOp, cue.IndexOp:
		if pkg, path := v.ReferencePath(); pkg.Exists() && path.Err() == nil && len(path.Selectors()) > 0 {
			target := pkg.LookupPath(path)
			if attr := target.Attribute("check"); attr.Err() == nil {
				w.check(target, path, attr, t)
				return
			}
			if op != cue.NoOp || target.Pos() != v.Pos() {
				w.walk(target, t, field, depth+1)
				return
			}
		}
		if op == cue.NoOp && len(args) == 1 {
			if sub, _ := w.l.expr(args[0]); sub != cue.NoOp || args[0].Pos() != v.Pos() {
				// A value with a default: Expr drops the default disjunct.
				w.droppedDefault(v, field)
				w.walk(args[0], t, field, depth+1)
				return
			}
		}
		// A reference CUE gives no path for — a let (let R = …; f: R),
		// a comprehension's value (for k, v in _f {(k): v}), an index
		// into an expression ((_f & _g)[k]) — is what it evaluates to,
		// which no longer names a named check.
		e := v.Eval()
		if eop, _ := w.l.expr(e); op != cue.NoOp || eop != cue.NoOp {
			if attr := e.Attribute("check"); attr.Err() == nil {
				w.errorv(v, "unsupported", "a named check reached through a let, a comprehension's value or an index is not supported: its name is lost on the way; refer to its definition (#Name) in the field")
				return
			}
			w.walk(e, t, field, depth+1)
			return
		}
		w.leaf(v, t, field)
	case cue.RegexMatchOp:
		re, err := args[0].String()
		if err != nil {
			w.errorv(v, "unsupported", "=~ needs a literal pattern")
			return
		}
		if _, err := regexp.Compile(re); err != nil {
			w.errorv(v, "unsupported", "invalid pattern %q: %v", re, err)
			return
		}
		w.l.patternText(w.l.valPos(v), re)
		t.Patterns = append(t.Patterns, model.Pattern{Regexp: re, Pos: w.l.vpos(v)})
	case cue.NotRegexMatchOp:
		if attr := field.Attribute("check"); attr.Err() == nil {
			// @check on the field itself, which names no check.
			w.errorv(v, "unsupported", "!~ needs a named check: @check is read on a definition, not on a field; write #Name: string & !~\"…\" @check(\"message\") and give the field #Name")
			return
		}
		w.errorv(v, "unsupported", "!~ needs a message: put it in a named check, a definition with @check(\"message\")")
	case cue.GreaterThanEqualOp, cue.GreaterThanOp, cue.LessThanEqualOp, cue.LessThanOp:
		w.bound(v, op, args, t)
	case cue.NotEqualOp:
		if s, err := args[0].String(); err == nil && s == "" && (t.Kind == model.String || t.Kind == model.Enum || t.Kind == model.Literal) {
			// string & !="", CUE's idiom for a string that is not
			// empty: strings.MinRunes(1).
			tightenCount(&t.MinLength, 1, true)
			return
		}
		w.errorv(v, "unsupported", "unsupported constraint %v (operator %v); %s", v, op, supported)
	case cue.CallOp:
		if !v.IsConcrete() {
			w.call(v, args, t)
			return
		}
		fallthrough // a function's result (strings.ToUpper("ab")), no validator
	default:
		if v.IsConcrete() {
			// A value an operator or a function computes ("a" + "b"):
			// what it is.
			w.leaf(v, t, field)
			return
		}
		w.errorv(v, "unsupported", "unsupported constraint %v (operator %v); %s", v, op, supported)
	}
}

// leaf handles a basic type or a literal.
func (w *typeWalker) leaf(v cue.Value, t *model.Type, field cue.Value) {
	if v.IsConcrete() && v.Kind() != cue.StructKind && v.Kind() != cue.ListKind {
		s, err := v.String()
		switch {
		case err == nil && t.Kind == model.String:
			t.Kind, t.Literal = model.Literal, s
			return
		case err == nil && (t.Kind == model.Enum || t.Kind == model.Literal) && w.unified(field, t):
			return
		}
		w.errorv(v, "unsupported", "only string literals may stand as a constraint, found %v", v)
		return
	}
	switch v.IncompleteKind() {
	case cue.StringKind, cue.IntKind, cue.NumberKind, cue.BoolKind, cue.ListKind, cue.StructKind:
		// The base type, already in t.Kind.
	case cue.TopKind:
		// _ beside the field's type (query: _ in another file, to give
		// the field its doc comment): string & _ is string. A field that
		// is _ alone has no type, which typ reports.
	default:
		w.errorv(v, "unsupported", "unsupported constraint %v; %s", v, supported)
	}
}

// disjunction handles "a" | "b" (an enum) after defaults were split off.
// A disjunction whose alternatives are all instances of one of them is
// that one: *"a" | #Slug, "a" being a slug as CUE says, is a #Slug (the
// field's default is "a").
func (w *typeWalker) disjunction(v cue.Value, args []cue.Value, t *model.Type, field cue.Value, depth int) {
	w.droppedDefault(v, field)
	if t.Kind == model.Boolean {
		// *true | false is a bool (with a default): it allows every bool.
		seen := map[bool]bool{}
		for _, a := range args {
			if b, err := a.Bool(); err == nil {
				seen[b] = true
			}
		}
		if len(seen) == 2 {
			return
		}
	}
	var vals []string
	for _, a := range args {
		s, err := a.String()
		if err != nil || !a.IsConcrete() {
			if subsumesAll(a, args) {
				w.walk(a, t, field, depth+1)
				return
			}
			if t.Kind == model.String && w.unified(field, t) {
				// An enum written in parts (N | "c", N a let or a
				// definition of "a" | "b"): the strings CUE makes of it.
				return
			}
			if !slices.ContainsFunc(args, func(b cue.Value) bool { return !b.IsConcrete() || b.Kind()&cue.NumberKind == 0 }) {
				w.errorv(a, "unsupported", "an enum of numbers is not supported, only of strings: write bounds (int & >=1 & <=3) or string values (\"1\" | \"2\")")
				return
			}
			if d, ok := field.Default(); ok && len(args) == 2 {
				if a.Subsume(d, cue.Final()) == nil {
					continue // the default's own alternative (*1e3 | int): judge the other
				}
				hint := ""
				if d.Kind() == cue.FloatKind && a.IncompleteKind() == cue.IntKind {
					hint = " (in CUE 1e3 and 1.0 are floats, not ints: write 1000, 1)"
				}
				w.errorv(a, "unsupported", "the default %v is not an instance of %v, so the field would take either; make the default one of the values the type allows%s", d, a, hint)
				return
			}
			w.errorv(a, "unsupported", "disjunctions may only list string literals (an enum) and one default (*v | T)")
			return
		}
		if slices.Contains(vals, s) {
			continue
		}
		vals = append(vals, s)
	}
	if (t.Kind == model.Enum || t.Kind == model.Literal) && w.unified(field, t) {
		return
	}
	if t.Kind != model.String {
		w.errorv(v, "unsupported", "enums must be strings")
		return
	}
	if len(vals) == 1 {
		t.Kind, t.Literal = model.Literal, vals[0]
		return
	}
	t.Kind, t.Enum = model.Enum, vals
}

// unified sets t to the strings field allows, where an enum meets another
// enum or a literal: CUE's unification of them, read from field's evaluated
// value (one string, or a disjunction of strings). It reports false when
// that value is neither.
func (w *typeWalker) unified(field cue.Value, t *model.Type) bool {
	ev := field.Eval()
	op, args := ev.Expr()
	switch {
	case op == cue.NoOp && ev.IsConcrete():
		args = []cue.Value{ev} // one value
	case op != cue.OrOp:
		return false
	}
	var vals []string
	for _, a := range args {
		s, err := a.String()
		if err != nil || !a.IsConcrete() {
			return false
		}
		vals = append(vals, s)
	}
	if len(vals) == 1 {
		t.Kind, t.Literal, t.Enum = model.Literal, vals[0], nil
	} else {
		t.Kind, t.Literal, t.Enum = model.Enum, "", vals
	}
	return true
}

// droppedDefault reports v's default when field, whose schema v is part
// of, has none: CUE drops a default that conflicts with the field's other
// constraints (strings.MinRunes(1) & (*"" | string)), silently.
func (w *typeWalker) droppedDefault(v, field cue.Value) {
	if _, ok := field.Default(); ok {
		return
	}
	d, ok := v.Default()
	switch {
	case ok && field.IsConcrete():
		// (*"a" | "b") & ("a" | "c") is "a": CUE keeps no default for a
		// field with one value, which must then be given.
		w.errorv(v, "default", "the constraints of %v leave it one value, %v, so CUE drops the default and the field must be given; "+
			"remove the default, or let the field allow more than one value", field.Path(), field)
	case ok && field.Unify(d).Validate() == nil:
		// The field admits d: another default disagrees with it (a
		// template's, tools: [_]: args: x: *"a" | …, and a tool's).
		w.errorv(v, "default", "the default %v of %v disagrees with another default of the field, so CUE keeps neither: "+
			"a default does not override another (a tool's does not override a template's); give the field one default, and only its type elsewhere", d, field.Path())
	case ok:
		// Named by its path: the default may be a shared definition's, and
		// the constraint one tool's (#Paging & {limit: <=10}).
		w.errorv(v, "default", "the default %v of %v conflicts with the field's other constraints, so CUE drops it; remove it or make it satisfy them", d, field.Path())
	}
}

// call handles builtin validator calls: each limits one of t's counts,
// and of two limits on a count the tighter holds.
func (w *typeWalker) call(v cue.Value, args []cue.Value, t *model.Type) {
	fn := w.funcName(args[0])
	var limit **int
	lower := false
	switch fn {
	case "strings.MinRunes":
		limit, lower = &t.MinLength, true
	case "strings.MaxRunes":
		limit = &t.MaxLength
	case "list.MinItems":
		limit, lower = &t.MinItems, true
	case "list.MaxItems":
		limit = &t.MaxItems
	default:
		w.errorv(v, "unsupported", "unsupported builtin %s; %s", fn, supported)
		return
	}
	n, err := args[1].Int64()
	if err != nil || n < 0 || n > 1<<31 {
		w.errorv(args[1], "unsupported", "%s needs a non-negative integer literal", fn)
		return
	}
	tightenCount(limit, int(n), lower)
}

// tightenCount sets *limit, a lower or an upper limit on a count, to n
// when it has none or n is the tighter.
func tightenCount(limit **int, n int, lower bool) {
	if *limit == nil || lower == (n > **limit) {
		*limit = &n
	}
}

// funcName returns how the called function f prints. Printing exports
// it, which is costly; a package's function (pkg.Name, pkg an import)
// prints the same wherever it is called, so its name is kept by import path,
// package name and function name.
func (w *typeWalker) funcName(f cue.Value) string {
	sel, ok := f.Source().(*ast.SelectorExpr)
	if !ok {
		return fmt.Sprint(f)
	}
	x, imp, ok := importOf(sel.X)
	name, ok2 := sel.Sel.(*ast.Ident)
	if !ok || !ok2 {
		return fmt.Sprint(f)
	}
	key := imp + "\x00" + x.Name + "\x00" + name.Name
	if fn, ok := w.funcNames[key]; ok {
		return fn
	}
	fn := fmt.Sprint(f)
	w.funcNames[key] = fn
	return fn
}

// bound handles >=, >, <=, < with a number literal.
func (w *typeWalker) bound(v cue.Value, op cue.Op, args []cue.Value, t *model.Type) {
	if t.Kind != model.Number && t.Kind != model.Integer {
		w.errorv(v, "unsupported", "numeric bounds apply to numbers only (string bounds are not supported)")
		return
	}
	if len(args) != 1 || !args[0].IsConcrete() {
		w.errorv(v, "unsupported", "bounds need a number literal")
		return
	}
	// A concrete number, which CUE writes as JSON without fail: the field
	// is a number, so CUE refused a bound of another kind (int & >"a").
	b, _ := args[0].MarshalJSON()
	bd := &model.Bound{Value: json.Number(b), Exclusive: op == cue.GreaterThanOp || op == cue.LessThanOp}
	limit, lower := &t.Maximum, false
	if op == cue.GreaterThanEqualOp || op == cue.GreaterThanOp {
		limit, lower = &t.Minimum, true
	}
	// Two bounds one way (uint & >=1, a template's <=100 and one tool's
	// <=10): the field holds both, so the tighter is its bound.
	if *limit == nil || bd.Tighter(*limit, lower) {
		*limit = bd
	}
}

// check records a named check: a definition carrying @check("message").
func (w *typeWalker) check(def cue.Value, path cue.Path, attr cue.Attribute, t *model.Type) {
	key := path.String() + " " + def.Pos().String()
	c, ok := w.checks[key]
	if !ok {
		msg, err := attr.String(0)
		// Not CUE's key=value form, whose text, key and all, String gives.
		if args := slices.Collect(attr.Args(0)); err != nil || strings.TrimSpace(msg) == "" || len(args) != 1 || args[0].Key != "" {
			w.l.errorf(def, "check", "@check takes one argument, its message: @check(\"what is wrong\"), found @check(%s)", attr.Contents())
		}
		sels := path.Selectors()
		name := strings.TrimPrefix(sels[len(sels)-1].String(), "#")
		c = &model.Check{Name: name, Message: msg, Doc: w.l.docOf(def), GoName: names.GoExported(name), Pos: w.l.vpos(def)}
		if r, ok := badRune(msg); ok {
			w.l.errorf(def, "text", "the message of @check of #%s holds %s; %s", name, runeName(r), textRule)
		}
		if c.Doc == "" {
			c.Doc = msg
		}
		for _, o := range w.checks {
			if o.Name == c.Name {
				// Generated code names a check after its definition alone.
				w.l.errorf(def, "name-clash", "named checks #%s here and at %s have one name, which generated code names each check by; rename one of them", name, o.Pos)
			}
		}
		before := len(w.l.errs)
		w.checkBody(def, c, 0)
		if len(c.Reject)+len(c.Match) == 0 && len(w.l.errs) == before {
			w.l.errorf(def, "check", "named check #%s has no =~ or !~ pattern", name)
		}
		w.checks[key] = c
	}
	if !slices.Contains(t.Checks, c) {
		t.Checks = append(t.Checks, c)
	}
}

func (w *typeWalker) checkBody(v cue.Value, c *model.Check, depth int) {
	if depth > 32 {
		return
	}
	op, args := w.l.expr(v)
	if op == cue.SelectorOp {
		// A definition the check builds on (#Check: #Base & !~"/"): its
		// patterns are the check's too.
		if root, path := v.ReferencePath(); root.Exists() {
			w.checkBody(root.LookupPath(path), c, depth+1)
			return
		}
	}
	switch op {
	case cue.AndOp:
		for _, a := range args {
			w.checkBody(a, c, depth+1)
		}
	case cue.RegexMatchOp, cue.NotRegexMatchOp:
		re, err := args[0].String()
		if err != nil {
			w.l.errorf(v, "check", "patterns in a named check must be literals")
			return
		}
		if _, err := regexp.Compile(re); err != nil {
			w.l.errorf(v, "check", "invalid pattern %q: %v", re, err)
			return
		}
		w.l.patternText(w.l.vpos(v), re)
		p := model.Pattern{Regexp: re, Pos: w.l.vpos(v)}
		if op == cue.RegexMatchOp {
			c.Match = append(c.Match, p)
		} else {
			c.Reject = append(c.Reject, p)
		}
	case cue.NoOp:
		if v.IncompleteKind() == cue.StringKind && !v.IsConcrete() {
			if len(args) == 1 && args[0].Pos() != v.Pos() {
				w.checkBody(args[0], c, depth+1)
			}
			return // the base type string
		}
		fallthrough
	default:
		w.l.errorf(v, "check", "a named check may contain only string, =~ and !~ (found %v); put other constraints on the fields that use it", v)
	}
}

// openListDefault reports whether d is only the closed form of a list with
// a prefix ([a, ...T] defaults to [a]), not an authored default: such a
// default is never concrete, and the prefix is reported as unsupported.
func openListDefault(v, d cue.Value) bool {
	return d.Kind() == cue.ListKind && v.IncompleteKind() == cue.ListKind && d.Validate(cue.Concrete(true)) != nil
}

// errorv records a finding about a type or constraint at the place its
// value is written.
func (w *typeWalker) errorv(v cue.Value, code, format string, args ...any) {
	p := w.l.valPos(v)
	if !p.IsValid() {
		p = w.at
	}
	w.l.errs.Add(p, code, format, args...)
}

// valPos is where v's value is written: for a field, the value after the
// colon rather than the label.
func (l *loader) valPos(v cue.Value) model.Pos {
	if f, ok := v.Source().(*ast.Field); ok && f.Value != nil {
		if p := l.pos(f.Value.Pos()); inSpec(p) {
			return p
		}
	}
	return l.vpos(v)
}
