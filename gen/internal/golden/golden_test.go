// Package golden_test checks the committed generated/ tree against a fresh
// in-memory generation from the default spec, with every emitter the CLI
// runs, and that generation is deterministic.
package golden_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/emitters"
	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/write"
)

func generate(t *testing.T) []emit.File {
	t.Helper()
	s, err := load.Load(load.Default())
	if err != nil {
		t.Fatal(err)
	}
	files, err := emit.Generate(s, emitters.All(), emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestGeneratedIsFresh fails when generated/ differs from what the default
// spec produces: a stale, missing, extra or hand-edited file.
func TestGeneratedIsFresh(t *testing.T) {
	s, err := load.Load(load.Default())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(nodetool.ModuleRoot(t), filepath.FromSlash(s.Codegen.Out))
	changes, err := write.Plan(root, generate(t), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if c.Kind != write.Unchanged {
			t.Errorf("%s/%s: %s — run `go run ./cmd/agentc gen` and commit the result", s.Codegen.Out, c.Path, c.Kind)
		}
	}
}

// TestDeterministic generates repeatedly with GOMAXPROCS 1 and 8 (and so
// different map orders and schedules) and demands identical bytes.
func TestDeterministic(t *testing.T) {
	var runs [][]emit.File
	var labels []string
	for _, procs := range []int{1, 8} {
		old := runtime.GOMAXPROCS(procs)
		for i := range 2 {
			runs = append(runs, generate(t))
			labels = append(labels, fmt.Sprintf("GOMAXPROCS=%d run %d", procs, i+1))
		}
		runtime.GOMAXPROCS(old)
	}
	for i := 1; i < len(runs); i++ {
		if d := diff(runs[0], runs[i]); d != "" {
			t.Errorf("%s differs from %s: %s", labels[i], labels[0], d)
		}
	}
}

func diff(a, b []emit.File) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d files, then %d", len(a), len(b))
	}
	for i := range a {
		if a[i].Path != b[i].Path {
			return fmt.Sprintf("file %d is %s, then %s", i, a[i].Path, b[i].Path)
		}
		if !bytes.Equal(a[i].Data, b[i].Data) {
			return a[i].Path + " has different bytes"
		}
	}
	return ""
}
