package emitters_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/emitters"
	"github.com/agentc-dev/agentc/gen/internal/testspecs"
)

// TestAll: the list names each emitter once, sorted by name, each with
// what --only's help shows and a run; every emitter contributes files to
// a generation of the default spec with codegen.mcp set.
func TestAll(t *testing.T) {
	t.Parallel()
	all := emitters.All()
	var names []string
	for _, e := range all {
		if e.Name == "" || e.Doc == "" || e.Run == nil {
			t.Errorf("emitter %q lacks a name, a doc or a run", e.Name)
		}
		names = append(names, e.Name)
	}
	if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Errorf("emitters %v are not sorted, or not each named once", names)
	}
	if len(all) < 7 {
		t.Errorf("%d emitters, want the 7 agentc ships: %v", len(all), names)
	}
	s := testspecs.WithMCP(t, "")
	for _, e := range all {
		files, err := emit.Generate(s, all, emit.Options{Only: []string{e.Name}})
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		if len(files) < 2 { // its own and the manifest
			t.Errorf("emitter %s generates nothing from the default spec", e.Name)
		}
	}
	if l := emit.Check(s, all); len(l) != 0 {
		t.Errorf("the default spec fails the emitters' checks:\n%s", strings.TrimSpace(l.Error()))
	}
}
