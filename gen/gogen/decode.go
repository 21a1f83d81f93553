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
	w := &decodeWriter{g: g}
	if len(t.Fields) == 0 {
		w.text(`func (d *decoder) decode%[1]s(*%[1]s) {
	d.emptyObject()
}
`, name)
		w.declare(f, fmt.Sprintf("decode%s decodes %s, which has no fields: every key is stripped.", name, article(name)))
		return
	}
	w.text(`func (d *decoder) decode%[1]s(v *%[1]s) {
	more, ok := d.objectStart()
	if !ok {
		return
	}
	start := len(d.issues)
	var seen uint64
	var segs [%[2]d][2]int
	for more {
		key := d.key()
		if d.err != nil {
			return
		}
		switch string(key) {
`, name, len(t.Fields))
	var required uint64
	for i, fd := range t.Fields {
		if fd.Presence == model.Required {
			required |= 1 << i
		}
		dst := "v." + fd.GoName
		w.text(`		case %[1]s:
			if seen&%#[2]x != 0 {
				// A repeated key: JSON.parse keeps the last value.
				%[3]s = %[4]s
			}
			seen |= %#[2]x
`, strconv.Quote(fd.Name), uint64(1)<<i, dst, w.zero(fd))
		if fd.Presence == model.Optional {
			w.text("\t\t\t%s.Set = true\n", dst)
			dst += ".Value"
		}
		w.text(`			segs[%[1]d][0] = len(d.issues)
			d.push(%[2]s)
`, i, strconv.Quote(fd.Name))
		w.indented(3, func() { w.value(fd.Type, dst, 0) })
		w.text(`			d.pop()
			segs[%d][1] = len(d.issues)
`, i)
	}
	w.text(`		default:
			// Unknown keys are stripped, as zod does.
			d.skip()
		}
		if d.err != nil {
			return
		}
		more = d.objectNext()
	}
	if d.err != nil {
		return
	}
`)
	for i, fd := range t.Fields {
		if fd.Presence == model.Defaulted {
			w.text(`	if seen&%#x == 0 {
		v.%s = %s
	}
`, uint64(1)<<i, fd.GoName, w.defaultValue(fd.Type, fd.Default))
		}
	}
	if 2+52+2*len(name) > maxLine { // the call on one line, indented twice
		w.text(`	if len(d.issues) != start || seen&uint64(%#[1]x) != uint64(%#[1]x) {
		d.reorder(
			start,
			segs[:],
			seen,
			keys%[2]s[:],
			missing%[2]s[:],
		)
	}
}
`, required, name)
	} else {
		w.text(`	if len(d.issues) != start || seen&uint64(%#[1]x) != uint64(%#[1]x) {
		d.reorder(start, segs[:], seen, keys%[2]s[:], missing%[2]s[:])
	}
}
`, required, name)
	}
	w.declare(f, fmt.Sprintf("decode%s decodes %s at the current path; issues come out in field order.", name, article(name)))

	w = &decodeWriter{g: g}
	w.text("var keys%s = [...]string{\n", name)
	for _, fd := range t.Fields {
		w.text("\t%s,\n", strconv.Quote(fd.Name))
	}
	w.text("}\n")
	w.declare(f, fmt.Sprintf("keys%s are %s's JSON keys, in field order.", name, name))

	w = &decodeWriter{g: g}
	w.text("var missing%s = [...]Issue{\n", name)
	w.indented(1, func() {
		for _, fd := range t.Fields {
			w.comment(fd.Name + ": " + map[model.Presence]string{model.Required: "required", model.Defaulted: "defaulted", model.Optional: "optional"}[fd.Presence])
			if fd.Presence != model.Required {
				w.text("{},\n")
				continue
			}
			w.text("{\n")
			w.indented(1, func() { w.missingIssue(fd.Type) })
			w.text("},\n")
		}
	})
	w.text("}\n")
	w.declare(f, fmt.Sprintf("missing%s are the issues of absent fields (zod validates undefined); empty when absence is fine.", name))
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
// addressable expression (a field or a local variable); depth numbers the
// variables of nested lists and numbers.
func (w *decodeWriter) value(t *model.Type, dst string, depth int) {
	g := w.g
	switch t.Kind {
	case model.String:
		if !hasStringChecks(t) {
			w.text("d.str(&%s)\n", dst)
			return
		}
		w.text("if d.str(&%s) {\n", dst)
		w.indented(1, func() { w.stringChecks(t, dst) })
		w.text("}\n")
	case model.Literal:
		w.text("d.enum(&%s, %s, %s)\n", dst, g.valuesVar([]string{t.Literal}), strconv.Quote(valueMessage([]string{t.Literal})))
	case model.Enum:
		w.text("d.enum((*string)(&%s), %s, %s)\n", dst, g.valuesVar(t.Enum), strconv.Quote(valueMessage(t.Enum)))
	case model.Boolean:
		w.text("d.boolean(&%s)\n", dst)
	case model.Number, model.Integer:
		w.text(`{
	var f%[1]d float64
	if d.num(&f%[1]d) {
`, depth)
		w.indented(2, func() { w.numberChecks(t, fmt.Sprintf("f%d", depth)) })
		if t.Kind == model.Integer {
			w.text("\t\t%s = int64(f%d)\n", dst, depth)
		} else {
			w.text("\t\t%s = f%d\n", dst, depth)
		}
		w.text("\t}\n}\n")
	case model.Object:
		w.text("d.decode%s(&%s)\n", t.GoName, dst)
	case model.Array:
		w.text(`if more%[1]d, ok%[1]d := d.arrayStart(); ok%[1]d {
	if %[2]s == nil {
		// [] decodes to an empty, non-nil slice (no allocation).
		%[2]s = %[3]s{}
	}
	n%[1]d := 0
	for more%[1]d {
		d.pushIndex(n%[1]d)
		var e%[1]d %[4]s
`, depth, dst, w.g.goTypeText(t), w.g.goTypeText(t.Items))
		w.indented(2, func() { w.value(t.Items, fmt.Sprintf("e%d", depth), depth+1) })
		w.text(`		d.pop()
		%[2]s = append(%[2]s, e%[1]d)
		n%[1]d++
		if d.err != nil {
			return
		}
		more%[1]d = d.arrayNext()
	}
	if d.err != nil {
		return
	}
`, depth, dst)
		w.indented(1, func() {
			if t.MinItems != nil {
				w.sizeIssue(fmt.Sprintf("n%d < %d", depth, *t.MinItems), "Minimum", *t.MinItems,
					fmt.Sprintf("Too small: expected array to have >=%d items", *t.MinItems))
			}
			if t.MaxItems != nil {
				w.sizeIssue(fmt.Sprintf("n%d > %d", depth, *t.MaxItems), "Maximum", *t.MaxItems,
					fmt.Sprintf("Too big: expected array to have <=%d items", *t.MaxItems))
			}
		})
		w.text("}\n")
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
		w.text("d.minRunes(%s, %d)\n", s, *t.MinLength)
	}
	if t.MaxLength != nil {
		w.text("d.maxRunes(%s, %d)\n", s, *t.MaxLength)
	}
	for _, p := range t.Patterns {
		lit, _ := zodgen.RegexLiteral(p.Regexp) // vet rejects a pattern without one
		w.text("d.pattern(%s, %s, %s)\n", s, w.g.patterns[p.Regexp], strconv.Quote(lit))
	}
	for _, c := range t.Checks {
		w.text("d.check(%s, %s)\n", s, w.g.checkVars[c])
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
			w.text("%s\n", b)
		}
	case len(bounds) == 0:
		w.text("d.intCheck(%s)\n", f)
	default:
		w.text("if d.intCheck(%s) {\n", f)
		for _, b := range bounds {
			w.text("\t%s\n", b)
		}
		w.text("}\n")
	}
}

// sizeIssue adds zod's too_small or too_big issue for an item count, if
// cond holds; bound is the issue's Minimum or Maximum field, n its value.
func (w *decodeWriter) sizeIssue(cond, bound string, n int, message string) {
	w.text("if %s {\n\td.add(Issue{\n", cond)
	w.indented(2, func() {
		w.fields(map[string]string{
			"Code":      map[string]string{"Minimum": `"too_small"`, "Maximum": `"too_big"`}[bound],
			"Inclusive": "true",
			bound:       strconv.Quote(strconv.Itoa(n)),
			"Message":   strconv.Quote(message),
			"Origin":    `"array"`,
		})
	})
	w.text("\t})\n}\n")
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
		w.fields(map[string]string{
			"Code":    `"invalid_value"`,
			"Values":  "[]string{" + quoteJoin(vals) + "}",
			"Message": strconv.Quote(valueMessage(vals)),
		})
		return
	}
	expected := map[model.Kind]string{model.String: "string", model.Number: "number", model.Integer: "number", model.Boolean: "boolean", model.Array: "array", model.Object: "object"}[t.Kind]
	w.fields(map[string]string{
		"Code":     `"invalid_type"`,
		"Expected": strconv.Quote(expected),
		"Message":  strconv.Quote("Invalid input: expected " + expected + ", received undefined"),
	})
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
		return "Opt[" + w.g.goTypeText(fd.Type) + "]{}"
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
	return w.g.goTypeText(fd.Type) + "{}"
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
		return w.g.goTypeText(t) + "{" + strings.Join(vs, ", ") + "}", nil
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
