// Package zodgen renders model types as zod 4 schema expressions. It is the
// single place that decides what a spec constraint means in zod; the Go
// decoders (package gogen) report exactly the issues these schemas report,
// and the JSON Schema emitter equals zod's toJSONSchema of them.
//
// # What each model construct renders to
//
// z is the namespace expression passed in ("z", or "tool.schema" in an
// OpenCode tool file). Checks are attached in the order listed, which is the
// order zod reports their issues in.
//
//	String        z.string()
//	  MinLength n   .min(n, { when: () => false } as {})   JSON Schema minLength only (never runs)
//	  MaxLength n   .max(n, { when: () => false } as {})   JSON Schema maxLength only (never runs)
//	  either        .check((ctx) => { … })           the code-point length check, below
//	  Patterns      .regex(/src/u)                   per pattern, src = RegexSource
//	  Checks        .refine((s) => …, { message })   per named check, below
//	Number        z.number()
//	Integer       z.number().int()                 safe integers only (zod's "safeint")
//	  Minimum       .gte(v) / .gt(v)  (Exclusive)
//	  Maximum       .lte(v) / .lt(v)  (Exclusive)
//	Boolean       z.boolean()
//	Enum          z.enum(["a", "b"])
//	Literal       z.literal("a")
//	Array         z.array(items)
//	  MinItems n    .min(n, { when: (ctx: …) => Array.isArray(ctx.value) } as {})
//	  MaxItems n    .max(n, { when: (ctx: …) => Array.isArray(ctx.value) } as {})
//	Object        z.object({ … })                  zod's default: unknown keys stripped
//	Field         expr, then .optional() (Optional) or .default(json) (Defaulted),
//	              then .describe(Description(type)) when there is one
//
// # String lengths count code points
//
// zod's .min/.max count UTF-16 code units; the spec counts Unicode code
// points (as CUE's strings.MinRunes and JSON Schema do). So the native
// .min/.max carry a `when` that is always false: zod still records them in
// the schema's bag, which is what toJSONSchema reads (minLength/maxLength
// appear in the JSON Schema the model is shown, whichever copy of zod
// renders it), but they never validate. The real check is a .check() that
// counts code points (a lone surrogate counts as one, as in
// [...s].length) and pushes issues shaped exactly like zod's own length
// issues — {origin: "string", code: "too_small"|"too_big", minimum|maximum,
// inclusive: true} — so zod's error map writes the very same message
// ("Too small: expected string to have >=1 characters"). OpenCode drops
// checks from the schema, which is why the bag entries matter.
//
// # Item counts
//
// zod's native array .min/.max run even after an item failed (they carry a
// `when`), and their default `when` also fires for any non-array value that
// has a length (a string, or an object with a "length" key), reporting
// origin "string" or "unknown" on a value that already failed the type
// check. The rendered `when` restricts them to arrays: item-count issues
// appear whenever the value is an array, after its items' issues, and never
// for a value of another type.
//
// # Named checks
//
// One .refine per named check; its predicate is the conjunction of
// !/reject/u.test(s) and /match/u.test(s) over the check's patterns, and its
// message is the spec's. An issue {code: "custom", path, message} results.
//
// # Patterns
//
// RE2 patterns are translated into ECMAScript regexes with the "u" flag that
// match the same strings (RegexSource). zod reports a failed pattern as
// {origin: "string", code: "invalid_format", format: "regex", pattern:
// "/src/u"}; toJSONSchema writes "pattern": src.
//
// # Numbers
//
// z.number() rejects NaN and ±Infinity (a JSON number too large for a
// double, such as 1e400, is Infinity after JSON.parse) with invalid_type and
// received: "Infinity". .int() accepts integral doubles (1.0 is an integer)
// within ±(2^53−1); outside that range it reports too_big/too_small with
// origin "int" and a note, and the bound checks still run; a fractional
// value fails with {expected: "int", format: "safeint", code:
// "invalid_type"} and the bound checks are skipped.
//
// # Objects
//
// Absent fields are validated as undefined (so a missing required string is
// "expected string, received undefined"); null is a value, never absence; a
// default is applied, unvalidated, only when the key is absent. Field names
// that are properties of Object.prototype ("constructor", "toString", …)
// would read the prototype's value when absent; Validate rejects them.
package zodgen

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
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

// Validate reports model constructs that have no faithful zod rendering:
// a pattern that cannot be translated, or a field name that JavaScript
// objects inherit from Object.prototype.
func Validate(s *model.Spec) error {
	var errs []string
	var walk func(t *model.Type, where string)
	walk = func(t *model.Type, where string) {
		if t == nil {
			return
		}
		for _, p := range t.Patterns {
			if _, err := RegexSource(p.Regexp); err != nil {
				errs = append(errs, fmt.Sprintf("%s: %s: %v", p.Pos, where, err))
			}
		}
		for _, c := range t.Checks {
			for _, p := range append(append([]model.Pattern(nil), c.Reject...), c.Match...) {
				if _, err := RegexSource(p.Regexp); err != nil {
					errs = append(errs, fmt.Sprintf("%s: check %s: %v", p.Pos, c.Name, err))
				}
			}
		}
		walk(t.Items, where+"[]")
		for _, f := range t.Fields {
			if objectProtoNames[f.Name] {
				errs = append(errs, fmt.Sprintf("%s: %s.%s: field name %q is a property of JavaScript's Object.prototype; zod would read the inherited value when the key is absent", f.Pos, where, f.Name, f.Name))
			}
			walk(f.Type, where+"."+f.Name)
		}
	}
	for _, t := range s.Tools {
		walk(t.Args, t.Name)
		walk(t.Result, t.Name+" result")
	}
	if len(errs) > 0 {
		return fmt.Errorf("zod: %s", strings.Join(errs, "; "))
	}
	return nil
}

// objectProtoNames are the property names every JavaScript object inherits.
var objectProtoNames = map[string]bool{
	"constructor": true, "hasOwnProperty": true, "isPrototypeOf": true, "propertyIsEnumerable": true,
	"toLocaleString": true, "toString": true, "valueOf": true, "__proto__": true,
	"__defineGetter__": true, "__defineSetter__": true, "__lookupGetter__": true, "__lookupSetter__": true,
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
			fmt.Fprintf(b, ".min(%d, %s)", *t.MinLength, neverRuns)
		}
		if t.MaxLength != nil {
			fmt.Fprintf(b, ".max(%d, %s)", *t.MaxLength, neverRuns)
		}
		if t.MinLength != nil || t.MaxLength != nil {
			lengthCheck(b, t.MinLength, t.MaxLength)
		}
		for _, p := range t.Patterns {
			fmt.Fprintf(b, ".regex(%s)", mustLiteral(p.Regexp))
		}
		for _, c := range t.Checks {
			var conds []string
			for _, p := range c.Reject {
				conds = append(conds, fmt.Sprintf("!%s.test(s)", mustLiteral(p.Regexp)))
			}
			for _, p := range c.Match {
				conds = append(conds, fmt.Sprintf("%s.test(s)", mustLiteral(p.Regexp)))
			}
			fmt.Fprintf(b, ".refine((s) => %s, { message: %s })", strings.Join(conds, " && "), jsString(c.Message))
		}
	case model.Number, model.Integer:
		b.WriteString(z + ".number()")
		if t.Kind == model.Integer {
			b.WriteString(".int()")
		}
		if m := t.Minimum; m != nil {
			fmt.Fprintf(b, ".%s(%s)", map[bool]string{true: "gt", false: "gte"}[m.Exclusive], JSNumber(m.Value))
		}
		if m := t.Maximum; m != nil {
			fmt.Fprintf(b, ".%s(%s)", map[bool]string{true: "lt", false: "lte"}[m.Exclusive], JSNumber(m.Value))
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
		const onlyArrays = "{ when: (ctx: { value: unknown }) => Array.isArray(ctx.value) } as {}"
		if t.MinItems != nil {
			fmt.Fprintf(b, ".min(%d, %s)", *t.MinItems, onlyArrays)
		}
		if t.MaxItems != nil {
			fmt.Fprintf(b, ".max(%d, %s)", *t.MaxItems, onlyArrays)
		}
	case model.Object:
		b.WriteString(z + ".object(")
		shape(b, t, z, indent)
		b.WriteString(")")
	default:
		panic(fmt.Sprintf("zodgen: unknown kind %q", t.Kind)) // the loader admits no other kind
	}
}

// neverRuns is the params of a length check that only records the bound
// for toJSONSchema. zod's typings do not list `when`, hence the cast.
const neverRuns = "{ when: () => false } as {}"

// lengthCheck writes the code-point length check. It counts code points
// only when the UTF-16 length cannot decide: a string of n code units has
// between n/2 and n code points.
func lengthCheck(b *strings.Builder, minLen, maxLen *int) {
	var conds []string
	if maxLen != nil {
		conds = append(conds, fmt.Sprintf("n > %d", *maxLen))
	}
	if minLen != nil && *minLen > 0 {
		conds = append(conds, fmt.Sprintf("n < %d", 2**minLen))
	}
	b.WriteString(".check((ctx) => { const s: string = ctx.value; let n = s.length; ")
	if len(conds) > 0 {
		fmt.Fprintf(b, "if (%s) { n = 0; for (const _ of s) n++; } ", strings.Join(conds, " || "))
	}
	if minLen != nil {
		fmt.Fprintf(b, `if (n < %d) ctx.issues.push({ origin: "string", code: "too_small", minimum: %d, inclusive: true, input: s, continue: true }); `, *minLen, *minLen)
	}
	if maxLen != nil {
		fmt.Fprintf(b, `if (n > %d) ctx.issues.push({ origin: "string", code: "too_big", maximum: %d, inclusive: true, input: s, continue: true }); `, *maxLen, *maxLen)
	}
	b.WriteString("})")
}

// mustLiteral returns the regex literal of a pattern the loader accepted;
// Validate reports the (unexpected) patterns that do not translate.
func mustLiteral(re string) string {
	lit, err := RegexLiteral(re)
	if err != nil {
		return "/(?!)/u" // matches nothing; Validate reports it
	}
	return lit
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

// JSNumber returns the text JavaScript gives the double nearest to n
// (Number.prototype.toString, which JSON.stringify and zod's messages use):
// "1e+21", "0.1", "100", "-5e-7". It returns n unchanged if n is not a
// number.
func JSNumber(n json.Number) string {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil && !math.IsInf(f, 0) {
		return string(n)
	}
	return FormatJSNumber(f)
}

// FormatJSNumber formats f as JavaScript's Number::toString does.
func FormatJSNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// Shortest round-trip digits and exponent: d.ddddde±x.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, expStr, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(expStr)
	k := len(digits)
	n := x + 1 // the decimal point sits after n digits
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	es := "+"
	if n-1 < 0 {
		es = "-"
	}
	ex := strconv.Itoa(abs(n - 1))
	if k == 1 {
		return sign + digits + "e" + es + ex
	}
	return sign + digits[:1] + "." + digits[1:] + "e" + es + ex
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// jsString quotes s as a JavaScript string literal (JSON is a subset, with
// U+2028/U+2029 escaped by encoding/json).
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
