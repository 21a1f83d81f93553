package tsgen_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	"github.com/agentc-dev/agentc/gen/model"
)

// moduleDriver imports the generated models.ts and modes.ts and prints
// what the test asks of them: the registry's own keys, the transforms of
// each model ID, and the mode selectMode picks for each session.
const moduleDriver = `import { register } from "node:module"
import { pathToFileURL } from "node:url"
register("./hooks.mjs", import.meta.url)
let input = ""
for await (const chunk of process.stdin) input += chunk
const { sessions } = JSON.parse(input)
const models = await import(pathToFileURL("./models.ts").href)
const modes = await import(pathToFileURL("./modes.ts").href)
const ids = Object.getOwnPropertyNames(models.MODELS)
process.stdout.write(JSON.stringify({
  ids,
  known: ids.map((id) => models.isModelId(id)),
  api: ids.map((id) => models.fromApiModelId(models.toApiModelId(id))),
  selected: sessions.map((s) => modes.selectMode(s)),
}))
`

// TestModulesUnderNode runs the coverage spec's models.ts and modes.ts
// under node: every model ID — __proto__ included, which a plain key of an
// object literal would make the registry's prototype — is an own key of
// MODELS whose transforms round-trip; and selectMode picks the mode the
// spec's selection means, an unset input (undefined or null) reading as
// "", as it does in Go.
func TestModulesUnderNode(t *testing.T) {
	t.Parallel()
	node := nodetool.Node(t)
	g := generate(t, "testdata/coverage")
	root := t.TempDir()
	g.writeUnder(t, g.spec.Codegen.TSDir, root)
	hooks, err := os.ReadFile(filepath.Join("testdata", "node", "hooks.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "hooks.mjs"), hooks)
	writeFile(t, filepath.Join(root, "driver.mjs"), []byte(moduleDriver))
	if err := os.Symlink(nodetool.Dir(t), filepath.Join(root, "node_modules")); err != nil {
		t.Fatal(err)
	}

	// Sessions: every input unset, null, "" or one of the values the rules
	// name, for every combination.
	values := []any{nil, "", "-"}
	for _, r := range g.spec.Selection.Rules {
		for _, c := range r.When {
			if !slices.Contains(values, any(c.Value)) {
				values = append(values, c.Value)
			}
		}
	}
	sessions := []map[string]any{{}}
	for _, in := range g.spec.Selection.Inputs {
		var next []map[string]any
		for _, s := range sessions {
			next = append(next, s) // unset
			for _, v := range values {
				c := map[string]any{in.TSName: v}
				for k, x := range s {
					c[k] = x
				}
				next = append(next, c)
			}
		}
		sessions = next
	}
	in, _ := json.Marshal(map[string]any{"sessions": sessions})
	out := runDriver(t, node, root, "driver.mjs", in)
	var got struct {
		IDs      []string `json:"ids"`
		Known    []bool   `json:"known"`
		API      []string `json:"api"`
		Selected []string `json:"selected"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("driver output %q: %v", out, err)
	}

	var want []string
	for _, m := range g.spec.Models {
		want = append(want, m.Canonical)
	}
	if !slices.Contains(want, "__proto__") {
		t.Fatal("the coverage spec has no model __proto__")
	}
	if !slices.Equal(got.IDs, want) {
		t.Errorf("MODELS has own keys %q, want the registry's %q", got.IDs, want)
	}
	for i, id := range got.IDs {
		if !got.Known[i] || got.API[i] != id {
			t.Errorf("model %q: isModelId %v, API ID round-trips to %q", id, got.Known[i], got.API[i])
		}
	}

	if len(got.Selected) != len(sessions) {
		t.Fatalf("%d selections for %d sessions", len(got.Selected), len(sessions))
	}
	emptyRule := false
	for i, s := range sessions {
		if w := selectMode(g.spec, s); got.Selected[i] != w {
			t.Errorf("selectMode(%v) = %s, want %s", s, got.Selected[i], w)
		}
	}
	for _, r := range g.spec.Selection.Rules {
		for _, c := range r.When {
			emptyRule = emptyRule || c.Value == ""
		}
	}
	if !emptyRule {
		t.Error("the coverage spec has no selection rule that reads an input as \"\"")
	}
}

// selectMode is what the spec's selection means: the first rule whose
// every condition holds, an unset or null input reading as "".
func selectMode(s *model.Spec, session map[string]any) string {
	for _, r := range s.Selection.Rules {
		holds := true
		for _, c := range r.When {
			v, _ := session[c.Input.TSName].(string)
			holds = holds && v == c.Value
		}
		if holds {
			return r.Mode.Name
		}
	}
	return s.Selection.Default.Name
}

// runDriver runs driver (driver.mjs in root when relative) in root under
// node, with env added to the environment and in on its stdin, and returns
// what it printed; a failure ends the test with node's stderr.
func runDriver(t *testing.T, node, root, driver string, in []byte, env ...string) []byte {
	t.Helper()
	cmd := exec.Command(node, driver)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.Bytes())
	}
	return out
}
