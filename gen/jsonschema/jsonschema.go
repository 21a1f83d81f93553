// Package jsonschema builds a tool's JSON Schema: exactly what the model is
// shown, which emitter "jsonschema" writes and emitter "mcp" serves (both
// through emit.Pass.ToolSchema, which computes it once per generation).
// OpenCode sends the model zod 4's toJSONSchema of the tool's args object
// (draft 2020-12, input view: a defaulted or optional field is not
// required, refinements are dropped, objects carry no
// additionalProperties). This package derives the same document from the
// model, following the zod expressions package zod writes, so that the
// committed schema can be compared with the real OpenCode's rendering byte
// for byte after canonicalisation (Canonical).
package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/agentc-dev/agentc/gen/js"
	"github.com/agentc-dev/agentc/gen/jsonwrite"
	"github.com/agentc-dev/agentc/gen/model"
)

// draft is the $schema zod 4 writes at the root.
const draft = "https://json-schema.org/draft/2020-12/schema"

// maxSafeInteger is JavaScript's Number.MAX_SAFE_INTEGER: zod's .int()
// bounds an integer to ±maxSafeInteger unless a tighter bound replaces it.
const maxSafeInteger = 9007199254740991

// Schema returns the canonical JSON Schema of t's arguments: the document
// built as maps, encoded by jsonwrite.Marshal (keys sorted). Its one
// failure is a number beyond a double's range (a bound or in a default),
// which it holds as Infinity, a number JSON has not; js.Check reports
// each at its place.
func Schema(t *model.Tool) ([]byte, error) {
	root := object(t.Args)
	root["$schema"] = draft
	return jsonwrite.Marshal(root)
}

// Canonical re-encodes a JSON document canonically: object keys sorted,
// two-space indentation, numbers as JavaScript prints them, no HTML
// escaping, a trailing newline. Schema's output is canonical; Canonical of
// OpenCode's answer must equal it.
func Canonical(data []byte) ([]byte, error) {
	v, err := decode(data)
	if err != nil {
		return nil, err
	}
	return jsonwrite.Marshal(v)
}

// decode reads one JSON value with numbers as JavaScript prints them.
func decode(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return normalize(v), nil
}

// normalize rewrites every number as JavaScript would print it, so that a
// spec's "1.0" and JSON.stringify's "1" agree.
func normalize(v any) any {
	switch v := v.(type) {
	case json.Number:
		return json.Number(js.Number(v))
	case map[string]any:
		for k, e := range v {
			v[k] = normalize(e)
		}
	case []any:
		for i, e := range v {
			v[i] = normalize(e)
		}
	}
	return v
}

// object renders an object type: properties, and required listing the
// fields without a default or "?", in the order zod's shape, a JavaScript
// object, holds them (js.KeyOrder: array-index keys first, ascending).
func object(t *model.Type) map[string]any {
	props := map[string]any{}
	var required []string
	for _, f := range js.KeyOrder(t.Fields, func(f *model.Field) string { return f.Name }) {
		p := node(f.Type)
		switch f.Presence {
		case model.Defaulted:
			p["default"], _ = decode(f.Default) // one JSON value: the loader wrote it
		case model.Required:
			required = append(required, f.Name)
		}
		if d := f.Type.Description(); d != "" {
			p["description"] = d
		}
		props[f.Name] = p
	}
	out := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}

// node renders a type (without its field's presence and description).
func node(t *model.Type) map[string]any {
	switch t.Kind {
	case model.String:
		out := map[string]any{"type": "string"}
		if t.MinLength != nil {
			out["minLength"] = *t.MinLength
		}
		if t.MaxLength != nil {
			out["maxLength"] = *t.MaxLength
		}
		// Named checks are refinements: toJSONSchema drops them (their rule
		// is in the description instead). zod carries each RE2 pattern
		// translated to ECMAScript (js.RegexSource); toJSONSchema writes that
		// RegExp's source, which is the translation itself (it escapes "/"
		// and every line terminator already).
		// One pattern is the type's; two or more, an allOf of one each.
		var all []map[string]any
		for _, p := range t.Patterns {
			all = append(all, map[string]any{"pattern": js.RegexSource(p.Regexp)})
		}
		switch {
		case len(all) == 1:
			out["pattern"] = all[0]["pattern"]
		case len(all) > 1:
			out["allOf"] = all
		}
		return out
	case model.Number, model.Integer:
		return number(t)
	case model.Boolean:
		return map[string]any{"type": "boolean"}
	case model.Enum:
		return map[string]any{"type": "string", "enum": t.Enum}
	case model.Literal:
		return map[string]any{"type": "string", "const": t.Literal}
	case model.Array:
		out := map[string]any{"type": "array", "items": node(t.Items)}
		if t.MinItems != nil {
			out["minItems"] = *t.MinItems
		}
		if t.MaxItems != nil {
			out["maxItems"] = *t.MaxItems
		}
		return out
	case model.Object:
		return object(t)
	}
	panic("jsonschema: unknown kind " + string(t.Kind)) // the loader admits no other kind
}

// number follows zod's bag for .int(), .gt/.gte and .lt/.lte: .int() sets
// minimum and maximum to ±MAX_SAFE_INTEGER, which bound then tightens.
func number(t *model.Type) map[string]any {
	out := map[string]any{"type": "number"}
	var lo, hi *float64
	if t.Kind == model.Integer {
		out["type"] = "integer"
		l, h := float64(-maxSafeInteger), float64(maxSafeInteger)
		lo, hi = &l, &h
	}
	bound(out, "minimum", "exclusiveMinimum", lo, t.Minimum, func(x, y float64) bool { return x > y })
	bound(out, "maximum", "exclusiveMaximum", hi, t.Maximum, func(x, y float64) bool { return x < y })
	return out
}

// bound writes one side's bound: incl is the inclusive bound .int() set
// (or nil), b the spec's, and tighter reports whether x bounds tighter than
// y on this side. An inclusive bound replaces incl only when it is tighter;
// toJSONSchema then keeps, of an inclusive and an exclusive bound, the
// tighter one (the exclusive one when they are equal).
func bound(out map[string]any, inclKey, exclKey string, incl *float64, b *model.Bound, tighter func(x, y float64) bool) {
	var excl *float64
	if b != nil {
		v, _ := strconv.ParseFloat(string(b.Value), 64) // a JSON number: infinite beyond a double's range
		switch {
		case b.Exclusive:
			excl = &v
		case incl == nil || tighter(v, *incl):
			incl = &v
		}
	}
	switch {
	case excl != nil && (incl == nil || !tighter(*incl, *excl)):
		out[exclKey] = json.Number(js.FormatNumber(*excl))
	case incl != nil:
		out[inclKey] = json.Number(js.FormatNumber(*incl))
	}
}
