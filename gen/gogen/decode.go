package gogen

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/names"
	"github.com/agentc-dev/agentc/gen/zodgen"
)

// decoders renders decode.go: a Decode function per tool and a method per
// argument object, string constraint set and number constraint set.
func (g *generator) decoders(f *jen.File) {
	for _, t := range g.decoded {
		for _, fd := range t.Fields {
			g.nameValues(fd.Type)
		}
	}
	for _, t := range g.s.Tools {
		a := t.Args.GoName
		g.unit(f, func(h *unitHash) { h.str("Decode"); h.str(a); h.str(t.Name) }, func() { g.decodeFunc(f, a, t.Name) })
	}
	for _, t := range g.decoded {
		g.unit(f, func(h *unitHash) { h.str("decode"); h.of(t) }, func() { g.objectDecoder(f, t) })
	}
	if len(g.valuesOrder) > 0 {
		var defs []jen.Code
		for _, key := range g.valuesOrder {
			var vs []jen.Code
			for _, v := range strings.Split(key, "\x00") {
				vs = append(vs, jen.Lit(v))
			}
			defs = append(defs, jen.Id(g.values[key]).Op("=").Index().String().Values(vs...))
		}
		g.comment(f, "The accepted values of enums and literals, in the spec's order (zod's \"values\").")
		f.Var().Defs(defs...)
	}
	if len(g.patternOrder) > 0 {
		var defs []jen.Code
		for _, re := range g.patternOrder {
			defs = append(defs, jen.Id(g.patterns[re]).Op("=").Qual("regexp", "MustCompile").Call(jen.Lit(re)))
		}
		g.comment(f, "The spec's patterns (RE2), as Go, CUE and the translated ECMAScript regexes read them alike.")
		f.Var().Defs(defs...)
	}
	for _, c := range g.checkOrder {
		var reject, match []jen.Code
		for _, p := range c.Reject {
			reject = append(reject, jen.Id(g.patterns[p.Regexp]))
		}
		for _, p := range c.Match {
			match = append(match, jen.Id(g.patterns[p.Regexp]))
		}
		var rv, mv jen.Code
		if len(reject) > 0 {
			rv = jen.Index().Op("*").Qual("regexp", "Regexp").Values(reject...)
		}
		if len(match) > 0 {
			mv = jen.Index().Op("*").Qual("regexp", "Regexp").Values(match...)
		}
		g.comment(f, fmt.Sprintf("%s is the named check #%s: %s", g.checkVars[c], c.Name, strings.Join(strings.Fields(c.Doc), " ")))
		f.Var().Id(g.checkVars[c]).Op("=").Op("&").Id("namedCheck").Add(keyed(
			"message", jen.Lit(c.Message),
			"reject", rv,
			"match", mv))
	}
}

// decodeFunc writes Decode<a>, the decoder of tool name's arguments (a).
func (g *generator) decodeFunc(f *jen.File, a, name string) {
	doc := commentText(fmt.Sprintf("Decode%s decodes and validates the arguments of %q from JSON in one pass, as "+
		"the generated zod schema parses JSON.parse(data): it returns Issues listing zod 4's issues for well-formed "+
		"JSON that fails validation, or a *SyntaxError for input that is not JSON. Defaults are applied and unknown "+
		"keys are dropped.", a, name))
	g.decl(f, fmt.Appendf(nil, `%s
func Decode%[2]s(data []byte) (%[2]s, error) {
	var v %[2]s
	d := decoder{data: data}
	d.decode%[2]s(&v)
	d.end()
	if d.err != nil {
		return %[2]s{}, d.err
	}
	if len(d.issues) > 0 {
		return %[2]s{}, Issues(d.issues)
	}
	return v, nil
}
`, doc, a))
}

// objectDecoder writes decode<GoName>, the decoder of object type t, and
// the tables it reads: keys<GoName> and missing<GoName>.
func (g *generator) objectDecoder(f *jen.File, t *model.Type) {
	name := t.GoName
	if len(t.Fields) == 0 {
		w := &decodeWriter{g: g}
		w.open("func (d *decoder) decode%s(*%s) {", name, name)
		w.line("d.emptyObject()")
		w.close("}")
		w.declare(f, fmt.Sprintf("decode%s decodes %s, which has no fields: every key is stripped.", name, article(name)))
		return
	}
	w := &decodeWriter{g: g}
	w.open("func (d *decoder) decode%s(v *%s) {", name, name)
	w.line("more, ok := d.objectStart()")
	w.open("if !ok {")
	w.line("return")
	w.close("}")
	w.line("start := len(d.issues)")
	w.line("var seen uint64")
	w.line("var segs [%d][2]int", len(t.Fields))
	w.open("for more {")
	w.line("key := d.key()")
	w.returnOnErr()
	w.line("switch string(key) {")
	var required uint64
	for i, fd := range t.Fields {
		bit := fmt.Sprintf("0x%x", uint64(1)<<i)
		if fd.Presence == model.Required {
			required |= 1 << i
		}
		dst := "v." + fd.GoName
		w.open("case %s:", strconv.Quote(fd.Name))
		w.open("if seen&%s != 0 {", bit)
		w.line("// A repeated key: JSON.parse keeps the last value.")
		w.line("%s = %s", dst, w.zero(fd))
		w.close("}")
		w.line("seen |= %s", bit)
		if fd.Presence == model.Optional {
			w.line("%s.Set = true", dst)
			dst += ".Value"
		}
		w.line("segs[%d][0] = len(d.issues)", i)
		w.line("d.push(%s)", strconv.Quote(fd.Name))
		w.value(fd.Type, dst, 0)
		w.line("d.pop()")
		w.line("segs[%d][1] = len(d.issues)", i)
		w.close("")
	}
	w.open("default:")
	w.line("// Unknown keys are stripped, as zod does.")
	w.line("d.skip()")
	w.close("")
	w.line("}")
	w.returnOnErr()
	w.line("more = d.objectNext()")
	w.close("}")
	w.returnOnErr()
	for i, fd := range t.Fields {
		if fd.Presence == model.Defaulted {
			w.open("if seen&0x%x == 0 {", uint64(1)<<i)
			w.line("v.%s = %s", fd.GoName, w.defaultValue(fd.Type, fd.Default))
			w.close("}")
		}
	}
	w.open("if len(d.issues) != start || seen&uint64(%#v) != uint64(%#v) {", required, required)
	args := []string{"start", "segs[:]", "seen", "keys" + name + "[:]", "missing" + name + "[:]"}
	if 2+52+2*len(name) > maxLine { // the call on one line, indented twice
		w.open("d.reorder(")
		for _, a := range args {
			w.line("%s,", a)
		}
		w.close(")")
	} else {
		w.line("d.reorder(%s)", strings.Join(args, ", "))
	}
	w.close("}")
	w.close("}")
	w.declare(f, fmt.Sprintf("decode%s decodes %s at the current path;\nissues come out in field order.", name, article(name)))

	w = &decodeWriter{g: g}
	w.open("var keys%s = [...]string{", name)
	for _, fd := range t.Fields {
		w.line("%s,", strconv.Quote(fd.Name))
	}
	w.close("}")
	w.declare(f, fmt.Sprintf("keys%s are %s's JSON keys, in field order.", name, name))

	w = &decodeWriter{g: g}
	w.open("var missing%s = [...]Issue{", name)
	for _, fd := range t.Fields {
		switch fd.Presence {
		case model.Required:
			w.comment(fd.Name + ": required")
			w.open("{")
			w.missingIssue(fd.Type)
			w.close("},")
		case model.Defaulted:
			w.comment(fd.Name + ": defaulted")
			w.line("{},")
		default:
			w.comment(fd.Name + ": optional")
			w.line("{},")
		}
	}
	w.close("}")
	w.declare(f, fmt.Sprintf("missing%s are the issues of absent fields (zod validates undefined);\nempty when absence is fine.", name))
}

// article puts "a" or "an" before a type name, by its first letter.
func article(name string) string {
	if name != "" && strings.ContainsRune("AEIOU", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

// lines is a composite literal's braces with one element per line.
func lines(items []jen.Code) jen.Code {
	return jen.Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, items...)
}

// keyed is a composite literal with one "key: value" per line, in the
// order given; kv alternates field names (string) and values (jen.Code).
// A nil value leaves its field out (the zero value).
func keyed(kv ...any) jen.Code {
	var items []jen.Code
	for i := 0; i+1 < len(kv); i += 2 {
		if v, _ := kv[i+1].(jen.Code); v != nil {
			items = append(items, jen.Id(kv[i].(string)).Op(":").Add(v))
		}
	}
	return lines(items)
}

// value writes the decoding of one value of type t into dst, an
// addressable expression (a field or a local variable).
func (w *decodeWriter) value(t *model.Type, dst string, depth int) {
	g := w.g
	switch t.Kind {
	case model.String:
		if !hasStringChecks(t) {
			w.line("d.str(&%s)", dst)
			return
		}
		w.open("if d.str(&%s) {", dst)
		w.stringChecks(t, dst)
		w.close("}")
	case model.Literal:
		w.line("d.enum(&%s, %s, %s)", dst, g.valuesVar([]string{t.Literal}), strconv.Quote(valueMessage([]string{t.Literal})))
	case model.Enum:
		w.line("d.enum((*string)(&%s), %s, %s)", dst, g.valuesVar(t.Enum), strconv.Quote(valueMessage(t.Enum)))
	case model.Boolean:
		w.line("d.boolean(&%s)", dst)
	case model.Number, model.Integer:
		f := fmt.Sprintf("f%d", depth)
		w.open("{")
		w.line("var %s float64", f)
		w.open("if d.num(&%s) {", f)
		w.numberChecks(t, f)
		if t.Kind == model.Integer {
			w.line("%s = int64(%s)", dst, f)
		} else {
			w.line("%s = %s", dst, f)
		}
		w.close("}")
		w.close("}")
	case model.Object:
		w.line("d.decode%s(&%s)", t.GoName, dst)
	case model.Array:
		more, ok, n, e := fmt.Sprintf("more%d", depth), fmt.Sprintf("ok%d", depth), fmt.Sprintf("n%d", depth), fmt.Sprintf("e%d", depth)
		w.open("if %s, %s := d.arrayStart(); %s {", more, ok, ok)
		w.open("if %s == nil {", dst)
		w.line("// [] decodes to an empty, non-nil slice (no allocation).")
		w.line("%s = %s{}", dst, w.goType(t))
		w.close("}")
		w.line("%s := 0", n)
		w.open("for %s {", more)
		w.line("d.pushIndex(%s)", n)
		w.line("var %s %s", e, w.goType(t.Items))
		w.value(t.Items, e, depth+1)
		w.line("d.pop()")
		w.line("%s = append(%s, %s)", dst, dst, e)
		w.line("%s++", n)
		w.returnOnErr()
		w.line("%s = d.arrayNext()", more)
		w.close("}")
		w.returnOnErr()
		if t.MinItems != nil {
			w.open("if %s < %d {", n, *t.MinItems)
			w.sizeIssue("too_small", *t.MinItems)
			w.close("}")
		}
		if t.MaxItems != nil {
			w.open("if %s > %d {", n, *t.MaxItems)
			w.sizeIssue("too_big", *t.MaxItems)
			w.close("}")
		}
		w.close("}")
	default:
		panic("gogen: unknown kind " + string(t.Kind)) // the loader admits no other kind
	}
}

// hasStringChecks reports whether a string of type t is checked after it
// is read.
func hasStringChecks(t *model.Type) bool {
	return t.MinLength != nil || t.MaxLength != nil || len(t.Patterns) > 0 || len(t.Checks) > 0
}

// stringChecks checks the string in s (an expression) against t's
// constraints, one runtime call each, in the order the zod schema runs its
// checks: strings.MinRunes, strings.MaxRunes, =~ patterns, named checks.
func (w *decodeWriter) stringChecks(t *model.Type, s string) {
	if t.MinLength != nil {
		w.line("d.minRunes(%s, %d)", s, *t.MinLength)
	}
	if t.MaxLength != nil {
		w.line("d.maxRunes(%s, %d)", s, *t.MaxLength)
	}
	for _, p := range t.Patterns {
		lit, _ := zodgen.RegexLiteral(p.Regexp) // vet rejects a pattern without one
		w.line("d.pattern(%s, %s, %s)", s, w.g.patterns[p.Regexp], strconv.Quote(lit))
	}
	for _, c := range t.Checks {
		w.line("d.check(%s, %s)", s, w.g.checkVars[c])
	}
}

// numberChecks checks the number in variable f against t's constraints,
// one runtime call each, as zod runs them: .int() first, and the bounds
// only for an integral value (zod aborts after a fractional one).
func (w *decodeWriter) numberChecks(t *model.Type, f string) {
	var bounds []string
	for _, b := range []struct {
		bound           *model.Bound
		inclusive, excl string
	}{{t.Minimum, "gte", "gt"}, {t.Maximum, "lte", "lt"}} {
		if b.bound == nil {
			continue
		}
		name := b.inclusive
		if b.bound.Exclusive {
			name = b.excl
		}
		v := zodgen.JSNumber(b.bound.Value)
		// A JavaScript number literal is a Go constant too ("1e+21").
		bounds = append(bounds, fmt.Sprintf("d.%s(%s, %s, %s)", name, f, v, strconv.Quote(v)))
	}
	switch {
	case t.Kind != model.Integer:
		for _, b := range bounds {
			w.line("%s", b)
		}
	case len(bounds) == 0:
		w.line("d.intCheck(%s)", f)
	default:
		w.open("if d.intCheck(%s) {", f)
		for _, b := range bounds {
			w.line("%s", b)
		}
		w.close("}")
	}
}

// sizeIssue adds zod's too_small/too_big issue for an item count.
func (w *decodeWriter) sizeIssue(code string, n int) {
	w.open("d.add(Issue{")
	if code == "too_small" {
		w.keyed("Code", strconv.Quote(code), "Inclusive", "true",
			"Message", strconv.Quote(fmt.Sprintf("Too small: expected array to have >=%d items", n)),
			"Minimum", strconv.Quote(fmt.Sprint(n)), "Origin", `"array"`)
	} else {
		w.keyed("Code", strconv.Quote(code), "Inclusive", "true",
			"Maximum", strconv.Quote(fmt.Sprint(n)),
			"Message", strconv.Quote(fmt.Sprintf("Too big: expected array to have <=%d items", n)), "Origin", `"array"`)
	}
	w.close("})")
}

// valueMessage is zod's invalid_value message.
func valueMessage(values []string) string {
	if len(values) == 1 {
		return `Invalid input: expected "` + values[0] + `"`
	}
	var q []string
	for _, v := range values {
		q = append(q, `"`+v+`"`)
	}
	return "Invalid option: expected one of " + strings.Join(q, "|")
}

// missingIssue writes the fields of the issue zod reports for an absent
// required field of type t (it validates undefined).
func (w *decodeWriter) missingIssue(t *model.Type) {
	switch t.Kind {
	case model.Enum, model.Literal:
		vals := t.Enum
		if t.Kind == model.Literal {
			vals = []string{t.Literal}
		}
		w.keyed("Code", `"invalid_value"`, "Message", strconv.Quote(valueMessage(vals)), "Values", "[]string{"+quoteJoin(vals)+"}")
		return
	}
	expected := map[model.Kind]string{model.String: "string", model.Number: "number", model.Integer: "number", model.Boolean: "boolean", model.Array: "array", model.Object: "object"}[t.Kind]
	w.keyed("Code", `"invalid_type"`, "Expected", strconv.Quote(expected),
		"Message", strconv.Quote("Invalid input: expected "+expected+", received undefined"))
}

// quoteJoin is vals quoted and comma-separated, as in a composite literal.
func quoteJoin(vals []string) string {
	var b strings.Builder
	for i, v := range vals {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(v))
	}
	return b.String()
}

// zero is the zero value of a field's Go type.
func (w *decodeWriter) zero(fd *model.Field) string {
	if fd.Presence == model.Optional {
		return "Opt[" + w.goType(fd.Type) + "]{}"
	}
	switch fd.Type.Kind {
	case model.String, model.Literal, model.Enum:
		return `""`
	case model.Number, model.Integer:
		return "0"
	case model.Boolean:
		return "false"
	case model.Array:
		return "nil"
	}
	return w.goType(fd.Type) + "{}"
}

// goType is the Go type of t.
func (w *decodeWriter) goType(t *model.Type) string {
	switch t.Kind {
	case model.String, model.Literal:
		return "string"
	case model.Enum:
		return w.g.enumNames[t]
	case model.Number:
		return "float64"
	case model.Integer:
		return "int64"
	case model.Boolean:
		return "bool"
	case model.Array:
		return "[]" + w.goType(t.Items)
	}
	return t.GoName
}

// defaultValue is the Go expression of the JSON value raw as type t (a
// default). An object literal of two or more fields is written as jen
// writes it, one field a line, for gofmt to lay out; so is a default that
// does not decode (the loader encodes every default as its type).
func (w *decodeWriter) defaultValue(t *model.Type, raw json.RawMessage) string {
	v, err := w.goValue(t, raw)
	if err != nil {
		w.unformatted = true
		return fmt.Sprintf("/* bad default: %v */", err)
	}
	return v
}

func (w *decodeWriter) goValue(t *model.Type, raw json.RawMessage) (string, error) {
	switch t.Kind {
	case model.String, model.Literal:
		var s string
		err := json.Unmarshal(raw, &s)
		return strconv.Quote(s), err
	case model.Enum:
		var s string
		err := json.Unmarshal(raw, &s)
		return w.g.enumNames[t] + names.GoEnumValue(s), err
	case model.Number:
		var v float64
		err := json.Unmarshal(raw, &v)
		return floatLit(v), err
	case model.Integer:
		var v int64
		err := json.Unmarshal(raw, &v)
		return fmt.Sprintf("int64(%d)", v), err
	case model.Boolean:
		var v bool
		err := json.Unmarshal(raw, &v)
		return strconv.FormatBool(v), err
	case model.Array:
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return "", err
		}
		vs := make([]string, len(items))
		for i, it := range items {
			v, err := w.goValue(t.Items, it)
			if err != nil {
				return "", err
			}
			vs[i] = v
		}
		return w.goType(t) + "{" + strings.Join(vs, ", ") + "}", nil
	case model.Object:
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return "", err
		}
		var keys, vals []string // as jen.Dict writes them: sorted by key
		for _, fd := range t.Fields {
			r, ok := m[fd.Name]
			if !ok {
				continue
			}
			v, err := w.goValue(fd.Type, r)
			if err != nil {
				return "", err
			}
			if fd.Presence == model.Optional {
				v = "Some(" + v + ")"
			}
			i, _ := slices.BinarySearch(keys, fd.GoName)
			keys, vals = slices.Insert(keys, i, fd.GoName), slices.Insert(vals, i, v)
		}
		switch len(keys) {
		case 0:
			return t.GoName + "{}", nil
		case 1:
			return t.GoName + "{" + keys[0] + ": " + vals[0] + "}", nil
		}
		w.unformatted = true
		var b strings.Builder
		b.WriteString(t.GoName + "{\n")
		for i := range keys {
			b.WriteString(keys[i] + ": " + vals[i] + ",\n")
		}
		return b.String() + "}", nil
	}
	return "", fmt.Errorf("no Go value for kind %s", t.Kind)
}

// joinValues is the key of a list of values in g.values.
func joinValues(vals []string) string { return strings.Join(vals, "\x00") }

// nameValues names the values slices of the enums and literals t's decoder
// reads, in the order the decoders name them as they are rendered, before
// any is rendered: a decoder's text then only reads the names, and can be
// reused (see unit).
func (g *generator) nameValues(t *model.Type) {
	switch t.Kind {
	case model.Literal:
		g.valuesVar([]string{t.Literal})
	case model.Enum:
		g.valuesVar(t.Enum)
	case model.Array:
		g.nameValues(t.Items)
	}
}

// valuesVar names the package-level slice of an enum's or literal's values.
func (g *generator) valuesVar(vals []string) string {
	key := joinValues(vals)
	if name, ok := g.values[key]; ok {
		return name
	}
	name := fmt.Sprintf("values%d", len(g.values))
	g.values[key] = name
	g.valuesOrder = append(g.valuesOrder, key)
	return name
}
