package gogen

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/agentc-dev/agentc/gen/model"
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

// objectDecoder renders decode<GoName>.
func (g *generator) objectDecoder(f *jen.File, t *model.Type) {
	n := len(t.Fields)
	var cases []jen.Code
	var keys, missing []jen.Code
	var required uint64
	var defaults []jen.Code
	for i, fd := range t.Fields {
		bit := jen.Id(fmt.Sprintf("0x%x", uint64(1)<<i))
		dst := jen.Id("v").Dot(fd.GoName)
		pre := []jen.Code{
			jen.If(jen.Id("seen").Op("&").Add(bit).Op("!=").Lit(0)).Block(
				jen.Comment("A repeated key: JSON.parse keeps the last value."),
				jen.Id("v").Dot(fd.GoName).Op("=").Add(g.zero(fd))),
			jen.Id("seen").Op("|=").Add(bit),
		}
		if fd.Presence == model.Optional {
			pre = append(pre, jen.Id("v").Dot(fd.GoName).Dot("Set").Op("=").True())
			dst = jen.Id("v").Dot(fd.GoName).Dot("Value")
		}
		body := append(pre,
			jen.Id("segs").Index(jen.Lit(i)).Index(jen.Lit(0)).Op("=").Len(jen.Id("d").Dot("issues")),
			jen.Id("d").Dot("push").Call(jen.Lit(fd.Name)))
		body = append(body, g.valueCode(fd.Type, dst, 0)...)
		body = append(body,
			jen.Id("d").Dot("pop").Call(),
			jen.Id("segs").Index(jen.Lit(i)).Index(jen.Lit(1)).Op("=").Len(jen.Id("d").Dot("issues")))
		cases = append(cases, jen.Case(jen.Lit(fd.Name)).Block(body...))
		keys = append(keys, jen.Lit(fd.Name))
		switch fd.Presence {
		case model.Required:
			required |= 1 << i
			missing = append(missing, jen.Comment(fd.Name+": required").Line().Add(missingIssue(fd.Type)))
		case model.Defaulted:
			v, err := g.goValue(fd.Type, fd.Default)
			if err != nil {
				v = jen.Id(fmt.Sprintf("/* bad default: %v */", err))
			}
			defaults = append(defaults, jen.If(jen.Id("seen").Op("&").Id(fmt.Sprintf("0x%x", uint64(1)<<i)).Op("==").Lit(0)).Block(
				jen.Id("v").Dot(fd.GoName).Op("=").Add(v)))
			missing = append(missing, jen.Comment(fd.Name+": defaulted").Line().Values())
		default:
			missing = append(missing, jen.Comment(fd.Name+": optional").Line().Values())
		}
	}
	cases = append(cases, jen.Default().Block(jen.Comment("Unknown keys are stripped, as zod does."), jen.Id("d").Dot("skip").Call()))
	name := t.GoName
	if n == 0 {
		g.comment(f, fmt.Sprintf("decode%s decodes %s, which has no fields: every key is stripped.", name, article(name)))
		f.Func().Params(jen.Id("d").Op("*").Id("decoder")).Id("decode" + name).Params(jen.Op("*").Id(name)).Block(
			jen.Id("d").Dot("emptyObject").Call())
		return
	}
	g.comment(f, fmt.Sprintf("decode%s decodes %s at the current path;\nissues come out in field order.", name, article(name)))
	stmts := []jen.Code{
		jen.List(jen.Id("more"), jen.Id("ok")).Op(":=").Id("d").Dot("objectStart").Call(),
		jen.If(jen.Op("!").Id("ok")).Block(jen.Return()),
		jen.Id("start").Op(":=").Len(jen.Id("d").Dot("issues")),
		jen.Var().Id("seen").Uint64(),
		jen.Var().Id("segs").Index(jen.Lit(max(n, 1))).Index(jen.Lit(2)).Int(),
		jen.For(jen.Id("more")).Block(
			jen.Id("key").Op(":=").Id("d").Dot("key").Call(),
			jen.If(jen.Id("d").Dot("err").Op("!=").Nil()).Block(jen.Return()),
			jen.Switch(jen.String().Call(jen.Id("key"))).Block(cases...),
			jen.If(jen.Id("d").Dot("err").Op("!=").Nil()).Block(jen.Return()),
			jen.Id("more").Op("=").Id("d").Dot("objectNext").Call(),
		),
		jen.If(jen.Id("d").Dot("err").Op("!=").Nil()).Block(jen.Return()),
	}
	stmts = append(stmts, defaults...)
	args := []jen.Code{jen.Id("start"), jen.Id("segs").Index(jen.Empty(), jen.Empty()), jen.Id("seen"),
		jen.Id("keys"+name).Index(jen.Empty(), jen.Empty()), jen.Id("missing"+name).Index(jen.Empty(), jen.Empty())}
	reorder := jen.Id("d").Dot("reorder").Call(args...)
	if 2+52+2*len(name) > maxLine { // the call on one line, indented twice
		reorder = jen.Id("d").Dot("reorder").Custom(jen.Options{Open: "(", Close: ")", Separator: ",", Multi: true}, args...)
	}
	stmts = append(stmts, jen.If(jen.Len(jen.Id("d").Dot("issues")).Op("!=").Id("start").Op("||").Id("seen").Op("&").Lit(required).Op("!=").Lit(required)).Block(
		reorder))
	f.Func().Params(jen.Id("d").Op("*").Id("decoder")).Id("decode" + name).Params(jen.Id("v").Op("*").Id(name)).Block(stmts...)
	g.comment(f, fmt.Sprintf("keys%s are %s's JSON keys, in field order.", name, name))
	f.Var().Id("keys" + name).Op("=").Index(jen.Op("...")).String().Add(lines(keys))
	g.comment(f, fmt.Sprintf("missing%s are the issues of absent fields (zod validates undefined);\nempty when absence is fine.", name))
	f.Var().Id("missing" + name).Op("=").Index(jen.Op("...")).Id("Issue").Add(lines(missing))
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

// valueCode decodes one value of type t into dst, an addressable
// expression (a field or a local variable).
func (g *generator) valueCode(t *model.Type, dst *jen.Statement, depth int) []jen.Code {
	d := jen.Id("d")
	ptr := jen.Op("&").Add(dst.Clone())
	switch t.Kind {
	case model.String:
		if calls := g.stringCalls(t, dst); len(calls) > 0 {
			return []jen.Code{jen.If(d.Clone().Dot("str").Call(ptr)).Block(calls...)}
		}
		return []jen.Code{d.Clone().Dot("str").Call(ptr)}
	case model.Literal:
		return []jen.Code{d.Clone().Dot("enum").Call(ptr, jen.Id(g.valuesVar([]string{t.Literal})), jen.Lit(valueMessage([]string{t.Literal})))}
	case model.Enum:
		return []jen.Code{d.Clone().Dot("enum").Call(jen.Parens(jen.Op("*").String()).Parens(ptr), jen.Id(g.valuesVar(t.Enum)), jen.Lit(valueMessage(t.Enum)))}
	case model.Boolean:
		return []jen.Code{d.Clone().Dot("boolean").Call(ptr)}
	case model.Number, model.Integer:
		fv := fmt.Sprintf("f%d", depth)
		then := numberCalls(t, jen.Id(fv))
		val := jen.Id(fv)
		if t.Kind == model.Integer {
			val = jen.Int64().Call(jen.Id(fv))
		}
		then = append(then, dst.Clone().Op("=").Add(val))
		return []jen.Code{jen.Block(
			jen.Var().Id(fv).Float64(),
			jen.If(d.Clone().Dot("num").Call(jen.Op("&").Id(fv))).Block(then...))}
	case model.Object:
		return []jen.Code{d.Clone().Dot("decode" + t.GoName).Call(ptr)}
	case model.Array:
		more, ok, n, e := fmt.Sprintf("more%d", depth), fmt.Sprintf("ok%d", depth), fmt.Sprintf("n%d", depth), fmt.Sprintf("e%d", depth)
		loop := []jen.Code{
			d.Clone().Dot("pushIndex").Call(jen.Id(n)),
			jen.Var().Id(e).Add(g.goType(t.Items)),
		}
		loop = append(loop, g.valueCode(t.Items, jen.Id(e), depth+1)...)
		loop = append(loop,
			d.Clone().Dot("pop").Call(),
			dst.Clone().Op("=").Append(dst.Clone(), jen.Id(e)),
			jen.Id(n).Op("++"),
			jen.If(d.Clone().Dot("err").Op("!=").Nil()).Block(jen.Return()),
			jen.Id(more).Op("=").Add(d.Clone()).Dot("arrayNext").Call(),
		)
		var counts []jen.Code
		if t.MinItems != nil {
			counts = append(counts, jen.If(jen.Id(n).Op("<").Lit(*t.MinItems)).Block(d.Clone().Dot("add").Call(sizeIssue("too_small", "array", *t.MinItems))))
		}
		if t.MaxItems != nil {
			counts = append(counts, jen.If(jen.Id(n).Op(">").Lit(*t.MaxItems)).Block(d.Clone().Dot("add").Call(sizeIssue("too_big", "array", *t.MaxItems))))
		}
		body := []jen.Code{
			jen.If(dst.Clone().Op("==").Nil()).Block(jen.Comment("[] decodes to an empty, non-nil slice (no allocation)."), dst.Clone().Op("=").Add(g.goType(t)).Values()),
			jen.Id(n).Op(":=").Lit(0),
			jen.For(jen.Id(more)).Block(loop...),
			jen.If(d.Clone().Dot("err").Op("!=").Nil()).Block(jen.Return()),
		}
		body = append(body, counts...)
		return []jen.Code{
			jen.If(jen.List(jen.Id(more), jen.Id(ok)).Op(":=").Add(d.Clone()).Dot("arrayStart").Call(), jen.Id(ok)).Block(body...),
		}
	}
	panic("gogen: unknown kind " + string(t.Kind)) // the loader admits no other kind
}

// stringCalls checks the string in s (an expression) against t's
// constraints, one runtime call each, in the order the zod schema runs its
// checks: strings.MinRunes, strings.MaxRunes, =~ patterns, named checks.
func (g *generator) stringCalls(t *model.Type, s *jen.Statement) []jen.Code {
	d := jen.Id("d")
	var calls []jen.Code
	if t.MinLength != nil {
		calls = append(calls, d.Clone().Dot("minRunes").Call(s.Clone(), jen.Lit(*t.MinLength)))
	}
	if t.MaxLength != nil {
		calls = append(calls, d.Clone().Dot("maxRunes").Call(s.Clone(), jen.Lit(*t.MaxLength)))
	}
	for _, p := range t.Patterns {
		lit, _ := zodgen.RegexLiteral(p.Regexp) // vet rejects a pattern without one
		calls = append(calls, d.Clone().Dot("pattern").Call(s.Clone(), jen.Id(g.patterns[p.Regexp]), jen.Lit(lit)))
	}
	for _, c := range t.Checks {
		calls = append(calls, d.Clone().Dot("check").Call(s.Clone(), jen.Id(g.checkVars[c])))
	}
	return calls
}

// numberCalls checks the number f against t's constraints, one runtime
// call each, as zod runs them: .int() first, and the bounds only for an
// integral value (zod aborts after a fractional one).
func numberCalls(t *model.Type, f *jen.Statement) []jen.Code {
	d := jen.Id("d")
	var bounds []jen.Code
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
		bounds = append(bounds, d.Clone().Dot(name).Call(f.Clone(), jen.Id(v), jen.Lit(v)))
	}
	if t.Kind != model.Integer {
		return bounds
	}
	if len(bounds) == 0 {
		return []jen.Code{d.Clone().Dot("intCheck").Call(f.Clone())}
	}
	return []jen.Code{jen.If(d.Clone().Dot("intCheck").Call(f.Clone())).Block(bounds...)}
}

// sizeIssue is zod's too_small/too_big issue for a length or item count.
func sizeIssue(code, origin string, n int) jen.Code {
	unit := map[string]string{"string": "characters", "array": "items"}[origin]
	d := jen.Dict{
		jen.Id("Origin"):    jen.Lit(origin),
		jen.Id("Code"):      jen.Lit(code),
		jen.Id("Inclusive"): jen.True(),
	}
	if code == "too_small" {
		d[jen.Id("Minimum")] = jen.Lit(fmt.Sprint(n))
		d[jen.Id("Message")] = jen.Lit(fmt.Sprintf("Too small: expected %s to have >=%d %s", origin, n, unit))
	} else {
		d[jen.Id("Maximum")] = jen.Lit(fmt.Sprint(n))
		d[jen.Id("Message")] = jen.Lit(fmt.Sprintf("Too big: expected %s to have <=%d %s", origin, n, unit))
	}
	return jen.Id("Issue").Values(d)
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

// missingIssue is the issue zod reports for an absent required field of
// type t (it validates undefined).
func missingIssue(t *model.Type) jen.Code {
	switch t.Kind {
	case model.Enum, model.Literal:
		vals := t.Enum
		if t.Kind == model.Literal {
			vals = []string{t.Literal}
		}
		var vs []jen.Code
		for _, v := range vals {
			vs = append(vs, jen.Lit(v))
		}
		return jen.Values(jen.Dict{
			jen.Id("Code"):    jen.Lit("invalid_value"),
			jen.Id("Values"):  jen.Index().String().Values(vs...),
			jen.Id("Message"): jen.Lit(valueMessage(vals)),
		})
	}
	expected := map[model.Kind]string{model.String: "string", model.Number: "number", model.Integer: "number", model.Boolean: "boolean", model.Array: "array", model.Object: "object"}[t.Kind]
	return jen.Values(jen.Dict{
		jen.Id("Code"):     jen.Lit("invalid_type"),
		jen.Id("Expected"): jen.Lit(expected),
		jen.Id("Message"):  jen.Lit("Invalid input: expected " + expected + ", received undefined"),
	})
}

// zero is the zero value of a field's Go type.
func (g *generator) zero(fd *model.Field) jen.Code {
	if fd.Presence == model.Optional {
		return g.fieldType(fd).Values()
	}
	switch fd.Type.Kind {
	case model.String, model.Literal, model.Enum:
		return jen.Lit("")
	case model.Number, model.Integer:
		return jen.Lit(0)
	case model.Boolean:
		return jen.False()
	case model.Array:
		return jen.Nil()
	}
	return g.fieldType(fd).Values()
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
