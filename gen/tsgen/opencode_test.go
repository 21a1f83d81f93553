package tsgen_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/internal/opencodetest"
	"github.com/agentc-dev/agentc/gen/jsonschema"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/opencodelayout"
)

// TestOpenCodeLoadsEachMode installs each mode's file set, exactly as its
// injection manifest says, into a repository that holds every tool's files
// (as a snapshot taken in another mode would), starts the real opencode
// serve there, and checks that it offers exactly the mode's tools beside its
// built-in ones, with the generated description, and that the JSON Schema it
// shows the model equals agentc's, canonical JSON byte for byte.
func TestOpenCodeLoadsEachMode(t *testing.T) {
	t.Parallel()
	for _, dir := range specs {
		g := generate(t, dir)
		t.Run(specName(dir), func(t *testing.T) {
			var mu sync.Mutex
			builtins := map[string][]string{} // mode → ids that are not the spec's tools
			t.Run("modes", func(t *testing.T) {
				for _, m := range g.spec.Modes {
					t.Run(m.Name, func(t *testing.T) {
						t.Parallel()
						others := checkMode(t, g, m)
						mu.Lock()
						builtins[m.Name] = others
						mu.Unlock()
					})
				}
			})
			// The built-in tools do not depend on the mode; in particular the
			// shared runtime module is never loaded as a tool.
			var first []string
			for _, m := range g.spec.Modes {
				others, ok := builtins[m.Name]
				if !ok {
					return // that mode failed already
				}
				if first == nil {
					first = others
					t.Logf("built-in tools: %v", others)
				} else if !slices.Equal(first, others) {
					t.Errorf("mode %s: built-in tools %v differ from %v", m.Name, others, first)
				}
			}
			if slices.Contains(first, "runtime") {
				t.Errorf("OpenCode loaded the shared runtime as a tool: %v", first)
			}
		})
	}
}

// checkMode runs one mode and returns the ids of the tools OpenCode offers
// that are not the spec's, sorted.
func checkMode(t *testing.T, g *generated, m *model.Mode) []string {
	repo := t.TempDir()
	toolDir := filepath.Join(repo, filepath.FromSlash(g.spec.OpenCode.ToolDir))
	for _, tl := range g.spec.Tools {
		for _, ext := range []string{".ts", ".txt"} {
			writeFile(t, filepath.Join(toolDir, tl.FileName+ext), g.opencode(t, path.Join(opencodelayout.ToolSubdir, tl.FileName+ext)))
		}
	}
	inj := g.injection(t, m.Name)
	for _, p := range inj.Remove {
		if err := os.Remove(filepath.Join(repo, filepath.FromSlash(p))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
	for _, w := range inj.Write {
		if path.IsAbs(w.Path) {
			continue // the global config: the same opencode.json
		}
		if w.Source == opencodelayout.PluginFile {
			continue // the prompt proxy's plugin: another emitter's, tested in gen/proxygen
		}
		writeFile(t, filepath.Join(repo, filepath.FromSlash(w.Path)), g.opencode(t, w.Source))
	}

	srv := opencodetest.Start(t, repo, opencodetest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	began := time.Now()
	ids, err := srv.ToolIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	listed := time.Since(began)
	tools, err := srv.Tools(ctx, "anthropic", "claude-opus-4-6")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("start %v, first listing %v, schemas %v", srv.StartupTime.Round(time.Millisecond), listed.Round(time.Millisecond), (time.Since(began) - listed).Round(time.Millisecond))

	var want, got, others []string
	ours := map[string]*model.Tool{}
	for _, tl := range g.spec.Tools {
		ours[tl.FileName] = tl
	}
	for _, ts := range m.Standings {
		if ts.Standing.Injected() {
			want = append(want, ts.Tool.FileName)
		}
	}
	for _, id := range ids {
		if ours[id] != nil {
			got = append(got, id)
		} else {
			others = append(others, id)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	slices.Sort(others)
	if !slices.Equal(got, want) {
		t.Errorf("mode %s: OpenCode offers agentc tools %v, want %v", m.Name, got, want)
	}

	for _, id := range want {
		tl := ours[id]
		i := slices.IndexFunc(tools, func(x opencodetest.Tool) bool { return x.ID == id })
		if i < 0 {
			t.Errorf("GET /experimental/tool lacks %s", id)
			continue
		}
		if d := tools[i].Description; d != opencodelayout.ToolDescription(tl) {
			t.Errorf("%s: description\n got %q\nwant %q", id, d, opencodelayout.ToolDescription(tl))
		}
		gotSchema, err := jsonschema.Canonical(tools[i].Parameters)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		wantSchema := g.file(t, path.Join(g.spec.Codegen.JSONSchemaDir, id+".json"))
		if string(gotSchema) != string(wantSchema) {
			t.Errorf("%s: OpenCode shows the model a different JSON Schema than agentc's\n--- OpenCode (canonical)\n%s--- agentc\n%s", id, gotSchema, wantSchema)
		}
	}
	if n := srv.RegistryHits(); n != 0 {
		t.Errorf("OpenCode tried to install from npm %d times", n)
	}
	return others
}
