// Package readme lets tests build the README's Go code as a stranger copies
// it: it reads the Go blocks of a README section and builds a program of
// them inside this module (found as nodetool.ModuleRoot finds it), so that
// the program imports this module's packages as they are.
package readme

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/gen/internal/nodetool"
)

// GoBlocks returns the Go code blocks of the README between the headings
// from and to, unindented.
func GoBlocks(t *testing.T, from, to string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(nodetool.ModuleRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n"+from+"\n")
	sec, _, ok2 := strings.Cut(sec, "\n"+to)
	if !ok || !ok2 {
		t.Fatalf("README: no heading %q followed by %q", from, to)
	}
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)\n( *)```go\n(.*?)\n *```\n").FindAllStringSubmatch(sec, -1) {
		indent, code := m[1], m[2]
		var lines []string
		for _, l := range strings.Split(code, "\n") {
			lines = append(lines, strings.TrimPrefix(l, indent))
		}
		blocks = append(blocks, strings.Join(lines, "\n"))
	}
	return blocks
}

// Build builds a program of files (paths relative to its package
// directory, pkg, which does not exist: go build reads them from an
// overlay) in this module and returns the binary. A program that does not
// build fails t, with the compiler's output and the program's main.go.
func Build(t *testing.T, pkg string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	abs := nodetool.ModuleRoot(t)
	replace := map[string]string{}
	for name, src := range files {
		tmp := filepath.Join(dir, strings.ReplaceAll(name, "/", "_"))
		if err := os.WriteFile(tmp, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		replace[filepath.Join(abs, pkg, name)] = tmp
	}
	overlay, _ := json.Marshal(map[string]any{"Replace": replace})
	if err := os.WriteFile(filepath.Join(dir, "overlay.json"), overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "program")
	build := exec.Command("go", "build", "-overlay", filepath.Join(dir, "overlay.json"), "-o", bin, "./"+pkg)
	build.Dir = abs
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the README's code does not build: %v\n%s\nthe program:\n%s", err, out, files["main.go"])
	}
	return bin
}
