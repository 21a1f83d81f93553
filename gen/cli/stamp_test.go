package cli

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/internal/stamp"
	"github.com/agentc-dev/agentc/gen/internal/synth"
)

// genCounting runs genOnce and reports whether it loaded and generated
// (false: the unchanged-spec shortcut answered).
func genCounting(t *testing.T, sf *specFlags) (*genResult, bool) {
	t.Helper()
	before := generations.Load()
	r, err := genOnce(sf, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r, generations.Load() != before
}

// TestUnchangedSpecShortcut: a second gen of an unchanged spec generates
// nothing and reports what a full run reports; any change of spec, flags,
// agentc's identity or the output tree makes gen generate (and repair the
// tree) again.
func TestUnchangedSpecShortcut(t *testing.T) {
	defer stamp.OverrideIdentity("agentc-test-1")()
	dir := filepath.Join(t.TempDir(), "spec")
	if err := synth.WriteDir(dir, synth.Files(8)); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	sf := &specFlags{spec: dir, out: out}

	first, generated := genCounting(t, sf)
	if !generated || len(first.written) == 0 {
		t.Fatalf("first run: generated=%v, %s", generated, first)
	}
	snapshot := readTree(t, out)
	fast, generated := genCounting(t, sf)
	if generated {
		t.Fatalf("unchanged spec: generated again (%s)", fast)
	}
	// What a full run reports on the same tree (a new identity forces one).
	restore := stamp.OverrideIdentity("agentc-test-2")
	full, generated := genCounting(t, sf)
	restore()
	if !generated {
		t.Fatal("a new agentc identity took the shortcut")
	}
	if fast.String() != full.String() || len(full.written)+len(full.removed) != 0 {
		t.Errorf("shortcut reported %q, a full run %q", fast, full)
	}

	tool := filepath.Join(dir, "synthetic_tools.cue")
	orig, err := os.ReadFile(tool)
	if err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(out, emit.ManifestName)
	descFile := filepath.Join(out, "opencode", "tool", "synthetic_tool_0001.txt")
	for _, tc := range []struct {
		name  string
		edit  func(t *testing.T) // breaks the shortcut
		after func(t *testing.T, r *genResult)
	}{
		{"spec edited", func(t *testing.T) {
			edited := bytes.Replace(orig, []byte("Synthetic tool 1: saves"), []byte("Synthetic tool 1: now saves"), 1)
			if bytes.Equal(edited, orig) {
				t.Fatal("the edit changed nothing")
			}
			writeFile(t, tool, edited)
		}, func(t *testing.T, r *genResult) {
			if len(r.written) == 0 {
				t.Errorf("an edited spec wrote nothing: %s", r)
			}
			writeFile(t, tool, orig) // back to the snapshot's spec
		}},
		{"new spec file", func(t *testing.T) {
			writeFile(t, filepath.Join(dir, "extra.cue"), []byte("package agentc\n"))
		}, func(t *testing.T, r *genResult) {
			if err := os.Remove(filepath.Join(dir, "extra.cue")); err != nil {
				t.Fatal(err)
			}
		}},
		{"hand-edited output", func(t *testing.T) {
			writeFile(t, descFile, []byte("edited by hand\n"))
		}, nil},
		{"output removed", func(t *testing.T) {
			if err := os.Remove(descFile); err != nil {
				t.Fatal(err)
			}
		}, nil},
		{"manifest edited", func(t *testing.T) {
			b, err := os.ReadFile(manifest)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, manifest, append(b, "# a note\n"...))
		}, nil},
		{"stray generated file", func(t *testing.T) {
			writeFile(t, filepath.Join(out, "docs", "old.md"), []byte("<!-- "+emit.Header+" -->\n"))
		}, func(t *testing.T, r *genResult) {
			if !slices.Equal(r.removed, []string{"docs/old.md"}) {
				t.Errorf("removed %q, want docs/old.md", r.removed)
			}
		}},
		{"identity changed", func(t *testing.T) {
			stamp.OverrideIdentity("agentc-test-3") // kept: the next cases start from it
		}, nil},
		{"CUE environment changed", func(t *testing.T) {
			t.Setenv("CUE_DEBUG", "sortfields=0")
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.edit(t)
			r, generated := genCounting(t, sf)
			if !generated {
				t.Fatalf("took the shortcut (%s)", r)
			}
			if tc.after != nil {
				tc.after(t, r)
			}
			if _, generated := genCounting(t, sf); generated && tc.after == nil {
				t.Errorf("the run after it generated again")
			}
			if tc.after == nil {
				if got := readTree(t, out); !maps.Equal(got, snapshot) {
					t.Errorf("the tree differs from the first run's")
				}
			}
		})
	}

	// Another --out, or --only, is another invocation: it generates first.
	other := &specFlags{spec: dir, out: out, only: "docs"}
	if _, generated := genCounting(t, other); !generated {
		t.Error("gen --only took the full run's shortcut")
	}
	if _, generated := genCounting(t, other); generated {
		t.Error("a repeated gen --only generated again")
	}
}

// TestCheckShortcut: check of an unchanged spec after gen answers from the
// shortcut exactly what a full check answers; a hand edit is found.
func TestCheckShortcut(t *testing.T) {
	defer stamp.OverrideIdentity("agentc-test-check")()
	dir := filepath.Join(t.TempDir(), "spec")
	if err := synth.WriteDir(dir, synth.Files(8)); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	if _, err := genOnce(&specFlags{spec: dir, out: out}, nil); err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T) (int, string, bool) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		before := generations.Load()
		code := Main([]string{"check", "--json", "--spec", dir, "--out", out}, strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String(), generations.Load() != before
	}
	code, fast, generated := check(t)
	if code != ExitOK || generated {
		t.Fatalf("check after gen: exit %d, generated=%v\n%s", code, generated, fast)
	}
	restore := stamp.OverrideIdentity("agentc-test-check-2")
	code, full, generated := check(t)
	restore()
	if code != ExitOK || !generated {
		t.Fatalf("full check: exit %d, generated=%v\n%s", code, generated, full)
	}
	if fast != full {
		t.Errorf("shortcut check printed\n%s\nfull check\n%s", fast, full)
	}
	var env struct {
		Data struct{ Files int } `json:"data"`
	}
	if err := json.Unmarshal([]byte(fast), &env); err != nil || env.Data.Files == 0 {
		t.Errorf("check --json: files %d (%v)", env.Data.Files, err)
	}

	writeFile(t, filepath.Join(out, "opencode", "tool", "synthetic_tool_0001.txt"), []byte("edited by hand\n"))
	code, edited, generated := check(t)
	if code != ExitFindings || !generated || !strings.Contains(edited, `"kind": "hand-edited"`) {
		t.Errorf("check after a hand edit: exit %d, generated=%v\n%s", code, generated, edited)
	}
}

// TestShortcutWithoutCache: without a user cache directory every run
// generates, and still succeeds.
func TestShortcutWithoutCache(t *testing.T) {
	defer stamp.OverrideIdentity("agentc-test-nocache")()
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	dir := filepath.Join(t.TempDir(), "spec")
	if err := synth.WriteDir(dir, synth.Files(2)); err != nil {
		t.Fatal(err)
	}
	sf := &specFlags{spec: dir, out: filepath.Join(t.TempDir(), "out")}
	for range 2 {
		if _, generated := genCounting(t, sf); !generated {
			t.Fatal("took a shortcut without a cache directory")
		}
	}
}

func writeFile(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
