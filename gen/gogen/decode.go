package gogen

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentc-dev/agentc/gen/js"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/names"
)

// decoders writes decode.go: a Decode function per tool and a method per
// argument object, string constraint set and number constraint set.
func (g *generator) decoders(src *goSource) {
	g.aliases(src,
		alias{"decoder is the runtime's one-pass JSON decoder, which the decoders below drive.", "decoder", "Decoder"},
		alias{"Issue is one validation problem exactly as zod 4 reports it (see agentrt.Issue).", "Issue", "Issue"},
		alias{"Issues is the error a decoder returns for well-formed JSON that fails validation:\n" +
			"every issue, in zod's order.", "Issues", "Issues"},
		alias{"SyntaxError is the error a decoder returns for input that is not JSON.", "SyntaxError", "SyntaxError"},
	)

	for _, t := range g.s.Tools {
		a := t.Args.GoName
		g.unit(src, func(h *unitHash) { h.str("Decode"); h.str(a); h.str(t.Name) }, func() { g.decodeFunc(src, a, t.Name) })
	}
	for _, t := range g.decoded {
		g.unit(src, func(h *unitHash) { h.str("decode"); h.of(t) }, func() { g.objectDecoder(src, t) })
	}
	// One declaration each, named after its field, not a var block: a
	// name added to a block would realign every other.
	if len(g.valuesOrder) > 0 {
		src.doc("The accepted values of enums and literals, in the spec's order (zod's \"values\").")
		for _, t := range g.valuesOrder {
			src.text("var %s = []string{%s}\n", g.values[t], quoteJoin(enumValues(t)))
		}
		src.add()
	}
	if len(g.patternOrder) > 0 {
		src.doc("The spec's patterns (RE2), as Go, CUE and the translated ECMAScript regexes read them alike.")
		for _, t := range g.patternOrder {
			for i, p := range t.Patterns {
				src.text("var %s = %s.MustCompile(%s)\n", g.patternVar(t, i), src.use("regexp"), strconv.Quote(p.Regexp))
			}
		}
		src.add()
	}
	for _, c := range g.checkOrder {
		src.doc(fmt.Sprintf("%s is the named check #%s: %s", g.checkVars[c], c.Name, strings.Join(strings.Fields(c.Doc), " ")))
		src.text("var %s = &%s.NamedCheck{\n\tMessage: %s,\n", g.checkVars[c], src.use(g.runtime), strconv.Quote(c.Message))
		for _, ps := range []struct {
			key      string
			patterns []model.Pattern
		}{{"Reject", c.Reject}, {"Match", c.Match}} {
			if len(ps.patterns) > 0 {
				src.text("\t%s: []*%s.Regexp{\n", ps.key, src.use("regexp"))
				for _, p := range ps.patterns {
					src.text("\t\t%s.MustCompile(%s),\n", src.use("regexp"), strconv.Quote(p.Regexp))
				}
				src.WriteString("\t},\n")
			}
		}
		src.WriteString("}\n")
		src.add()
	}
}

// decodeFunc writes Decode<a>, the decoder of tool name's arguments (a).
func (g *generator) decodeFunc(src *goSource, a, name string) {
	src.doc("Decode" + a + " decodes and validates the arguments of " + strconv.Quote(name) + " from JSON in one pass, as " +
		"the generated zod schema parses JSON.parse(data): it returns Issues listing zod 4's issues for well-formed " +
		"JSON that fails validation, or a *SyntaxError for input that is not JSON. Defaults are applied and unknown " +
		"keys are dropped.")
	src.text(`func Decode%[1]s(data []byte) (%[1]s, error) {
	var v %[1]s
	var d decoder
	d.Reset(data)
	decode%[1]s(&d, &v)
	if err := d.End(); err != nil {
		return %[1]s{}, err
	}
	return v, nil
}
`, a)
	src.add()
}

// objectDecoder writes decode<GoName>, the decoder of object type t, and
// the tables it reads: keys<GoName> and missing<GoName>.
func (g *generator) objectDecoder(src *goSource, t *model.Type) {
	name := t.GoName
	if len(t.Fields) == 0 {
		src.doc("decode" + name + " decodes " + article(name) + ", which has no fields: every key is stripped.")
		src.text(`func decode%[1]s(d *decoder, _ *%[1]s) {
	d.Object(nil, nil, nil)
}
`, name)
		src.add()
		return
	}
	// The fields' indices, seen bits and tables follow the order zod
	// checks the shape's keys in, JavaScript's (array indices first).
	fields := js.KeyOrder(t.Fields, func(f *model.Field) string { return f.Name })
	order := "field order"
	if !slices.Equal(fields, t.Fields) {
		order = "JavaScript's key order (array indices first, ascending)"
	}
	src.doc("decode" + name + " decodes " + article(name) + " at the current path; issues come out in " + order + ".")
	defaults := slices.ContainsFunc(fields, func(fd *model.Field) bool { return fd.Presence == model.Defaulted })
	src.text("func decode%s(d *decoder, v *%s) {\n\t", name, name)
	if defaults {
		src.text("seen, ok := ")
	}
	// The runtime decodes the object (agentrt.Decoder.Object) and calls
	// back for each field's value: the decoder holds what the spec decides.
	body := func() {
		src.text("switch i {\n")
		for i, fd := range fields {
			src.text("case %d:\n", i)
			src.indented(1, func() { g.field(src, fd) })
		}
		src.text("}\n")
	}
	if 1+len("seen, ok := d.Object(keys, missing, func(i int) {")+2*len(name) > maxLine { // the call on a line
		src.text(`d.Object(
		keys%[1]s,
		missing%[1]s,
		func(i int) {
`, name)
		src.indented(3, body)
		src.text("\t\t},\n\t)\n")
	} else {
		src.text("d.Object(keys%[1]s, missing%[1]s, func(i int) {\n", name)
		src.indented(2, body)
		src.text("\t})\n")
	}
	if defaults {
		src.text("\tif !ok {\n\t\treturn\n\t}\n")
	}
	for i, fd := range fields {
		if fd.Presence == model.Defaulted {
			v, _ := g.goValue(src, fd.Type, fd.Default) // Check refuses a default Go cannot hold
			src.text(`	if seen&%s == 0 {
		v.%s = %s
	}
`, fmt.Sprintf("%#x", uint64(1)<<i), fd.GoName, v)
		}
	}
	src.text("}\n")
	src.add()

	src.doc("keys" + name + " are " + name + "'s JSON keys, in " + order + ".")
	src.text("var keys%s = []string{\n", name)
	for _, fd := range fields {
		src.text("\t%q,\n", fd.Name)
	}
	src.text("}\n")
	src.add()

	src.doc("missing" + name + " are the issues of absent fields (zod validates undefined); empty when absence is fine.")
	src.text("var missing%s = []Issue{\n", name)
	src.indented(1, func() {
		for _, fd := range fields {
			// "// name: presence", or the text as it is when it starts a
			// comment (a field named "//x"). It is one line of no control
			// character: Check refuses a name a struct tag cannot carry.
			if c := fd.Name + ": " + presenceNames[fd.Presence]; strings.HasPrefix(c, "//") {
				src.text("%s\n", c)
			} else {
				src.text("// %s\n", c)
			}
			if fd.Presence != model.Required {
				src.text("{},\n")
				continue
			}
			src.text("{\n")
			src.indented(1, func() { g.missingIssue(src, fd.Type) })
			src.text("},\n")
		}
	})
	src.text("}\n")
	src.add()
}

// presenceNames name the presences in the missing tables' comments.
var presenceNames = map[model.Presence]string{model.Required: "required", model.Defaulted: "defaulted", model.Optional: "optional"}

// article puts "a" or "an" before a type name, by its first letter.
func article(name string) string {
	if name != "" && strings.ContainsRune("AEIOU", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

// field writes the decoding of field fd of v: the field reset (a repeated
// key replaces the value before it; present, for an optional field) and
// its value.
func (g *generator) field(src *goSource, fd *model.Field) {
	dst := "v." + fd.GoName
	if fd.Presence == model.Optional {
		src.text("%s = Opt[%s]{Set: true}\n", dst, g.goTypeText(fd.Type))
		dst += ".Value"
	} else {
		src.text("%s = %s\n", dst, g.zero(fd.Type))
	}
	g.value(src, fd.Type, dst)
}

// value writes the decoding of one value of type t into dst, an
// addressable expression: a field, or *e, a list's element.
func (g *generator) value(src *goSource, t *model.Type, dst string) {
	ptr := "&" + dst
	if strings.HasPrefix(dst, "*") {
		ptr = dst[1:]
	}
	switch t.Kind {
	case model.String:
		if t.MinLength == nil && t.MaxLength == nil && len(t.Patterns) == 0 && len(t.Checks) == 0 { // nothing to check after the read
			src.text("d.Str(%s)\n", ptr)
			return
		}
		src.text("if d.Str(%s) {\n", ptr)
		src.indented(1, func() { g.stringChecks(src, t, dst) })
		src.text("}\n")
	case model.Literal:
		src.text("d.Enum(%s, %s, %q)\n", ptr, g.values[t], valueMessage(enumValues(t)))
	case model.Enum:
		src.text("d.Enum((*string)(%s), %s, %q)\n", ptr, g.values[t], valueMessage(enumValues(t)))
	case model.Boolean:
		src.text("d.Bool(%s)\n", ptr)
	case model.Number:
		// Num sets the number only when it is one (finite).
		if t.Minimum == nil && t.Maximum == nil {
			src.text("d.Num(%s)\n", ptr)
			return
		}
		src.text("if d.Num(%s) {\n", ptr)
		src.indented(1, func() { g.numberChecks(src, t, dst) })
		src.text("}\n")
	case model.Integer:
		src.text("var f float64\nif d.Num(&f) {\n")
		src.indented(1, func() {
			g.numberChecks(src, t, "f")
			src.text("%s = int64(f)\n", dst)
		})
		src.text("}\n")
	case model.Object:
		src.text("decode%s(d, %s)\n", t.GoName, ptr)
	case model.Array:
		// The runtime decodes the list (agentrt.Array) and calls back for
		// each element's value, in place.
		checks := t.MinItems != nil || t.MaxItems != nil
		lhs := ""
		if checks {
			lhs = "n, ok := "
		}
		src.text("%s%s.Array(d, %s, func(e *%s) {\n", lhs, src.use(g.runtime), ptr, g.goTypeText(t.Items))
		src.indented(1, func() { g.value(src, t.Items, "*e") })
		src.text("})\n")
		if checks {
			src.text("if ok {\n")
			if t.MinItems != nil {
				src.text("\td.MinItems(n, %d)\n", *t.MinItems)
			}
			if t.MaxItems != nil {
				src.text("\td.MaxItems(n, %d)\n", *t.MaxItems)
			}
			src.text("}\n")
		}
	default:
		panic("gogen: unknown kind " + string(t.Kind)) // the loader admits no other kind
	}
}

// stringChecks checks the string in s (an expression) against t's
// constraints, one runtime call each, in the order the zod schema runs its
// checks: strings.MinRunes, strings.MaxRunes, =~ patterns, named checks.
func (g *generator) stringChecks(src *goSource, t *model.Type, s string) {
	if t.MinLength != nil {
		src.text("d.MinRunes(%s, %d)\n", s, *t.MinLength)
	}
	if t.MaxLength != nil {
		src.text("d.MaxRunes(%s, %d)\n", s, *t.MaxLength)
	}
	for i, p := range t.Patterns {
		src.text("d.Pattern(%s, %s, %q)\n", s, g.patternVar(t, i), js.RegexLiteral(p.Regexp))
	}
	for _, c := range t.Checks {
		src.text("d.Check(%s, %s)\n", s, g.checkVars[c])
	}
}

// numberChecks checks the number in f (an expression) against t's constraints,
// one runtime call each, as zod runs them: .int() first, and the bounds
// only for an integral value (zod aborts after a fractional one).
func (g *generator) numberChecks(src *goSource, t *model.Type, f string) {
	integer := t.Kind == model.Integer
	bounds := t.Minimum != nil || t.Maximum != nil
	switch {
	case !integer:
	case !bounds:
		src.text("d.Int(%s)\n", f)
		return
	default:
		src.text("if d.Int(%s) {\n", f)
		src.depth++
	}
	for _, b := range []struct {
		bound           *model.Bound
		inclusive, excl string
	}{{t.Minimum, "Gte", "Gt"}, {t.Maximum, "Lte", "Lt"}} {
		if b.bound == nil {
			continue
		}
		name := b.inclusive
		if b.bound.Exclusive {
			name = b.excl
		}
		v := js.Number(b.bound.Value)
		// A JavaScript number literal is a Go constant too ("1e+21").
		src.text("d.%s(%s, %s, %q)\n", name, f, v, v)
	}
	if integer {
		src.depth--
		src.text("}\n")
	}
}

// valueMessage is zod's invalid_value message.
func valueMessage(values []string) string {
	if len(values) == 1 {
		return `Invalid input: expected "` + values[0] + `"`
	}
	return `Invalid option: expected one of "` + strings.Join(values, `"|"`) + `"`
}

// expected names the JSON type of a kind as zod's invalid_type issue does.
var expected = map[model.Kind]string{model.String: "string", model.Number: "number", model.Integer: "number", model.Boolean: "boolean", model.Array: "array", model.Object: "object"}

// missingIssue writes the fields of the issue zod reports for an absent
// required field of type t (it validates undefined), sorted by name, as
// gofmt lays them out.
func (g *generator) missingIssue(src *goSource, t *model.Type) {
	switch t.Kind {
	case model.Enum, model.Literal:
		vals := t.Enum
		if t.Kind == model.Literal {
			vals = []string{t.Literal}
		}
		keyedRows(&src.Buffer, src.depth, [][2]string{
			{"Code", `"invalid_value"`},
			{"Message", strconv.Quote(valueMessage(vals))},
			{"Values", "[]string{" + quoteJoin(vals) + "}"},
		}, ",")
		return
	}
	expected := expected[t.Kind]
	keyedRows(&src.Buffer, src.depth, [][2]string{
		{"Code", `"invalid_type"`},
		{"Expected", strconv.Quote(expected)},
		{"Message", strconv.Quote("Invalid input: expected " + expected + ", received undefined")},
	}, ",")
}

// quoteJoin is vals quoted and comma-separated, as in a composite literal.
func quoteJoin(vals []string) string {
	var b []byte
	for i, v := range vals {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendQuote(b, v)
	}
	return string(b)
}

// zero is the zero value of a field of type t, not optional.
func (g *generator) zero(t *model.Type) string {
	switch t.Kind {
	case model.String, model.Literal, model.Enum:
		return `""`
	case model.Number, model.Integer:
		return "0"
	case model.Boolean:
		return "false"
	case model.Array:
		return "nil"
	}
	return g.goTypeText(t) + "{}"
}

// maxSafeInteger is JavaScript's Number.MAX_SAFE_INTEGER.
const maxSafeInteger = 1<<53 - 1

// goValue is the Go expression of the JSON value raw as type t (a
// default), or an error for a value Go cannot hold (an integer beyond
// int64) or holds otherwise than zod (an integer beyond maxSafeInteger). An object literal of two or more fields is written one field a
// line, unaligned, for gofmt to lay out (src is then odd).
func (g *generator) goValue(src *goSource, t *model.Type, raw json.RawMessage) (string, error) {
	switch t.Kind {
	case model.String, model.Literal:
		var s string
		err := json.Unmarshal(raw, &s)
		return strconv.Quote(s), err
	case model.Enum:
		var s string
		err := json.Unmarshal(raw, &s)
		return g.enumNames[t] + names.GoEnumValue(s), err
	case model.Number:
		// A number beyond float64 is the one that fails: js.Check refuses
		// it, at the same field.
		v, _ := strconv.ParseFloat(string(raw), 64)
		lit := fmt.Sprintf("%#v", v) // a float64 literal: %#v's, with ".0" after a whole number
		if !strings.Contains(lit, ".") && !strings.Contains(lit, "e") {
			lit += ".0"
		}
		return lit, nil
	case model.Integer:
		// zod holds a default as a JavaScript number, which rounds an
		// integer beyond 2^53 (and its .int() refuses one as an argument).
		var v int64
		err := json.Unmarshal(raw, &v)
		if err == nil && (v > maxSafeInteger || v < -maxSafeInteger) {
			err = fmt.Errorf("%d is beyond ±%d, the integers zod's .int() accepts", v, int64(maxSafeInteger))
			if n := strconv.FormatInt(v, 10); js.Number(json.Number(n)) != n {
				err = fmt.Errorf("%w, and zod's default would be %s, the JavaScript number nearest to it", err, js.Number(json.Number(n)))
			}
		}
		return "int64(" + strconv.FormatInt(v, 10) + ")", err
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
			v, err := g.goValue(src, t.Items, it)
			if err != nil {
				return "", err
			}
			vs[i] = v
		}
		return g.goTypeText(t) + "{" + strings.Join(vs, ", ") + "}", nil
	case model.Object:
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return "", err
		}
		var keys, vals []string // sorted by key
		for _, fd := range t.Fields {
			r, ok := m[fd.Name]
			if !ok {
				continue
			}
			v, err := g.goValue(src, fd.Type, r)
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
		src.odd = true
		var b strings.Builder
		b.WriteString(t.GoName + "{\n")
		for i := range keys {
			b.WriteString(keys[i] + ": " + vals[i] + ",\n")
		}
		return b.String() + "}", nil
	}
	return "", fmt.Errorf("no Go value for kind %s", t.Kind)
}

// enumValues are the values an enum or a literal admits.
func enumValues(t *model.Type) []string {
	if t.Kind == model.Literal {
		return []string{t.Literal}
	}
	return t.Enum
}
