package jsonschema

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/agentc-dev/agentc/gen/js"
	"github.com/agentc-dev/agentc/gen/jsonwrite"
	"github.com/agentc-dev/agentc/gen/model"
)

// referenceSchema is Schema as it was first written, and the reference the
// direct writer must equal: the schema built as maps and slices, then
// encoded by encoding/json (keys sorted, two-space indentation, no HTML
// escaping).
func referenceSchema(t *model.Tool) ([]byte, error) {
	root, err := refObject(t.Args)
	if err != nil {
		return nil, err
	}
	root["$schema"] = Draft
	return jsonwrite.EncodingJSON(root)
}

func refObject(t *model.Type) (map[string]any, error) {
	props := map[string]any{}
	var required []any
	for _, f := range js.KeyOrder(t.Fields, fieldName) {
		p, err := refNode(f.Type)
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

func refNode(t *model.Type) (map[string]any, error) {
	switch t.Kind {
	case model.String:
		out := map[string]any{"type": "string"}
		if t.MinLength != nil {
			out["minLength"] = *t.MinLength
		}
		if t.MaxLength != nil {
			out["maxLength"] = *t.MaxLength
		}
		var srcs []string
		for _, p := range t.Patterns {
			src, err := js.RegexSource(p.Regexp)
			if err != nil {
				return nil, err
			}
			srcs = append(srcs, RegExpSource(src))
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
		return refNumber(t)
	case model.Boolean:
		return map[string]any{"type": "boolean"}, nil
	case model.Enum:
		var vs []any
		for _, v := range t.Enum {
			vs = append(vs, v)
		}
		return map[string]any{"type": "string", "enum": vs}, nil
	case model.Literal:
		return map[string]any{"type": "string", "const": t.Literal}, nil
	case model.Array:
		items, err := refNode(t.Items)
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
		return refObject(t)
	}
	return nil, fmt.Errorf("unsupported kind %q", t.Kind)
}

func refNumber(t *model.Type) (map[string]any, error) {
	out := map[string]any{"type": "number"}
	var minimum, maximum, exclMin, exclMax *float64
	if t.Kind == model.Integer {
		out["type"] = "integer"
		lo, hi := float64(-maxSafeInteger), float64(maxSafeInteger)
		minimum, maximum = &lo, &hi
	}
	if b := t.Minimum; b != nil {
		v, err := strconv.ParseFloat(string(b.Value), 64)
		if err != nil {
			return nil, fmt.Errorf("minimum %s: %w", b.Value, err)
		}
		if b.Exclusive {
			exclMin = &v
		} else if minimum == nil || v > *minimum {
			minimum = &v
		}
	}
	if b := t.Maximum; b != nil {
		v, err := strconv.ParseFloat(string(b.Value), 64)
		if err != nil {
			return nil, fmt.Errorf("maximum %s: %w", b.Value, err)
		}
		if b.Exclusive {
			exclMax = &v
		} else if maximum == nil || v < *maximum {
			maximum = &v
		}
	}
	if exclMin != nil && minimum != nil {
		if *exclMin >= *minimum {
			minimum = nil
		} else {
			exclMin = nil
		}
	}
	if exclMax != nil && maximum != nil {
		if *exclMax <= *maximum {
			maximum = nil
		} else {
			exclMax = nil
		}
	}
	set := func(k string, v *float64) {
		if v != nil {
			out[k] = json.Number(JSNumber(*v))
		}
	}
	set("minimum", minimum)
	set("maximum", maximum)
	set("exclusiveMinimum", exclMin)
	set("exclusiveMaximum", exclMax)
	return out, nil
}
