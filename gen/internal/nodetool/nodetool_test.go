package nodetool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestTscVersion(t *testing.T) {
	tsc := Tsc(t)
	out, err := exec.Command(Node(t), tsc, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("tsc --version: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); !strings.HasPrefix(got, "Version 5.") {
		t.Fatalf("tsc --version = %q, want TypeScript 5.x", got)
	}
	t.Logf("tsc: %s", bytes.TrimSpace(out))
}

// TestZodIssues runs the real zod and checks the shape of one issue, so a
// wrong or missing zod install shows up here first.
func TestZodIssues(t *testing.T) {
	node := Node(t)
	const script = `
const z = require("zod");
const r = z.string().max(3).safeParse("abcd");
console.log(JSON.stringify(r.error.issues));
`
	cmd := exec.Command(node, "-e", script)
	cmd.Dir = filepath.Dir(Dir(t)) // require resolves from gen/testdata/npm
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node -e: %v\n%s", err, stderr.Bytes())
	}
	var issues []map[string]any
	if err := json.Unmarshal(out, &issues); err != nil {
		t.Fatalf("decoding zod issues %q: %v", out, err)
	}
	if len(issues) != 1 {
		t.Fatalf("got %d issues, want 1: %s", len(issues), out)
	}
	if got := issues[0]["code"]; got != "too_big" {
		t.Errorf("issues[0].code = %v, want too_big: %s", got, out)
	}
	if got := issues[0]["maximum"]; got != 3.0 {
		t.Errorf("issues[0].maximum = %v, want 3: %s", got, out)
	}
	t.Logf("zod issues: %s", bytes.TrimSpace(out))
}

// TestOneZod checks that @opencode-ai/plugin and the tests load the very
// same zod, so tool schemas and test expectations cannot disagree.
func TestOneZod(t *testing.T) {
	node := Node(t)
	const script = `
const fs = require("fs");
const path = require("path");
const manifest = (dir) => JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
const plugin = path.resolve("node_modules/@opencode-ai/plugin");
const top = require.resolve("zod");
const fromPlugin = require.resolve("zod", { paths: [plugin] });
console.log(JSON.stringify({
  top,
  fromPlugin,
  pluginWants: manifest(plugin).dependencies.zod,
  version: manifest(path.resolve("node_modules/zod")).version,
}));
`
	cmd := exec.Command(node, "-e", script)
	cmd.Dir = filepath.Dir(Dir(t))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node -e: %v\n%s", err, out)
	}
	var got struct {
		Top, FromPlugin, PluginWants, Version string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("decoding %q: %v", out, err)
	}
	if got.Top != got.FromPlugin {
		t.Errorf("two copies of zod: tests load %s, @opencode-ai/plugin loads %s", got.Top, got.FromPlugin)
	}
	if got.Version != got.PluginWants {
		t.Errorf("zod %s installed, @opencode-ai/plugin depends on %s", got.Version, got.PluginWants)
	}
	t.Logf("zod %s at %s", got.Version, got.Top)
}

func TestOpencodeBin(t *testing.T) {
	bin := OpencodeBin(t)
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", bin, err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "1.18.33" {
		t.Errorf("opencode --version = %q, want 1.18.33 (the version pinned in %s/package.json)", got, NPMDir)
	}
}

func TestOpencodeCandidates(t *testing.T) {
	got := opencodeCandidates("/nm", "linux", "amd64")
	want := []string{
		"/nm/opencode-ai/bin/opencode.exe",
		"/nm/opencode-linux-x64/bin/opencode",
		"/nm/opencode-linux-x64-baseline/bin/opencode",
		"/nm/opencode-linux-x64-musl/bin/opencode",
		"/nm/opencode-linux-x64-baseline-musl/bin/opencode",
	}
	for i := range want {
		want[i] = filepath.FromSlash(want[i])
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("opencodeCandidates = %q, want %q", got, want)
	}
}

// recorder stands in for a testing.TB to observe whether dirIn skips or
// fails; like the real methods, Skipf and Fatalf end the calling goroutine.
type recorder struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (r *recorder) Helper() {}

func (r *recorder) Skipf(format string, args ...any) {
	r.skipped, r.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed, r.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// callDirIn runs dirIn on its own goroutine so Skipf and Fatalf can stop it.
func callDirIn(root, ci string) (*recorder, string) {
	r := &recorder{}
	var got string
	done := make(chan struct{})
	go func() {
		defer close(done)
		got = dirIn(r, root, ci)
	}()
	<-done
	return r, got
}

func TestDirMissing(t *testing.T) {
	root := t.TempDir()
	r, _ := callDirIn(root, "")
	if !r.skipped || r.failed {
		t.Errorf("CI unset, no node_modules: skipped=%v failed=%v, want a skip", r.skipped, r.failed)
	}
	if !strings.Contains(r.msg, "make npm") {
		t.Errorf("skip message %q does not say how to install", r.msg)
	}

	r, _ = callDirIn(root, "true")
	if !r.failed || r.skipped {
		t.Errorf("CI=true, no node_modules: skipped=%v failed=%v, want a failure", r.skipped, r.failed)
	}

	nm := filepath.Join(root, filepath.FromSlash(NPMDir), "node_modules")
	if err := os.MkdirAll(nm, 0o755); err != nil {
		t.Fatal(err)
	}
	r, got := callDirIn(root, "true")
	if r.failed || r.skipped || got != nm {
		t.Errorf("installed: got %q skipped=%v failed=%v (%s), want %q", got, r.skipped, r.failed, r.msg, nm)
	}
}

// TestModuleRoot: from a package directory ModuleRoot finds the go.mod
// above it; outside any module it fails the test.
func TestModuleRoot(t *testing.T) {
	if _, err := os.Stat(filepath.Join(ModuleRoot(t), "gen", "internal", "nodetool", "nodetool.go")); err != nil {
		t.Errorf("ModuleRoot is not agentc's root: %v", err)
	}
	t.Chdir(t.TempDir())
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		ModuleRoot(r)
	}()
	<-done
	if !r.failed || !strings.Contains(r.msg, "no go.mod in") {
		t.Errorf("outside a module: failed=%v msg=%q, want a failure", r.failed, r.msg)
	}
}
