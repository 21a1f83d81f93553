package gogen

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/names"
)

// tools renders tools.go: the Tool enumeration with its staleness guard,
// and every argument and result type.
func (g *generator) tools(f *jen.File) {
	s := g.s
	g.comment(f, "ContractName and ContractRevision identify the spec this package was generated from.")
	f.Const().Defs(
		jen.Id("ContractName").Op("=").Lit(s.Contract.Name),
		jen.Id("ContractRevision").Op("=").Lit(s.Contract.Revision),
	)

	g.comment(f, "Tool identifies one of the contract's tools.")
	f.Type().Id("Tool").Int()
	var consts []jen.Code
	for i, t := range s.Tools {
		text := fmt.Sprintf("Tool%s is %q", t.GoName, t.Name)
		if len(t.Aliases) > 0 {
			text += fmt.Sprintf(" (also called %s)", strings.Join(quoteAll(t.Aliases), ", "))
		}
		text += fmt.Sprintf(", executed by the %s.", map[bool]string{true: "gateway", false: "sandbox"}[t.Execution.GatewayExecuted()])
		if t.Deprecated != "" {
			text += "\n\nDeprecated: " + t.Deprecated
		}
		c := jen.Id("Tool" + t.GoName)
		if i == 0 {
			c = c.Id("Tool").Op("=").Iota()
		}
		consts = append(consts, doc(text), c)
	}
	f.Const().Defs(consts...)
	g.comment(f, "numTools is the number of tools.")
	f.Const().Id("numTools").Op("=").Lit(len(s.Tools))

	// The staleness guard, in the manner of stringer.
	guard := []jen.Code{
		jen.Comment("// An \"invalid array index\" compiler error here means the tool constants or the\n// runtime changed since this package was generated: run agentc gen again."),
		jen.Var().Id("x").Index(jen.Lit(1)).Struct(),
		jen.Id("_").Op("=").Id("x").Index(jen.Id("runtimeVersion").Op("-").Lit(RuntimeVersion)),
	}
	for i, t := range s.Tools {
		guard = append(guard, jen.Id("_").Op("=").Id("x").Index(jen.Id("Tool"+t.GoName).Op("-").Lit(i)))
	}
	guard = append(guard, jen.Id("_").Op("=").Id("x").Index(jen.Len(jen.Id("toolTable")).Op("-").Id("numTools")))
	f.Func().Id("_").Params().Block(guard...)

	g.comment(f, "toolInfo is what the package knows about a tool.")
	f.Type().Id("toolInfo").Struct(
		jen.Id("name").String(),
		jen.Id("aliases").Index().String(),
		jen.Id("fileName").String(),
		jen.Id("gateway").Bool(),
		jen.Id("fingerprint").String(),
	)
	var rows []jen.Code
	for _, t := range s.Tools {
		var al jen.Code // none: the field is left out
		if len(t.Aliases) > 0 {
			var as []jen.Code
			for _, a := range t.Aliases {
				as = append(as, jen.Lit(a))
			}
			al = jen.Index().String().Values(as...)
		}
		rows = append(rows, jen.Id("Tool"+t.GoName).Op(":").Add(keyed(
			"name", jen.Lit(t.Name),
			"aliases", al,
			"fileName", jen.Lit(t.FileName),
			"gateway", jen.Lit(t.Execution.GatewayExecuted()),
			"fingerprint", jen.Lit(t.Fingerprint))))
	}
	g.comment(f, "toolTable holds each tool's facts, indexed by Tool.")
	f.Var().Id("toolTable").Op("=").Index(jen.Op("...")).Id("toolInfo").Add(lines(rows))

	g.comment(f, "Name returns the tool's name, as the model calls it.")
	f.Func().Params(jen.Id("t").Id("Tool")).Id("Name").Params().String().Block(jen.Return(jen.Id("toolTable").Index(jen.Id("t")).Dot("name")))
	g.comment(f, "String returns the tool's name.")
	f.Func().Params(jen.Id("t").Id("Tool")).Id("String").Params().String().Block(
		jen.If(jen.Id("t").Op("<").Lit(0).Op("||").Id("t").Op(">=").Id("numTools")).Block(
			jen.Return(jen.Lit("Tool(").Op("+").Qual("strconv", "Itoa").Call(jen.Int().Call(jen.Id("t"))).Op("+").Lit(")"))),
		jen.Return(jen.Id("toolTable").Index(jen.Id("t")).Dot("name")))
	g.comment(f, "Aliases returns the other names the gateway accepts for the tool.")
	f.Func().Params(jen.Id("t").Id("Tool")).Id("Aliases").Params().Index().String().Block(jen.Return(jen.Qual("slices", "Clone").Call(jen.Id("toolTable").Index(jen.Id("t")).Dot("aliases"))))
	g.comment(f, "FileName returns the base name of the tool's OpenCode files (OpenCode's tool id).")
	f.Func().Params(jen.Id("t").Id("Tool")).Id("FileName").Params().String().Block(jen.Return(jen.Id("toolTable").Index(jen.Id("t")).Dot("fileName")))
	g.comment(f, "GatewayExecuted reports whether the gateway runs the tool (Handler has a method for it).")
	f.Func().Params(jen.Id("t").Id("Tool")).Id("GatewayExecuted").Params().Bool().Block(jen.Return(jen.Id("toolTable").Index(jen.Id("t")).Dot("gateway")))
	g.comment(f, "Fingerprint returns a stable hash of the tool's wire contract (name and arguments).")
	f.Func().Params(jen.Id("t").Id("Tool")).Id("Fingerprint").Params().String().Block(jen.Return(jen.Id("toolTable").Index(jen.Id("t")).Dot("fingerprint")))
	g.comment(f, "Tools returns every tool, sorted by name.")
	f.Func().Id("Tools").Params().Index().Id("Tool").Block(
		jen.Id("out").Op(":=").Make(jen.Index().Id("Tool"), jen.Id("numTools")),
		jen.For(jen.Id("i").Op(":=").Range().Id("out")).Block(jen.Id("out").Index(jen.Id("i")).Op("=").Id("Tool").Call(jen.Id("i"))),
		jen.Return(jen.Id("out")))
	g.comment(f, "LookupTool resolves a tool name or alias (case-sensitive).")
	var cases []jen.Code
	for _, t := range s.Tools {
		var names []jen.Code
		for _, n := range t.AllNames() {
			names = append(names, jen.Lit(n))
		}
		cases = append(cases, jen.Case(names...).Block(jen.Return(jen.Id("Tool"+t.GoName), jen.True())))
	}
	f.Func().Id("LookupTool").Params(jen.Id("name").String()).Params(jen.Id("Tool"), jen.Bool()).Block(
		jen.Switch(jen.Id("name")).Block(cases...),
		jen.Return(jen.Lit(-1), jen.False()))

	// Types.
	done := map[*model.Type]bool{}
	for _, t := range s.Tools {
		g.typesUnit(f, t.Args, fmt.Sprintf("%s are the arguments of tool %q.", t.Args.GoName, t.Name), done)
		if t.Result != nil {
			g.typesUnit(f, t.Result, fmt.Sprintf("%s is the result data of tool %q.", t.Result.GoName, t.Name), done)
		}
	}
}

// typesUnit is objectTypes as a unit (see unit), when none of the types it
// declares was declared already: its text is then a function of t and
// where.
func (g *generator) typesUnit(f *jen.File, t *model.Type, where string, done map[*model.Type]bool) {
	var declares []*model.Type
	var reach func(x *model.Type)
	reach = func(x *model.Type) {
		switch x.Kind {
		case model.Object:
			declares = append(declares, x)
			for _, fd := range x.Fields {
				reach(fd.Type)
			}
		case model.Array:
			reach(x.Items)
		case model.Enum:
			declares = append(declares, x)
		}
	}
	reach(t)
	for _, x := range declares {
		if done[x] {
			g.objectTypes(f, t, where, done)
			return
		}
	}
	g.unit(f, func(h *unitHash) { h.str("types"); h.str(where); h.of(t) }, func() { g.objectTypes(f, t, where, done) })
	for _, x := range declares {
		done[x] = true
	}
}

func quoteAll(ss []string) []string {
	var out []string
	for _, s := range ss {
		out = append(out, fmt.Sprintf("%q", s))
	}
	return out
}

// objectTypes declares t's struct and the types below it; where is the
// first sentence of its doc comment, saying where the object appears.
func (g *generator) objectTypes(f *jen.File, t *model.Type, where string, done map[*model.Type]bool) {
	if done[t] {
		return
	}
	done[t] = true
	var fields []jen.Code
	for _, fd := range t.Fields {
		text := fd.Doc()
		if text == "" {
			text = fmt.Sprintf("%s is the %q field of %s.", fd.GoName, fd.Name, t.GoName)
		}
		switch fd.Presence {
		case model.Optional:
			text += "\n\nOptional: Set is false when the key is absent."
		case model.Defaulted:
			text += fmt.Sprintf("\n\nDefault: %s (when the key is absent).", fd.Default)
		}
		if lim := limits(fd.Type); lim != "" {
			text += "\n\n" + lim
		}
		tag := fd.Name
		if fd.Presence == model.Optional {
			tag += ",omitzero"
		}
		fields = append(fields, doc(text), jen.Id(fd.GoName).Add(g.fieldType(fd)).Tag(map[string]string{"json": tag}))
	}
	text := where
	if t.Doc != "" {
		text += "\n\n" + t.Doc
	}
	f.Add(doc(text))
	f.Type().Id(t.GoName).Struct(fields...)
	var walk func(x *model.Type, where string)
	walk = func(x *model.Type, where string) {
		switch x.Kind {
		case model.Object:
			g.objectTypes(f, x, fmt.Sprintf("%s is %s.", x.GoName, where), done)
		case model.Array:
			walk(x.Items, "one item of "+strings.TrimPrefix(where, "the value of "))
		case model.Enum:
			if done[x] {
				return
			}
			done[x] = true
			name := g.enumNames[x]
			g.comment(f, fmt.Sprintf("%s is one of: %s.", name, strings.Join(quoteAll(x.Enum), ", ")))
			f.Type().Id(name).String()
			var cs []jen.Code
			for _, v := range x.Enum {
				cs = append(cs, jen.Comment(fmt.Sprintf("%s%s is %q.", name, names.GoEnumValue(v), v)), jen.Id(name+names.GoEnumValue(v)).Id(name).Op("=").Lit(v))
			}
			f.Const().Defs(cs...)
		}
	}
	for _, fd := range t.Fields {
		walk(fd.Type, "the value of "+t.GoName+"."+fd.GoName)
	}
}

// limits states a type's constraints for a doc comment.
func limits(t *model.Type) string {
	var parts []string
	switch t.Kind {
	case model.String:
		if t.MinLength != nil {
			parts = append(parts, fmt.Sprintf("at least %d code points", *t.MinLength))
		}
		if t.MaxLength != nil {
			parts = append(parts, fmt.Sprintf("at most %d code points", *t.MaxLength))
		}
		for _, p := range t.Patterns {
			parts = append(parts, fmt.Sprintf("matches %s", p.Regexp))
		}
		for _, c := range t.Checks {
			parts = append(parts, fmt.Sprintf("passes check %s (%q)", c.Name, c.Message))
		}
	case model.Literal:
		parts = append(parts, fmt.Sprintf("always %q", t.Literal))
	case model.Array:
		if t.MinItems != nil {
			parts = append(parts, fmt.Sprintf("at least %d items", *t.MinItems))
		}
		if t.MaxItems != nil {
			parts = append(parts, fmt.Sprintf("at most %d items", *t.MaxItems))
		}
		if sub := limits(t.Items); sub != "" {
			parts = append(parts, "each item: "+strings.TrimSuffix(sub, "."))
		}
	case model.Number, model.Integer:
		if m := t.Minimum; m != nil {
			parts = append(parts, fmt.Sprintf("%s %s", map[bool]string{true: ">", false: ">="}[m.Exclusive], m.Value))
		}
		if m := t.Maximum; m != nil {
			parts = append(parts, fmt.Sprintf("%s %s", map[bool]string{true: "<", false: "<="}[m.Exclusive], m.Value))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Constraints: " + strings.Join(parts, "; ") + "."
}

// goValue returns the Go expression of the JSON value raw as type t (a
// default).
func (g *generator) goValue(t *model.Type, raw json.RawMessage) (jen.Code, error) {
	switch t.Kind {
	case model.String, model.Literal:
		var s string
		err := json.Unmarshal(raw, &s)
		return jen.Lit(s), err
	case model.Enum:
		var s string
		err := json.Unmarshal(raw, &s)
		return jen.Id(g.enumNames[t] + names.GoEnumValue(s)), err
	case model.Number:
		var v float64
		err := json.Unmarshal(raw, &v)
		return jen.Lit(v), err
	case model.Integer:
		var v int64
		err := json.Unmarshal(raw, &v)
		return jen.Lit(v), err
	case model.Boolean:
		var v bool
		err := json.Unmarshal(raw, &v)
		return jen.Lit(v), err
	case model.Array:
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, err
		}
		var vs []jen.Code
		for _, it := range items {
			v, err := g.goValue(t.Items, it)
			if err != nil {
				return nil, err
			}
			vs = append(vs, v)
		}
		return g.goType(t).Values(vs...), nil
	case model.Object:
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		d := jen.Dict{}
		for _, fd := range t.Fields {
			r, ok := m[fd.Name]
			if !ok {
				continue
			}
			v, err := g.goValue(fd.Type, r)
			if err != nil {
				return nil, err
			}
			if fd.Presence == model.Optional {
				v = jen.Id("Some").Call(v)
			}
			d[jen.Id(fd.GoName)] = v
		}
		return jen.Id(t.GoName).Values(d), nil
	}
	return nil, fmt.Errorf("no Go value for kind %s", t.Kind)
}
