package load_test

import (
	"bytes"
	"fmt"
	"go/format"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/emitters"
	"github.com/agentc-dev/agentc/gen/model"
)

// TestGeneratedGoIsGofmt: every Go file generated from every spec of the
// corpora is exactly as gofmt formats it. The Go emitters write much of
// their output already formatted rather than through go/format, so this
// holds only if that writing is right for every construct a spec can use.
func TestGeneratedGoIsGofmt(t *testing.T) {
	t.Parallel()
	specs := corpora(t)
	checked := 0
	for _, name := range slices.Sorted(maps.Keys(specs)) {
		s, err := vet(specs[name])
		if err != nil {
			continue
		}
		if s.Codegen.MCP == nil {
			s.Codegen.MCP = &model.MCPCodegen{Dir: "go/contractmcp", Package: "contractmcp", CoreImport: "example.com/agent/contract"}
		}
		files, err := emit.Generate(s, emitters.All(), emit.Options{Only: []string{"go", "mcp"}})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for _, f := range files {
			if !strings.HasSuffix(f.Path, ".go") {
				continue
			}
			checked++
			want, err := format.Source(f.Data)
			if err != nil {
				t.Errorf("%s: %s does not parse: %v", name, f.Path, err)
				continue
			}
			if !bytes.Equal(f.Data, want) {
				t.Errorf("%s: %s is not gofmt-formatted:\n%s", name, f.Path, firstDiff(f.Data, want))
			}
		}
	}
	if checked < 100 {
		t.Errorf("checked only %d Go files", checked)
	}
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n got  %s\n want %s", i+1, g[i], w[i])
		}
	}
	return "lengths differ"
}
