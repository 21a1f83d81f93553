// Package zodgen renders model types as zod 4 schema expressions. It is the
// single place that decides what a spec constraint means in zod; the Go
// decoders (package gogen) report exactly the issues these schemas report,
// and the JSON Schema emitter equals zod's toJSONSchema of them.
//
// # What each model construct renders to
//
// z is the expression that names zod's namespace ("z"; an OpenCode tool
// file binds it to tool.schema). The mechanism behind a constraint lives
// in the helpers of Helpers (runes, minRunes, maxRunes, minItems,
// maxItems, named), written once in the OpenCode runtime, so that each
// field reads in one short line close to its CUE. Checks are attached in
// the order listed, which is the order zod reports their issues in.
//
//	String        z.string()
//	  MinLength and MaxLength  runes(min, max)  (MinLength only: minRunes(min); MaxLength only: maxRunes(max))
//	  Patterns      .regex(/src/u)                   per pattern, src = RegexSource
//	  Checks        .check(isName)                   per named check, declared by File.Decls
//	Number        z.number()
//	Integer       z.number().int()                 safe integers only (zod's "safeint")
//	  Minimum       .gte(v) / .gt(v)  (Exclusive)
//	  Maximum       .lte(v) / .lt(v)  (Exclusive)
//	Boolean       z.boolean()
//	Enum          z.enum(["a", "b"])
//	Literal       z.literal("a")
//	Array         z.array(items)
//	  item counts   .check(minItems(n), maxItems(m))
//	Object        z.object({ … })                  zod's default: unknown keys stripped
//	Field         expr, then .optional() (Optional) or .default(json) (Defaulted),
//	              then .describe(Description(type)) when there is one
//
// # String lengths count code points
//
// zod's .min/.max count UTF-16 code units; the spec counts Unicode code
// points (as CUE's strings.MinRunes and JSON Schema do). So runes and its
// kin attach zod's native .min/.max with a `when` that is always false: zod
// still records them in the schema's bag, which is what toJSONSchema reads
// (minLength/maxLength appear in the JSON Schema the model is shown,
// whichever copy of zod renders it), but they never validate. The real
// check counts code points (a lone surrogate counts as one, as in
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
// check. minItems and maxItems are those checks with a `when` restricted to
// arrays: item-count issues appear whenever the value is an array, after
// its items' issues, and never for a value of another type.
//
// # Named checks
//
// One const per named check, `const isName = named(message, {reject:
// [/…/u], match: [/…/u]})`, a zod refinement: a string passes when none of
// the reject patterns matches and all the match patterns do, else zod
// reports {code: "custom", path, message} with the spec's message.
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

// Expr returns the zod expression for t, on one line when it fits; z is
// the expression that names zod's namespace in the generated file. It may
// call the helpers of Helpers and refer to the named checks that
// File.Decls declares; NewFile renders several types for one file.
func Expr(t *model.Type, z string) string {
	return NewFile(z).Expr(t, "")
}

// Shape returns the object literal of an object type's fields
// ("{\n  a: z.string(),\n}") as tool({args}) takes it; indent prefixes
// every line after the first. It refers to helpers as Expr does.
func Shape(t *model.Type, z, indent string) string {
	return NewFile(z).Shape(t, indent)
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
	if len(t.Checks) == 0 {
		return t.Doc
	}
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
