// Package zod renders model types as zod 4 schema expressions. It is the
// single place that decides what a spec constraint means in zod; the Go
// decoders (package gogen) report exactly the issues these schemas report,
// and the JSON Schemas (package jsonschema) equal zod's toJSONSchema of them.
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
//	  Patterns      .regex(/src/u)                   per pattern, src = js.RegexSource
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
//	              then .describe(type.Description()) when there is one
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
// match the same strings (js.RegexSource). zod reports a failed pattern as
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
// would read the prototype's value when absent; js.Check reports them.
package zod
