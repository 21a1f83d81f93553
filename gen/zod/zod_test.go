package zod_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/zod"
)

// TestTypeScript: the rendered schemas, with the helpers and named checks
// they call, type-check under tsc --strict against the pinned zod (the
// TypeScript emitters embed them).
func TestTypeScript(t *testing.T) {
	t.Parallel()
	tsc := nodetool.Tsc(t)
	s, err := load.Load(load.Default())
	if err != nil {
		t.Fatal(err)
	}
	zf := zod.NewFile()
	var schemas string
	for _, tool := range s.Tools {
		schemas += "export const " + tool.GoName + " = z.object(" + zf.Shape(tool.Args, "") + ");\n"
	}
	src := "import { z } from \"zod\";\n" + zod.Helpers + zf.Decls() + schemas
	dir := filepath.Dir(nodetool.Dir(t))
	f, err := os.CreateTemp(dir, "zod-*.ts")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(src); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cmd := exec.Command(nodetool.Node(t), tsc, "--noEmit", "--strict", "--target", "es2022", "--module", "nodenext", "--moduleResolution", "nodenext", "--skipLibCheck", filepath.Base(f.Name()))
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s\n%s", err, out, src)
	}
}
