// Package testscripts drives the real agentc command line through every
// testscripts/*.txtar script (testscript). Run with -update to rewrite the
// golden stdout/stderr sections of the scripts from the actual output.
package testscripts

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentc-dev/agentc/gen/cli"
	"github.com/agentc-dev/agentc/spec"
)

var update = flag.Bool("update", false, "rewrite the scripts' golden output sections")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"agentc": func() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           ".",
		UpdateScripts: *update,
		Setup:         setupGo,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"defaultspec": cmdDefaultSpec,
			"replace":     cmdReplace,
			"difflines":   cmdDiffLines,
		},
	})
}

// setupGo lets scripts run the go command in a downstream module: it passes
// the real Go caches and proxy settings through, and AGENTC_ROOT names this
// checkout for replace directives.
func setupGo(env *testscript.Env) error {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPROXY", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("go env: %v", err)
	}
	vals := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(vals) != 4 {
		return fmt.Errorf("go env: unexpected output %q", out)
	}
	env.Setenv("GOCACHE", vals[0])
	env.Setenv("GOMODCACHE", vals[1])
	env.Setenv("GOPROXY", vals[2])
	env.Setenv("GOFLAGS", "-mod=mod")
	env.Setenv("PATH", filepath.Join(vals[3], "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	root, err := filepath.Abs("..")
	if err != nil {
		return err
	}
	env.Setenv("AGENTC_ROOT", root)
	return nil
}

// cmdDefaultSpec writes the embedded default spec into a directory:
// defaultspec DIR.
func cmdDefaultSpec(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: defaultspec DIR")
	}
	dir := ts.MkAbs(args[0])
	err := fs.WalkDir(spec.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := spec.FS.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	ts.Check(err)
}

// cmdReplace replaces text in a file, failing when the old text is absent:
// replace FILE OLD NEW (Go-quoted strings allowed for escapes).
func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace FILE OLD NEW")
	}
	// The whole argument must be one Go string literal: a Go-quoted prefix
	// ('"a": "b"') is text, not a literal followed by junk.
	unq := func(s string) string {
		if out, err := strconv.Unquote(s); err == nil && strings.HasPrefix(s, `"`) {
			return out
		}
		return s
	}
	file := ts.MkAbs(args[0])
	b, err := os.ReadFile(file)
	ts.Check(err)
	old, repl := unq(args[1]), unq(args[2])
	if !strings.Contains(string(b), old) {
		ts.Fatalf("replace: %q not found in %s", old, args[0])
	}
	ts.Check(os.WriteFile(file, []byte(strings.Replace(string(b), old, repl, 1)), 0o644))
}

// cmdDiffLines checks the unified diffs agentc check printed: each file's
// diff changes at most MAX lines (its - and + lines), and at least one
// file changed: difflines FILE MAX. FILE may be stdout or stderr.
func cmdDiffLines(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: difflines FILE MAX")
	}
	max, err := strconv.Atoi(args[1])
	ts.Check(err)
	text := ts.ReadFile(args[0])
	changed := map[string]int{}
	var order []string
	file := ""
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "+++ "):
			file = strings.TrimPrefix(line, "+++ ")
			order = append(order, file)
		case strings.HasPrefix(line, "--- "):
		case file != "" && (strings.HasPrefix(line, "+") || strings.HasPrefix(line, "-")):
			changed[file]++
		}
	}
	if len(order) == 0 {
		ts.Fatalf("no diff in %s", args[0])
	}
	for _, f := range order {
		ts.Logf("%s: %d lines changed", f, changed[f])
		if changed[f] > max {
			ts.Fatalf("%s: %d lines changed, want at most %d", f, changed[f], max)
		}
	}
}
