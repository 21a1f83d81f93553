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
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentc-dev/agentc/gen/js"
	"github.com/agentc-dev/agentc/gen/jsonwrite"
	"github.com/agentc-dev/agentc/gen/model"
)

// Draft is the $schema zod 4 writes at the root.
const Draft = "https://json-schema.org/draft/2020-12/schema"

// maxSafeInteger is JavaScript's Number.MAX_SAFE_INTEGER: zod's .int()
// bounds an integer to ±maxSafeInteger unless a tighter bound replaces it.
const maxSafeInteger = 9007199254740991

// Schema returns the canonical JSON Schema of t's arguments: the bytes
// jsonwrite.Marshal writes for the document, keys sorted, written directly.
func Schema(t *model.Tool) ([]byte, error) {
	var w jsonwrite.Writer
	w.Grow(1024)
	w.BeginObject()
	w.Key("$schema")
	w.String(Draft)
	if err := objectMembers(&w, t.Args); err != nil {
		return nil, err
	}
	w.EndObject()
	return w.Bytes(), nil
}

// Canonical re-encodes a JSON document canonically: object keys sorted,
// two-space indentation, numbers as JavaScript prints them, no HTML
// escaping, a trailing newline. Schema's output is canonical; Canonical of
// OpenCode's answer must equal it.
func Canonical(data []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	v, err := normalize(v)
	if err != nil {
		return nil, err
	}
	return jsonwrite.Marshal(v)
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
		return json.Number(JSNumber(f)), nil
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

// The members of a schema object, in the order encoding/json sorts their
// keys ("$schema", at the root, comes first):
//
//	allOf const default description enum exclusiveMaximum
//	exclusiveMinimum items maxItems maxLength maximum minItems
//	minLength minimum pattern properties required type
//
// node writes them for every kind, objectMembers the last three of an
// object.

// objectMembers writes an object type's properties (keys sorted by name),
// required (the fields without a default or "?", in the order zod's
// shape, a JavaScript object, holds them: js.KeyOrder) and type.
func objectMembers(w *jsonwrite.Writer, t *model.Type) error {
	w.Key("properties")
	w.BeginObject()
	fields := t.Fields
	if !slices.IsSortedFunc(fields, byName) {
		fields = slices.SortedFunc(slices.Values(fields), byName)
	}
	for _, f := range fields {
		w.Key(f.Name)
		if err := field(w, f); err != nil {
			return fmt.Errorf("field %s: %w", f.Name, err)
		}
	}
	w.EndObject()
	required := false
	for _, f := range js.KeyOrder(t.Fields, fieldName) {
		if f.Presence != model.Required {
			continue
		}
		if !required {
			w.Key("required")
			w.BeginArray()
			required = true
		}
		w.String(f.Name)
	}
	if required {
		w.EndArray()
	}
	w.Key("type")
	w.String("object")
	return nil
}

func byName(a, b *model.Field) int { return strings.Compare(a.Name, b.Name) }

func fieldName(f *model.Field) string { return f.Name }

// field writes a field's schema: its type's, with the field's default and
// description.
func field(w *jsonwrite.Writer, f *model.Field) error {
	var def any
	if f.Presence == model.Defaulted {
		v, err := decode(f.Default)
		if err != nil {
			return fmt.Errorf("default %s: %w", f.Default, err)
		}
		def = v
	}
	return node(w, f.Type, f.Presence == model.Defaulted, def, f.Type.Description())
}

// decode reads a default as a value with numbers as JavaScript prints them.
func decode(raw json.RawMessage) (any, error) {
	// The usual defaults, a number or a plain string, without a decoder.
	switch {
	case len(raw) == 0:
	case raw[0] == '-' || '0' <= raw[0] && raw[0] <= '9':
		if json.Valid(raw) {
			return normalize(json.Number(raw))
		}
	case raw[0] == '"' && len(raw) >= 2:
		if inner := raw[1 : len(raw)-1]; raw[len(raw)-1] == '"' && plain(inner) {
			return string(inner), nil
		}
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return normalize(v)
}

// plain reports whether b is the content of a JSON string literal that
// holds no escape: valid UTF-8 without '"', '\\' or control characters.
func plain(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c == '"' || c == '\\' {
			return false
		}
	}
	return utf8.Valid(b)
}

// node writes a type's schema, with a field's default (when hasDef) and
// description (when not empty).
func node(w *jsonwrite.Writer, t *model.Type, hasDef bool, def any, desc string) error {
	var srcs []string
	var bounds numberBounds
	switch t.Kind {
	case model.String:
		// Named checks are refinements: toJSONSchema drops them (their rule
		// is in the description instead). zod carries each RE2 pattern
		// translated to ECMAScript (js.RegexSource); toJSONSchema writes that
		// RegExp's source.
		for _, p := range t.Patterns {
			src, err := js.RegexSource(p.Regexp)
			if err != nil {
				return err
			}
			srcs = append(srcs, RegExpSource(src))
		}
	case model.Number, model.Integer:
		var err error
		if bounds, err = number(t); err != nil {
			return err
		}
	case model.Boolean, model.Enum, model.Literal, model.Array, model.Object:
	default:
		return fmt.Errorf("unsupported kind %q", t.Kind)
	}
	w.BeginObject()
	if len(srcs) > 1 {
		w.Key("allOf")
		w.BeginArray()
		for _, src := range srcs {
			w.BeginObject()
			w.Key("pattern")
			w.String(src)
			w.EndObject()
		}
		w.EndArray()
	}
	if t.Kind == model.Literal {
		w.Key("const")
		w.String(t.Literal)
	}
	if hasDef {
		w.Key("default")
		if err := w.Value(def); err != nil {
			return err
		}
	}
	if desc != "" {
		w.Key("description")
		w.String(desc)
	}
	if t.Kind == model.Enum {
		w.Key("enum")
		if err := w.Value(t.Enum); err != nil {
			return err
		}
	}
	if err := bounds.write(w, "exclusiveMaximum", bounds.exclMax); err != nil {
		return err
	}
	if err := bounds.write(w, "exclusiveMinimum", bounds.exclMin); err != nil {
		return err
	}
	if t.Kind == model.Array {
		w.Key("items")
		if err := node(w, t.Items, false, nil, ""); err != nil {
			return err
		}
		if t.MaxItems != nil {
			w.Key("maxItems")
			w.Int(*t.MaxItems)
		}
	}
	if t.Kind == model.String && t.MaxLength != nil {
		w.Key("maxLength")
		w.Int(*t.MaxLength)
	}
	if err := bounds.write(w, "maximum", bounds.maximum); err != nil {
		return err
	}
	if t.Kind == model.Array && t.MinItems != nil {
		w.Key("minItems")
		w.Int(*t.MinItems)
	}
	if t.Kind == model.String && t.MinLength != nil {
		w.Key("minLength")
		w.Int(*t.MinLength)
	}
	if err := bounds.write(w, "minimum", bounds.minimum); err != nil {
		return err
	}
	if len(srcs) == 1 {
		w.Key("pattern")
		w.String(srcs[0])
	}
	if t.Kind == model.Object {
		if err := objectMembers(w, t); err != nil {
			return err
		}
	} else {
		w.Key("type")
		w.String(typeName(t.Kind))
	}
	w.EndObject()
	return nil
}

// typeName is the JSON Schema type of a kind other than object.
func typeName(k model.Kind) string {
	switch k {
	case model.Enum, model.Literal:
		return "string"
	}
	return string(k)
}

// numberBounds are the bounds a number schema carries (nil: absent).
type numberBounds struct {
	minimum, maximum, exclMin, exclMax *float64
}

// write writes bound v under key k, as JavaScript prints it, if present.
func (numberBounds) write(w *jsonwrite.Writer, k string, v *float64) error {
	if v == nil {
		return nil
	}
	w.Key(k)
	return w.Number(json.Number(JSNumber(*v)))
}

// number follows zod's bag for .int(), .gt/.gte and .lt/.lte: .int() sets
// minimum and maximum to ±MAX_SAFE_INTEGER; an inclusive bound replaces the
// inclusive one only when it is tighter; toJSONSchema then keeps, of an
// inclusive and an exclusive bound on the same side, the tighter one (the
// exclusive one when they are equal).
func number(t *model.Type) (numberBounds, error) {
	var b numberBounds
	if t.Kind == model.Integer {
		lo, hi := float64(-maxSafeInteger), float64(maxSafeInteger)
		b.minimum, b.maximum = &lo, &hi
	}
	if m := t.Minimum; m != nil {
		v, err := strconv.ParseFloat(string(m.Value), 64)
		if err != nil {
			return b, fmt.Errorf("minimum %s: %w", m.Value, err)
		}
		if m.Exclusive {
			b.exclMin = &v
		} else if b.minimum == nil || v > *b.minimum {
			b.minimum = &v
		}
	}
	if m := t.Maximum; m != nil {
		v, err := strconv.ParseFloat(string(m.Value), 64)
		if err != nil {
			return b, fmt.Errorf("maximum %s: %w", m.Value, err)
		}
		if m.Exclusive {
			b.exclMax = &v
		} else if b.maximum == nil || v < *b.maximum {
			b.maximum = &v
		}
	}
	if b.exclMin != nil && b.minimum != nil {
		if *b.exclMin >= *b.minimum {
			b.minimum = nil
		} else {
			b.exclMin = nil
		}
	}
	if b.exclMax != nil && b.maximum != nil {
		if *b.exclMax <= *b.maximum {
			b.maximum = nil
		} else {
			b.exclMax = nil
		}
	}
	return b, nil
}

// JSNumber formats f as JSON.stringify does: JavaScript's
// Number.prototype.toString (js.FormatNumber), with null for NaN and
// the infinities.
func JSNumber(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "null"
	}
	return js.FormatNumber(f)
}

// RegExpSource returns what JavaScript's new RegExp(re).source is: "/"
// outside a character class and line terminators escaped, "(?:)" for the
// empty pattern. zod writes a pattern's source into JSON Schema.
func RegExpSource(re string) string {
	if re == "" {
		return "(?:)"
	}
	var b strings.Builder
	inClass, escaped := false, false
	for _, r := range re {
		switch {
		case escaped:
			escaped = false
			switch r {
			case '\n':
				b.WriteString("n")
				continue
			case '\r':
				b.WriteString("r")
				continue
			case '\u2028':
				b.WriteString("u2028")
				continue
			case '\u2029':
				b.WriteString("u2029")
				continue
			}
		case r == '\\':
			escaped = true
		case r == '[':
			inClass = true
		case r == ']':
			inClass = false
		case r == '/' && !inClass:
			b.WriteString(`\/`)
			continue
		}
		switch r {
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\u2028':
			b.WriteString(`\u2028`)
		case '\u2029':
			b.WriteString(`\u2029`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
