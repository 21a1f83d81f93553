package cli_test

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/agentc-dev/agentc/gen/cli"
	"github.com/agentc-dev/agentc/gen/diag"
	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/emitters"
	"github.com/agentc-dev/agentc/gen/load"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata/vet/*.txtar from what vet prints")

// vetBase is the small valid spec every case of testdata/vet starts from:
// the loader's corpus base.
const vetBase = "../load/testdata/base"

// TestVetEmitterChecks: for each case of testdata/vet — the base spec with
// the case's files added, a spec the loader accepts but an emitter would
// reject — agentc vet prints exactly the case's want section on stdout
// (positions under the spec directory's name) and exits 1; and generating the spec
// with the emitters the case's comment names ("emitter: go") fails, so
// that each finding stands for a real failure of gen.
func TestVetEmitterChecks(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob(filepath.Join("testdata", "vet", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 8 {
		t.Errorf("testdata/vet holds %d cases, want at least 8", len(paths))
	}
	base := map[string][]byte{}
	entries, err := os.ReadDir(vetBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if base[e.Name()], err = os.ReadFile(filepath.Join(vetBase, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) {
			t.Parallel()
			ar, err := txtar.ParseFile(p)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "spec")
			files := map[string][]byte{}
			for name, data := range base {
				files[name] = data
			}
			wantIdx := -1
			var names []string
			for i, f := range ar.Files {
				if f.Name == "want" {
					wantIdx = i
					continue
				}
				files[f.Name] = f.Data
			}
			for _, line := range strings.Split(string(ar.Comment), "\n") {
				if v, ok := strings.CutPrefix(line, "emitter:"); ok {
					names = strings.Fields(v)
				}
			}
			if wantIdx < 0 || len(names) == 0 {
				t.Fatal("the case needs a -- want -- section and an emitter: line")
			}
			for name, data := range files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}

			code, stdout, _ := run(t, "vet", dir)
			got := strings.ReplaceAll(stdout, filepath.ToSlash(dir)+"/", "spec/")
			if *update {
				ar.Files[wantIdx].Data = []byte(got)
				if err := os.WriteFile(p, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if code != cli.ExitFindings {
				t.Errorf("vet: exit %d, want %d", code, cli.ExitFindings)
			}
			if want := string(ar.Files[wantIdx].Data); got != want {
				t.Errorf("vet printed\n%s\nwant\n%s", got, want)
			}

			s, err := load.Load(load.Bytes("spec", files))
			if err != nil {
				t.Fatalf("the loader rejects the spec; the case is the loader's:\n%v", err)
			}
			if l := emit.Check(s, emitters.All()); len(l) == 0 || !strings.Contains(string(ar.Comment), "codes: "+strings.Join(codes(l), " ")) {
				t.Errorf("the emitters' checks find codes %v; the comment says\n%s", codes(l), ar.Comment)
			}
			if _, err := emit.Generate(s, emitters.All(), emit.Options{Only: names}); err == nil {
				t.Errorf("emitters %v generate the spec; the case does not reach their error path", names)
			}
		})
	}
}

// codes returns the distinct codes of l, sorted.
func codes(l diag.List) []string {
	var out []string
	for _, e := range l {
		out = append(out, e.Code)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
