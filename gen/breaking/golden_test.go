package breaking_test

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/agentc-dev/agentc/gen/breaking"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
)

var update = flag.Bool("update", false, "rewrite testdata/v0_to_current.golden")

func loadDir(t *testing.T, dir string) *model.Spec {
	t.Helper()
	src, err := load.Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := load.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestGolden compares the first contract version (seed 000) with the
// current one (seed 001) and checks the report, line for line, against
// testdata/v0_to_current.golden: exactly what
//
//	agentc breaking --spec spec --against spec/testdata/v0
//
// prints on stdout from the repository root. Every line of the golden file
// is a real difference between the two seeds; run with -update after a
// deliberate change and review the diff.
func TestGolden(t *testing.T) {
	golden, err := filepath.Abs(filepath.Join("testdata", "v0_to_current.golden"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join("..", "..")) // positions as the CLI prints them from the root
	fs := breaking.Compare(loadDir(t, filepath.Join("spec", "testdata", "v0")), loadDir(t, "spec"))
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.String() + "\n")
	}
	got := []byte(b.String())
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if d := diff.Diff("want", want, "got", got); d != nil {
		t.Errorf("breaking v0 → current differs from %s (run go test -update):\n%s", golden, d)
	}
	if !slices.ContainsFunc(fs, func(f breaking.Finding) bool { return f.Breaking && !f.Accepted }) {
		t.Error("v0 → current has no breaking change")
	}
	// Each finding names its subject by its rule's keys, as an acceptance
	// of it must.
	for _, f := range fs {
		r, _ := breaking.LookupRule(f.Rule)
		if has := f.About.Keys(); has != r.Keys {
			t.Errorf("%s: subject keys %s, want %s", f, has, r.Keys)
		}
	}
}
