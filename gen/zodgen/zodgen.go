// Package zodgen renders model types as zod 4 schema expressions. It is the
// single place that decides what a spec constraint means in zod; the Go
// validators (package gogen) must report exactly the issues these schemas
// report, and the JSON Schema emitter must equal zod's toJSONSchema of them.
package zodgen

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentc-dev/agentc/gen/model"
)

// Expr returns the zod expression for t; z is the expression that names
// zod's namespace in the generated file ("z", or "tool.schema" inside an
// OpenCode tool file).
func Expr(t *model.Type, z string) string {
	var b strings.Builder
	expr(&b, t, z, "")
	return b.String()
}

// Shape returns the object literal of an object type's fields
// ("{\n  a: z.string(),\n}") as tool({args}) takes it; indent prefixes
// every line after the first.
func Shape(t *model.Type, z, indent string) string {
	var b strings.Builder
	shape(&b, t, z, indent)
	return b.String()
}

func shape(b *strings.Builder, t *model.Type, z, indent string) {
	b.WriteString("{\n")
	for _, f := range t.Fields {
		fmt.Fprintf(b, "%s  %s: ", indent, f.TSName)
		expr(b, f.Type, z, indent+"  ")
		switch f.Presence {
		case model.Optional:
			b.WriteString(".optional()")
		case model.Defaulted:
			fmt.Fprintf(b, ".default(%s)", f.Default)
		}
		if d := Description(f.Type); d != "" {
			fmt.Fprintf(b, ".describe(%s)", jsString(d))
		}
		b.WriteString(",\n")
	}
	b.WriteString(indent + "}")
}

func expr(b *strings.Builder, t *model.Type, z, indent string) {
	switch t.Kind {
	case model.String:
		b.WriteString(z + ".string()")
		if t.MinLength != nil {
			fmt.Fprintf(b, ".min(%d)", *t.MinLength)
		}
		if t.MaxLength != nil {
			fmt.Fprintf(b, ".max(%d)", *t.MaxLength)
		}
		for _, p := range t.Patterns {
			fmt.Fprintf(b, ".regex(new RegExp(%s))", jsString(p.Regexp))
		}
		for _, c := range t.Checks {
			var conds []string
			for _, p := range c.Reject {
				conds = append(conds, fmt.Sprintf("!new RegExp(%s).test(s)", jsString(p.Regexp)))
			}
			for _, p := range c.Match {
				conds = append(conds, fmt.Sprintf("new RegExp(%s).test(s)", jsString(p.Regexp)))
			}
			fmt.Fprintf(b, ".refine((s) => %s, { message: %s })", strings.Join(conds, " && "), jsString(c.Message))
		}
	case model.Number, model.Integer:
		b.WriteString(z + ".number()")
		if t.Kind == model.Integer {
			b.WriteString(".int()")
		}
		if m := t.Minimum; m != nil {
			fmt.Fprintf(b, ".%s(%s)", map[bool]string{true: "gt", false: "gte"}[m.Exclusive], m.Value)
		}
		if m := t.Maximum; m != nil {
			fmt.Fprintf(b, ".%s(%s)", map[bool]string{true: "lt", false: "lte"}[m.Exclusive], m.Value)
		}
	case model.Boolean:
		b.WriteString(z + ".boolean()")
	case model.Enum:
		var vs []string
		for _, v := range t.Enum {
			vs = append(vs, jsString(v))
		}
		fmt.Fprintf(b, "%s.enum([%s])", z, strings.Join(vs, ", "))
	case model.Literal:
		fmt.Fprintf(b, "%s.literal(%s)", z, jsString(t.Literal))
	case model.Array:
		b.WriteString(z + ".array(")
		expr(b, t.Items, z, indent)
		b.WriteString(")")
		if t.MinItems != nil {
			fmt.Fprintf(b, ".min(%d)", *t.MinItems)
		}
		if t.MaxItems != nil {
			fmt.Fprintf(b, ".max(%d)", *t.MaxItems)
		}
	case model.Object:
		b.WriteString(z + ".object(")
		shape(b, t, z, indent)
		b.WriteString(")")
	default:
		panic(fmt.Sprintf("zodgen: unknown kind %q", t.Kind)) // the loader admits no other kind
	}
}

// Description is the text a field's .describe() carries: its doc, followed
// by the doc of each named check (OpenCode drops refinements from the
// schema the model sees, so the rule must be stated in words).
func Description(t *model.Type) string {
	parts := []string{}
	if t.Doc != "" {
		parts = append(parts, t.Doc)
	}
	for _, c := range t.Checks {
		parts = append(parts, c.Doc)
	}
	return strings.Join(parts, " ")
}

// jsString quotes s as a JavaScript string literal (JSON is a subset, with
// U+2028/U+2029 escaped by encoding/json).
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
