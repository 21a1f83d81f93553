package js

import (
	"encoding/json"

	"github.com/agentc-dev/agentc/gen/tslayout"
)

// protoKey is how an object literal writes a property named __proto__: a
// computed key. Written plainly ("__proto__": v, or __proto__: v), the key
// sets the object's prototype instead of making a property, so the value
// is lost (or, an object, inherited), where JSON.parse keeps it as a
// property like any other.
const protoKey = `["__proto__"]`

// Key returns k as a key of a JavaScript object literal that makes an own
// property named k: a string literal, or a computed key for __proto__.
func Key(k string) string {
	if k == "__proto__" {
		return protoKey
	}
	return tslayout.String(k)
}

// Literal returns the JSON value raw as a JavaScript expression that makes
// the value JSON.parse makes of it: raw itself, but with every key named
// __proto__, at any depth, written as a computed key.
func Literal(raw json.RawMessage) string {
	var out []byte
	last := 0
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		end := stringEnd(raw, i)
		j := end
		for j < len(raw) && (raw[j] == ' ' || raw[j] == '\t' || raw[j] == '\n' || raw[j] == '\r') {
			j++
		}
		var name string
		if j < len(raw) && raw[j] == ':' && json.Unmarshal(raw[i:end], &name) == nil && name == "__proto__" {
			out = append(append(out, raw[last:i]...), protoKey...)
			last = end
		}
		i = end - 1
	}
	return string(append(out, raw[last:]...))
}

// stringEnd returns the offset just past the JSON string that starts at
// raw[i] (a quote).
func stringEnd(raw []byte, i int) int {
	for j := i + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(raw)
}
