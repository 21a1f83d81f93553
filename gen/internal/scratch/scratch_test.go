package scratch_test

import (
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	"github.com/agentc-dev/agentc/gen/internal/scratch"
)

// TestFindingsAreAttributed: go vet and tsc report a broken tree's errors
// under its name, and nothing for a sound tree beside it.
func TestFindingsAreAttributed(t *testing.T) {
	t.Parallel()
	mod := scratch.New(t)
	mod.Add(t, "good", []emit.File{
		{Path: "go/p/p.go", Data: []byte("package p\n\n// F is fine.\nfunc F() int { return 1 }\n")},
		{Path: "ts/m.ts", Data: []byte("export const x: number = 1\n")},
	})
	mod.Add(t, "bad", []emit.File{
		{Path: "go/p/p.go", Data: []byte("package p\n\nimport \"fmt\"\n\nfunc F() { fmt.Printf(\"%d\", \"x\") }\n")},
		{Path: "ts/m.ts", Data: []byte("export const x: number = \"one\"\n")},
	})
	vet, err := mod.GoVet()
	if err != nil {
		t.Fatal(err)
	}
	if len(vet["good"]) != 0 || len(vet[""]) != 0 || !strings.Contains(strings.Join(vet["bad"], "\n"), "Printf format %d has arg") {
		t.Errorf("go vet findings = %q, want a Printf finding under bad only", vet)
	}
	if err := mod.LinkNodeModules(nodetool.Dir(t)); err != nil {
		t.Fatal(err)
	}
	ts, err := mod.TSC(nodetool.Node(t), nodetool.Tsc(t), map[string][]string{"good": {"ts"}, "bad": {"ts"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ts["good"]) != 0 || len(ts[""]) != 0 || !strings.Contains(strings.Join(ts["bad"], "\n"), "TS2322") {
		t.Errorf("tsc findings = %q, want TS2322 under bad only", ts)
	}
}
