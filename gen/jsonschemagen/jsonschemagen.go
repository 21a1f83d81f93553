// Package jsonschemagen is emitter "jsonschema": one JSON Schema per tool,
// exactly what the model is shown (package jsonschema builds it).
package jsonschemagen

import (
	"fmt"
	"path"

	"github.com/agentc-dev/agentc/gen/emit"
)

// Emitter writes {codegen.jsonschema.dir}/{tool file name}.json for every
// tool.
var Emitter = &emit.Emitter{
	Name: "jsonschema",
	Doc:  "JSON Schema of each tool's arguments, as OpenCode shows them to the model",
	Run:  run,
}

func run(p *emit.Pass) ([]emit.File, error) {
	s := p.Spec
	files := make([]emit.File, 0, len(s.Tools))
	for _, t := range s.Tools {
		data, err := p.ToolSchema(t)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		files = append(files, emit.File{Path: path.Join(s.Codegen.JSONSchemaDir, t.FileName+".json"), Data: data})
	}
	return files, nil
}
