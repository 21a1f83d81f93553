package tsgen_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	"github.com/agentc-dev/agentc/gen/internal/scratch"
)

// TestTypeScriptTypeChecks runs the pinned tsc --strict over every
// generated .ts file of each spec, and of the bare spec, whose lists are
// empty (no selection rule: selectMode reads no session).
func TestTypeScriptTypeChecks(t *testing.T) {
	t.Parallel()
	tsc := nodetool.Tsc(t)
	node := nodetool.Node(t)
	modules := nodetool.Dir(t)
	for _, dir := range append(specs, "testdata/bare") {
		t.Run(specName(dir), func(t *testing.T) {
			g := generate(t, dir)
			if dir == "testdata/bare" && (len(g.spec.Selection.Rules) > 0 || len(g.spec.PromptParams) > 0) {
				t.Fatal("the bare spec has selection rules or prompt parameters")
			}
			root := t.TempDir()
			g.writeUnder(t, g.spec.Codegen.OpenCodeDir, filepath.Join(root, "opencode"))
			g.writeUnder(t, g.spec.Codegen.TSDir, filepath.Join(root, "ts"))
			writeFile(t, filepath.Join(root, "tsconfig.json"), []byte(scratch.TSConfig(`"**/*.ts"`)))
			if err := os.Symlink(modules, filepath.Join(root, "node_modules")); err != nil {
				t.Fatal(err)
			}
			began := time.Now()
			cmd := exec.Command(node, tsc, "--noEmit", "-p", root)
			cmd.Dir = root
			out, err := cmd.CombinedOutput()
			t.Logf("tsc --strict took %v", time.Since(began).Round(time.Millisecond))
			if err != nil {
				t.Fatalf("tsc: %v\n%s", err, out)
			}
		})
	}
}
