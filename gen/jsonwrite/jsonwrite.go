// Package jsonwrite encodes JSON as agentc's files and messages carry it:
// encoding/json with two-space indentation, no HTML escaping and a final
// newline. The emitters of JSON files (jsonschema, tsgen, mcpgen,
// opencodelayout) and the CLI's --json output share it.
package jsonwrite

import (
	"bytes"
	"encoding/json"
)

// Marshal encodes v as an encoding/json Encoder with SetEscapeHTML(false)
// and SetIndent("", "  ") does: map keys sorted, a final newline.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
