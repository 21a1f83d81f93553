package load

import (
	"fmt"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/token"

	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/names"
)

// The fields of an argument or result schema, read from its syntax.
//
// object listed a schema's fields with Value.Fields, which sorts the fields
// of every struct the value is made of, each time: at a thousand tools,
// more than looking up each field by name. When the syntax shows the
// schema declared once, as a struct literal of plain fields, under no
// embedding, pattern or other form that could add more, and nothing else
// can add fields to it — the metaschema's args and result are open
// structs ({...}) that declare none, and the spec declares neither #Spec
// nor #Tool — the schema's fields are those of its literal, in the order
// written (the order Value.Fields gives a single struct), and each is
// looked up by name — or, when fastField builds it from its syntax alone
// (a scalar in a form the syntax settles, where nothing could be reported)
// and its Go name is no other field's, not looked up at all. Under
// crossCheck the listing is compared with Value.Fields's, and each field
// built from the syntax with the one object builds from its value.

// schemaFieldsOf lists v's fields as object reads them: optional ones and
// pattern constraints included.
func schemaFieldsOf(v cue.Value) ([]cue.Selector, []cue.Value, error) {
	return fieldsOf(v, cue.Optional(true), cue.Patterns(true))
}

// fastObjectFields lists v's fields as schemaFieldsOf does, from the
// syntax, or reports false. A field fastField builds from its syntax
// alone, that takes a Go name no other field of the object takes, is not
// looked up: its CUE value would only be asked what its syntax says.
func (w *typeWalker) fastObjectFields(v cue.Value) ([]objectField, bool) {
	x := w.l.syn
	if x == nil || x.defNames["#Spec"] || x.defNames["#Tool"] || !w.l.schemasOpen() {
		return nil, false
	}
	key, ok := pathKey(v)
	if !ok || !strings.HasPrefix(key, "\x00tools\x00") {
		return nil, false
	}
	lit, ok := x.plainStruct(key)
	if !ok {
		return nil, false
	}
	fields := make([]objectField, 0, len(lit.Elts))
	decls := make([]*ast.Field, 0, len(lit.Elts))
	goNames := make(map[string]int, len(lit.Elts))
	for _, e := range lit.Elts {
		fd, ok := e.(*ast.Field)
		if !ok {
			continue // an attribute or a comment: plainStruct refuses anything else
		}
		if id, ok := fd.Label.(*ast.Ident); ok && (strings.HasPrefix(id.Name, "_") || strings.HasPrefix(id.Name, "#")) {
			continue // not an argument
		}
		name, ok := labelName(fd.Label)
		if !ok || x.decls[key+"\x00"+name].count != 1 {
			return nil, false // declared twice, the fields are one
		}
		sel := cue.Str(name)
		switch fd.Constraint {
		case token.ILLEGAL:
		case token.OPTION:
			sel = sel.Optional()
		default:
			return nil, false
		}
		fields = append(fields, objectField{sel: sel})
		decls = append(decls, fd)
		goNames[names.GoExported(name)]++
	}
	for i, fd := range decls {
		of := &fields[i]
		if f, ok := w.fastField(fd); ok && f.GoName != "" && goNames[f.GoName] == 1 {
			of.fast = f
			continue
		}
		if of.v = v.LookupPath(cue.MakePath(of.sel)); !of.v.Exists() {
			return nil, false
		}
	}
	return fields, true
}

// crossCheckObject lists v's fields the general way and converts each,
// as object does without fastObjectFields, and reports them beside
// fields, the ones fastObjectFields found (a field it built from its
// syntax, converted).
func (w *typeWalker) crossCheckObject(v cue.Value, fields []objectField, childGo, childTS string) {
	n := len(w.l.errs)
	sels, values, _ := schemaFieldsOf(v)
	var fast, slow []any
	goNames := map[string]*model.Field{}
	for i := range sels {
		slow = append(slow, fmt.Sprintf("%s %v", sels[i].String(), found(values[i], true)))
		if f := w.field(sels[i], values[i], goNames, childGo, childTS); f != nil && i < len(fields) && fields[i].fast != nil {
			slow = append(slow, *f)
		}
	}
	for _, of := range fields {
		fv := of.v
		if of.fast != nil {
			fv = v.LookupPath(cue.MakePath(of.sel))
		}
		fast = append(fast, fmt.Sprintf("%s %v", of.sel.String(), found(fv, true)))
		if of.fast != nil {
			fast = append(fast, *of.fast)
		}
	}
	w.l.errs = w.l.errs[:n]
	crossCheck("object fields of "+v.Path().String(), fast, slow)
}

// schemasOpen reports whether the metaschema's #Tool declares args and
// result as open structs of no fields ({...}), read from its syntax once,
// and sets neither in a comprehension.
func (l *loader) schemasOpen() bool {
	if l.schemasOpenMemo == 0 {
		l.schemasOpenMemo = -1
		conditional, known := comprehensionFields(l.syn.schemaTool)
		if known && !conditional["args"] && !conditional["result"] &&
			openLit(l.syn.schemaTool, "args") && openLit(l.syn.schemaTool, "result") {
			l.schemasOpenMemo = 1
		}
	}
	return l.schemasOpenMemo > 0
}

// openLit reports whether lit declares field name once, as {...}.
func openLit(lit *ast.StructLit, name string) bool {
	n := 0
	for _, d := range lit.Elts {
		fd, ok := d.(*ast.Field)
		if !ok {
			continue
		}
		if l, ok := labelName(fd.Label); !ok || l != name {
			continue
		}
		n++
		st, ok := fd.Value.(*ast.StructLit)
		if !ok || len(st.Elts) != 1 {
			return false
		}
		if el, ok := st.Elts[0].(*ast.Ellipsis); !ok || el.Type != nil {
			return false
		}
	}
	return n == 1
}

// fieldList describes a schema's fields in order, for crossCheck.
func fieldList(sels []cue.Selector, values []cue.Value) []string {
	out := make([]string, len(sels))
	for i, s := range sels {
		out[i] = fmt.Sprintf("%s %v", s.String(), found(values[i], true))
	}
	return out
}
