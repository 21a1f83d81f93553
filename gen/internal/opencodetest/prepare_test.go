package opencodetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrepare: prepare writes the locks naming the installed plugin's
// version, leaves a project's own lock and node_modules alone, and refuses
// a config that is not JSON or a toolchain without the plugin.
func TestPrepare(t *testing.T) {
	nodeModules := t.TempDir()
	plugin := filepath.Join(nodeModules, "@opencode-ai", "plugin")
	if err := os.MkdirAll(plugin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(plugin, "package.json"), []byte(`{"version":"9.8.7"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(path string) string {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}

	dir, home := t.TempDir(), t.TempDir()
	if err := prepare(dir, home, nodeModules, []byte(`{"autoupdate":false}`)); err != nil {
		t.Fatal(err)
	}
	for _, lock := range []string{filepath.Join(dir, ".opencode", "package-lock.json"), filepath.Join(home, ".config", "opencode", "package-lock.json")} {
		if got := read(lock); !strings.Contains(got, `"node_modules/@opencode-ai/plugin": {`) || !strings.Contains(got, `"version": "9.8.7"`) {
			t.Errorf("%s:\n%s", lock, got)
		}
	}
	if got := read(filepath.Join(dir, "opencode.json")); got != `{"autoupdate":false}` {
		t.Errorf("opencode.json = %s", got)
	}
	if link, err := os.Readlink(filepath.Join(dir, ".opencode", "node_modules")); err != nil || link != nodeModules {
		t.Errorf("node_modules link = %q, %v; want %s", link, err, nodeModules)
	}

	// A project with its own lock and node_modules keeps them.
	own := t.TempDir()
	project := filepath.Join(own, ".opencode")
	if err := os.MkdirAll(filepath.Join(project, "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "package-lock.json"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := prepare(own, t.TempDir(), nodeModules, nil); err != nil {
		t.Fatal(err)
	}
	if got := read(filepath.Join(project, "package-lock.json")); got != "mine" {
		t.Errorf("the project's own lock was replaced: %s", got)
	}
	if info, err := os.Lstat(filepath.Join(project, "node_modules")); err != nil || !info.IsDir() {
		t.Errorf("the project's own node_modules was replaced: %v", err)
	}
	if _, err := os.Stat(filepath.Join(own, "opencode.json")); err == nil {
		t.Error("a nil config wrote opencode.json")
	}

	if err := prepare(t.TempDir(), t.TempDir(), nodeModules, []byte("{nope")); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("invalid config: err = %v", err)
	}
	if err := prepare(t.TempDir(), t.TempDir(), t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), "@opencode-ai/plugin") {
		t.Errorf("a toolchain without the plugin: err = %v", err)
	}
}
