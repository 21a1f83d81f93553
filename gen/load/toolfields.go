package load

import (
	"slices"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/token"

	"github.com/agentc-dev/agentc/gen/diag"
)

// One iteration of a tool's fields, for the model and the metaschema's
// required check both.
//
// The required check (see required) lists every tool's fields to find one
// without a concrete value, and building the model then looked each field
// it reads up again by name (Value.LookupPath): at a thousand tools, most
// of what both cost. So when metaschema's walk reaches the tools struct, it
// leaves it to tools (toolsRequired), which walks each tool's fields once,
// checking each as required would and keeping its value for the model. A
// finding of that walk stops Load as metaschema's would (reqErrs): the
// model is built, then dropped. If metaschema finds anything elsewhere,
// the model is not built, and it walks the tools itself. Under crossCheck,
// the findings and each field read are compared with the general way.

// toolFields is a tool's fields as one iteration found them.
type toolFields struct {
	tv     cue.Value
	names  []string
	values []cue.Value
	// listed says that names holds every field of the tool: one not among
	// them is not there (Value.Fields lists each regular field).
	listed bool
}

// toolReads are the fields of a tool the model reads.
var toolReads = []string{"execution", "description", "deprecated", "summary", "aliases", "args", "result"}

// toolFields reads the fields of tool tv (its selector sel) and, when
// metaschema left the tools to tools, checks them as required would.
func (l *loader) toolFields(tv cue.Value, sel cue.Selector) *toolFields {
	tf := &toolFields{tv: tv}
	a := l.toolsRequired
	if a == nil {
		return tf
	}
	path := []string{"tools", sel.String()}
	d, _ := tv.Default()
	if d.IncompleteKind() != cue.StructKind {
		l.required(tv, path, a, &l.reqErrs)
		return tf
	}
	// required(tv, path, a) lists the fields of d below a's anchor for tv.
	at := &anchor{up: a, v: tv}
	sels, values, ok := l.fastToolFields(sel, d)
	if ok && crossCheck != nil {
		slowSels, slowValues, _ := fieldsOf(d)
		crossCheck("tool fields of "+tv.Path().String(), listing(sels, values), listing(slowSels, slowValues))
	}
	if !ok {
		var err error
		if sels, values, err = fieldsOf(d); err != nil {
			return tf
		}
	}
	tf.names = make([]string, len(sels))
	for i, s := range sels {
		l.required(values[i], append(slices.Clip(path), s.String()), at, &l.reqErrs)
		tf.names[i] = s.Unquoted()
	}
	tf.values = values
	tf.listed = true
	if crossCheck != nil {
		for _, name := range toolReads {
			fast, ok := tf.optional(name)
			slow := lookup(tv, cue.Str(name))
			crossCheck("tool field of "+tv.Path().String()+"."+name, found(fast, ok), found(slow, slow.Exists()))
		}
	}
	return tf
}

// fieldsOf lists the fields of struct d that Value.Fields lists with opts.
func fieldsOf(d cue.Value, opts ...cue.Option) ([]cue.Selector, []cue.Value, error) {
	it, err := d.Fields(opts...)
	if err != nil {
		return nil, nil, err
	}
	var sels []cue.Selector
	var values []cue.Value
	for it.Next() {
		sels = append(sels, it.Selector())
		values = append(values, it.Value())
	}
	return sels, values, nil
}

// fastToolFields lists the regular fields of d, the tool sel's value, as
// fieldsOf does but in another order, without Value.Fields, which sorts
// the fields of every struct that makes up the tool (the metaschema's,
// its pattern's, the spec's) each time: at a thousand tools, more than
// all the tool's other reads. A tool's fields are those #Tool declares
// and, when the metaschema found nothing, none other (its definitions are
// closed); each is looked up by name, and kept when it exists (an optional
// field that is not set does not; one that nothing could set is not looked
// up, see toolSchemaFields). #Tool is read as the spec evaluates it,
// so a spec that adds to it adds to the names; the spec's own fields of
// the tool are looked up too. This holds when the syntax shows the tool
// declared once as a struct literal of plain fields, none required (a
// required field that is not set is listed by Value.Fields, but not found
// by name), and that the spec's files neither declare #Spec (which the
// tools are made of) nor embed anything at the top level; otherwise it
// reports false.
func (l *loader) fastToolFields(sel cue.Selector, d cue.Value) ([]cue.Selector, []cue.Value, bool) {
	x := l.syn
	if x == nil || x.defNames["#Spec"] || sel.LabelType() != cue.StringLabel {
		return nil, nil, false
	}
	lit, ok := x.plainStruct("\x00tools\x00" + sel.Unquoted())
	if !ok {
		return nil, nil, false
	}
	schema := l.toolSchemaFields()
	if !schema.ok {
		return nil, nil, false
	}
	names := slices.Clip(schema.lookup)
	for _, e := range lit.Elts {
		fd, ok := e.(*ast.Field)
		if !ok {
			continue // an attribute or a comment: plainStruct refuses anything else
		}
		if id, ok := fd.Label.(*ast.Ident); ok && (strings.HasPrefix(id.Name, "_") || strings.HasPrefix(id.Name, "#")) {
			continue // not a regular field
		}
		if fd.Constraint == token.NOT {
			return nil, nil, false
		}
		name, ok := labelName(fd.Label)
		if !ok {
			return nil, nil, false
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	sels := make([]cue.Selector, 0, len(names))
	values := make([]cue.Value, 0, len(names))
	for _, n := range names {
		s := cue.Str(n)
		if fv := d.LookupPath(cue.MakePath(s)); fv.Exists() {
			sels = append(sels, s)
			values = append(values, fv)
		}
	}
	return sels, values, true
}

// toolSchemaFields returns what fastToolFields needs of #Tool, read once.
func (l *loader) toolSchemaFields() *toolSchema {
	if l.toolSchema != nil {
		return l.toolSchema
	}
	ts := &toolSchema{}
	l.toolSchema = ts
	it, err := l.root.LookupPath(cue.MakePath(cue.Def("Tool"))).Fields(cue.Optional(true))
	if err != nil {
		return ts
	}
	// An optional field of #Tool is no field of a tool unless the tool
	// sets it (its syntax tells) or one of #Tool's comprehensions does
	// (if execution == "sandbox" {summary: string}): the syntax of the
	// metaschema's #Tool tells which, unless the spec adds to #Tool.
	conditional, known := comprehensionFields(l.syn.schemaTool)
	known = known && !l.syn.defNames["#Tool"]
	for it.Next() {
		s := it.Selector()
		if s.LabelType() != cue.StringLabel || s.ConstraintType() == cue.RequiredConstraint {
			return ts
		}
		n := s.Unquoted()
		if s.ConstraintType() != cue.OptionalConstraint || !known || conditional[n] {
			ts.lookup = append(ts.lookup, n)
		}
	}
	ts.ok = len(ts.lookup) > 0
	return ts
}

// comprehensionFields returns the names of the fields the comprehensions
// of struct literal lit declare, and false when lit holds something else
// that could declare fields (an embedding) or is nil.
func comprehensionFields(lit *ast.StructLit) (map[string]bool, bool) {
	if lit == nil {
		return nil, false
	}
	names := map[string]bool{}
	var inner func(e ast.Expr) bool
	inner = func(e ast.Expr) bool {
		st, ok := e.(*ast.StructLit)
		if !ok {
			return false
		}
		for _, d := range st.Elts {
			switch d := d.(type) {
			case *ast.Field:
				n, ok := labelName(d.Label)
				if !ok {
					return false
				}
				names[n] = true
			case *ast.Comprehension:
				if !inner(d.Value) {
					return false
				}
			case *ast.Attribute, *ast.CommentGroup:
			default:
				return false
			}
		}
		return true
	}
	for _, d := range lit.Elts {
		switch d := d.(type) {
		case *ast.Field, *ast.Attribute, *ast.CommentGroup:
		case *ast.Comprehension:
			if !inner(d.Value) {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return names, true
}

// toolSchema is what toolSchemaFields read of #Tool: the names of the
// fields a tool may have whatever its syntax, to look up, and whether
// fastToolFields may read a tool's fields by name at all (no field of
// #Tool is required).
type toolSchema struct {
	lookup []string
	ok     bool
}

// listing describes a tool's fields for crossCheck, by name.
func listing(sels []cue.Selector, values []cue.Value) []string {
	out := fieldList(sels, values)
	slices.Sort(out)
	return out
}

// get returns the tool's field name, as LookupPath does.
func (tf *toolFields) get(name string) cue.Value {
	if i := slices.Index(tf.names, name); i >= 0 && tf.values[i].IncompleteKind() != cue.BottomKind {
		return tf.values[i]
	}
	// Not listed, or an error (a required field not present, listed as
	// one, is not found by LookupPath): as LookupPath finds it.
	return lookup(tf.tv, cue.Str(name))
}

// optional returns the tool's field name and whether it exists, as
// LookupPath and Exists tell.
func (tf *toolFields) optional(name string) (cue.Value, bool) {
	if tf.listed && !slices.Contains(tf.names, name) {
		return cue.Value{}, false
	}
	v := tf.get(name)
	return v, v.Exists()
}

// found describes a field a lookup found, for crossCheck.
func found(v cue.Value, exists bool) any {
	if !exists {
		return nil
	}
	return [2]any{v.Pos(), v.Path().String()}
}

// toolsRequiredDone, under crossCheck, compares the findings of the
// required check tools did with the general walk's.
func (l *loader) toolsRequiredDone() {
	a := l.toolsRequired
	if a == nil || crossCheck == nil {
		return
	}
	var slow diag.List
	l.required(a.v, []string{"tools"}, a.up, &slow)
	// The order of findings is the order of fields, which the fast
	// listing does not keep (see fastToolFields); Err sorts them.
	fast := messages(l.reqErrs)
	slowMsgs := messages(slow)
	slices.Sort(fast)
	slices.Sort(slowMsgs)
	crossCheck("requiredness of tools", fast, slowMsgs)
}

func messages(errs diag.List) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}
