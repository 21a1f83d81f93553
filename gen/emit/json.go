package emit

import (
	"bytes"
	"encoding/json"
)

// JSON encodes v as the emitters write JSON files: two-space indentation,
// map keys sorted (as encoding/json writes them), no HTML escaping and a
// final newline.
func JSON(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
