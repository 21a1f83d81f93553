package tsgen_test

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/emitters"
	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	"github.com/agentc-dev/agentc/gen/internal/testspecs"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/opencodelayout"
)

// specs are the specs the TypeScript tests run on: the default (current)
// contract, the first contract version (intercepted tools) and a spec that
// uses every argument construct.
var specs = []string{"", "testdata/v000", "testdata/coverage"}

// specName and loadSpec name and load a spec as every generator's tests do.
var (
	specName = testspecs.Name
	loadSpec = testspecs.Load
)

// generated holds one spec's generated files by path.
type generated struct {
	spec  *model.Spec
	files map[string][]byte
}

func generate(t testing.TB, dir string) *generated {
	t.Helper()
	return generateOnly(t, loadSpec(t, dir), "opencode", "ts", "jsonschema")
}

// generateOnly runs the emitters only of s.
func generateOnly(t testing.TB, s *model.Spec, only ...string) *generated {
	t.Helper()
	files, err := emit.Generate(s, emitters.All(), emit.Options{Only: only})
	if err != nil {
		t.Fatal(err)
	}
	g := &generated{spec: s, files: map[string][]byte{}}
	for _, f := range files {
		g.files[f.Path] = f.Data
	}
	return g
}

// file returns a generated file, failing the test when there is none.
func (g *generated) file(t testing.TB, p string) []byte {
	t.Helper()
	data, ok := g.files[p]
	if !ok {
		t.Fatalf("%s was not generated", p)
	}
	return data
}

// opencode returns a file under codegen.opencode.dir.
func (g *generated) opencode(t testing.TB, p string) []byte {
	t.Helper()
	return g.file(t, path.Join(g.spec.Codegen.OpenCodeDir, p))
}

// injection returns a mode's injection manifest.
func (g *generated) injection(t testing.TB, mode string) opencodelayout.Injection {
	t.Helper()
	var inj opencodelayout.Injection
	if err := json.Unmarshal(g.opencode(t, path.Join(opencodelayout.InjectSubdir, mode+".json")), &inj); err != nil {
		t.Fatal(err)
	}
	return inj
}

// writeUnder writes every generated file whose path starts with prefix/
// into root, without the prefix.
func (g *generated) writeUnder(t testing.TB, prefix, root string) {
	t.Helper()
	for p, data := range g.files {
		rel, ok := strings.CutPrefix(p, prefix+"/")
		if !ok {
			continue
		}
		writeFile(t, filepath.Join(root, filepath.FromSlash(rel)), data)
	}
}

func writeFile(t testing.TB, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// driverCall is one call of testdata/node/driver.mjs: the tool module to
// import, execute()'s arguments and OpenCode context, and when to abort it.
type driverCall struct {
	Module string            `json:"module"`
	Args   json.RawMessage   `json:"args"`
	Ctx    map[string]string `json:"ctx"`
	Abort  string            `json:"abort,omitempty"`
}

// newDriver lays out the node driver (driver.mjs, its typescript hooks and
// the packages they import) in a directory of its own, which it returns.
func newDriver(t *testing.T) string {
	t.Helper()
	drv := t.TempDir()
	for _, f := range []string{"driver.mjs", "hooks.mjs"} {
		b, err := os.ReadFile(filepath.Join("testdata", "node", f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(drv, f), b)
	}
	if err := os.Symlink(nodetool.Dir(t), filepath.Join(drv, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return drv
}

// runTools makes calls in one node process, the driver of drv (newDriver)
// run in dir with env added to the environment, and returns a result for
// each.
func runTools(t *testing.T, drv, dir string, env []string, calls []driverCall) []callResult {
	t.Helper()
	in, _ := json.Marshal(calls)
	began := time.Now()
	out := runDriver(t, nodetool.Node(t), dir, filepath.Join(drv, "driver.mjs"), in, env...)
	t.Logf("%d calls under node in %v", len(calls), time.Since(began).Round(time.Millisecond))
	var results []callResult
	if err := json.Unmarshal(out, &results); err != nil || len(results) != len(calls) {
		t.Fatalf("driver output %q: %v", out, err)
	}
	return results
}
