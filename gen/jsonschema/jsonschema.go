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
// built as maps, encoded by jsonwrite.Marshal (keys sorted).
func Schema(t *model.Tool) ([]byte, error) {
	root, err := object(t.Args)
	if err != nil {
		return nil, err
	}
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
	return normalize(v)
}

// normalize rewrites every number as JavaScript would print it, so that a
// spec's "1.0" and JSON.stringify's "1" agree.
func normalize(v any) (any, error) {
	switch v := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return nil, err
		}
		return json.Number(js.FormatNumber(f)), nil
	case map[string]any:
		for k, e := range v {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			v[k] = n
		}
	case []any:
		for i, e := range v {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			v[i] = n
		}
	}
	return v, nil
}

// object renders an object type: properties, and required listing the
// fields without a default or "?", in the order zod's shape, a JavaScript
// object, holds them (js.KeyOrder: array-index keys first, ascending).
func object(t *model.Type) (map[string]any, error) {
	props := map[string]any{}
	var required []string
	for _, f := range js.KeyOrder(t.Fields, func(f *model.Field) string { return f.Name }) {
		p, err := node(f.Type)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		switch f.Presence {
		case model.Defaulted:
			def, err := decode(f.Default)
			if err != nil {
				return nil, fmt.Errorf("field %s: default %s: %w", f.Name, f.Default, err)
			}
			p["default"] = def
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
	return out, nil
}

// node renders a type (without its field's presence and description).
func node(t *model.Type) (map[string]any, error) {
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
		var srcs []string
		for _, p := range t.Patterns {
			srcs = append(srcs, js.RegexSource(p.Regexp))
		}
		switch len(srcs) {
		case 0:
		case 1:
			out["pattern"] = srcs[0]
		default:
			var all []any
			for _, src := range srcs {
				all = append(all, map[string]any{"pattern": src})
			}
			out["allOf"] = all
		}
		return out, nil
	case model.Number, model.Integer:
		return number(t)
	case model.Boolean:
		return map[string]any{"type": "boolean"}, nil
	case model.Enum:
		return map[string]any{"type": "string", "enum": t.Enum}, nil
	case model.Literal:
		return map[string]any{"type": "string", "const": t.Literal}, nil
	case model.Array:
		items, err := node(t.Items)
		if err != nil {
			return nil, err
		}
		out := map[string]any{"type": "array", "items": items}
		if t.MinItems != nil {
			out["minItems"] = *t.MinItems
		}
		if t.MaxItems != nil {
			out["maxItems"] = *t.MaxItems
		}
		return out, nil
	case model.Object:
		return object(t)
	}
	return nil, fmt.Errorf("unsupported kind %q", t.Kind)
}

// number follows zod's bag for .int(), .gt/.gte and .lt/.lte: .int() sets
// minimum and maximum to ±MAX_SAFE_INTEGER, which bound then tightens.
func number(t *model.Type) (map[string]any, error) {
	out := map[string]any{"type": "number"}
	var lo, hi *float64
	if t.Kind == model.Integer {
		out["type"] = "integer"
		l, h := float64(-maxSafeInteger), float64(maxSafeInteger)
		lo, hi = &l, &h
	}
	if err := bound(out, "minimum", "exclusiveMinimum", lo, t.Minimum, func(x, y float64) bool { return x > y }); err != nil {
		return nil, err
	}
	if err := bound(out, "maximum", "exclusiveMaximum", hi, t.Maximum, func(x, y float64) bool { return x < y }); err != nil {
		return nil, err
	}
	return out, nil
}

// bound writes one side's bound: incl is the inclusive bound .int() set
// (or nil), b the spec's, and tighter reports whether x bounds tighter than
// y on this side. An inclusive bound replaces incl only when it is tighter;
// toJSONSchema then keeps, of an inclusive and an exclusive bound, the
// tighter one (the exclusive one when they are equal).
func bound(out map[string]any, inclKey, exclKey string, incl *float64, b *model.Bound, tighter func(x, y float64) bool) error {
	var excl *float64
	if b != nil {
		v, err := strconv.ParseFloat(string(b.Value), 64)
		if err != nil {
			return fmt.Errorf("%s %s: %w", inclKey, b.Value, err)
		}
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
	return nil
}
