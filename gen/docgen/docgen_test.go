package docgen_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/gen/docgen"
	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/internal/testspecs"
	"github.com/agentc-dev/agentc/gen/model"
)

// separator is a table cell's boundary: a '|' not escaped as "\|".
var separator = regexp.MustCompile(`(^|[^\\])\|`)

// TestTableCells: every row of every table in the reference has as many
// cells as the table's header, for each test spec and for a field whose
// name, enum values and default hold '|' (a value may: "a|b"), and a
// model whose canonical ID and API ID do, which ended a cell early where
// they were written as they are.
func TestTableCells(t *testing.T) {
	t.Parallel()
	for _, dir := range testspecs.Dirs {
		s := testspecs.Load(t, dir)
		if dir == "" {
			tool := s.Tools[0]
			tool.Args.Fields = append(tool.Args.Fields, &model.Field{
				Name: "a|b", Presence: model.Defaulted, Default: json.RawMessage(`"x|y"`),
				Type: &model.Type{Kind: model.Enum, Enum: []string{"x|y", "z"}, Doc: "Pipes | here."},
			})
			m := s.Models[0]
			m.Canonical, m.API, m.Display = "m|1", "api|1", "Model | one"
		}
		files, err := docgen.Emitter.Run(&emit.Pass{Spec: s})
		if err != nil {
			t.Fatal(err)
		}
		cells := 0
		for i, line := range strings.Split(string(files[0].Data), "\n") {
			if !strings.HasPrefix(line, "|") {
				cells = 0
				continue
			}
			n := len(separator.FindAllString(line, -1))
			if cells == 0 {
				cells = n // the header
			} else if n != cells {
				t.Errorf("%s: line %d has %d cell separators, its table's header %d:\n%s", testspecs.Name(dir), i+1, n, cells, line)
			}
		}
	}
}
