// Package nodetool locates the pinned Node toolchain that agentc's tests run
// against: the real zod, tsc, @opencode-ai/plugin and the opencode binary,
// installed by `make npm` (npm ci) from the committed lockfile in
// gen/testdata/npm.
//
// A developer without the install gets a skip that says how to make one; CI
// (any non-empty CI environment variable) gets a failure instead, because a
// test that silently skips there proves nothing.
package nodetool

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// NPMDir is the directory, relative to the module root, that holds the
// committed package.json and package-lock.json of the test toolchain.
const NPMDir = "gen/testdata/npm"

// installHint tells a reader how to get the toolchain.
const installHint = "run `make npm` (npm ci --no-audit --no-fund in " + NPMDir + ")"

// ModuleRoot returns the directory holding go.mod, found by walking up from
// the working directory. It fails the test when there is none.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatalf("nodetool: finding the module root: %v", err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		} else if !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("nodetool: finding the module root: %v", err)
		}
		if filepath.Dir(dir) == dir {
			t.Fatalf("nodetool: no go.mod in %s or any parent directory", wd)
		}
	}
}

// Dir returns the absolute path of gen/testdata/npm/node_modules.
//
// When the directory is missing it skips the test if the CI environment
// variable is empty and fails it otherwise.
func Dir(t testing.TB) string {
	t.Helper()
	root := ModuleRoot(t)
	return dirIn(t, root, os.Getenv("CI"))
}

// dirIn is Dir with the module root and the CI setting passed in, so the
// skip-or-fail decision can be tested.
func dirIn(t testing.TB, root, ci string) string {
	t.Helper()
	dir := filepath.Join(root, filepath.FromSlash(NPMDir), "node_modules")
	info, err := os.Stat(dir)
	switch {
	case err == nil && info.IsDir():
		return dir
	case err == nil:
		t.Fatalf("nodetool: %s is not a directory; remove it and %s", dir, installHint)
	case errors.Is(err, fs.ErrNotExist) && ci == "":
		t.Skipf("nodetool: the pinned Node toolchain is not installed (%s is missing); %s to run this test", dir, installHint)
	case errors.Is(err, fs.ErrNotExist):
		t.Fatalf("nodetool: CI=%q but the pinned Node toolchain is not installed (%s is missing); CI must %s before go test", ci, dir, installHint)
	default:
		t.Fatalf("nodetool: %v", err)
	}
	return ""
}

// Node returns the path of the node executable found on PATH. It skips or
// fails like Dir when the toolchain is not installed, and fails when it is
// installed but node cannot be found.
func Node(t testing.TB) string {
	t.Helper()
	Dir(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("nodetool: the toolchain in %s is installed but node is not on PATH: %v", NPMDir, err)
	}
	return node
}

// Tsc returns the absolute path of node_modules/.bin/tsc, the pinned
// TypeScript compiler. It skips or fails like Dir.
func Tsc(t testing.TB) string {
	t.Helper()
	tsc := filepath.Join(Dir(t), ".bin", "tsc")
	if err := checkExecutable(tsc); err != nil {
		t.Fatalf("nodetool: %v; %s", err, installHint)
	}
	return tsc
}

// OpencodeBin returns the absolute path of the native opencode executable
// installed by the opencode-ai package. It skips or fails like Dir.
//
// It prefers node_modules/opencode-ai/bin/opencode.exe, which opencode-ai's
// postinstall links to the variant that runs on this machine (baseline
// builds for CPUs without AVX2, musl builds for musl systems) after checking
// that it starts; it falls back to the platform packages in the same order
// when the postinstall did not run.
func OpencodeBin(t testing.TB) string {
	t.Helper()
	dir := Dir(t)
	var errs []error
	for _, c := range opencodeCandidates(dir, runtime.GOOS, runtime.GOARCH) {
		err := checkNative(c)
		if err == nil {
			return c
		}
		errs = append(errs, err)
	}
	t.Fatalf("nodetool: no native opencode binary for %s/%s: %v; %s", runtime.GOOS, runtime.GOARCH, errors.Join(errs...), installHint)
	return ""
}

// opencodeCandidates lists where the opencode binary may be, best first.
func opencodeCandidates(nodeModules, goos, goarch string) []string {
	out := []string{filepath.Join(nodeModules, "opencode-ai", "bin", "opencode.exe")}
	arch := goarch
	if arch == "amd64" {
		arch = "x64"
	}
	exe := "opencode"
	if goos == "windows" {
		exe = "opencode.exe"
	}
	base := "opencode-" + goos + "-" + arch
	for _, pkg := range []string{base, base + "-baseline", base + "-musl", base + "-baseline-musl"} {
		out = append(out, filepath.Join(nodeModules, pkg, "bin", exe))
	}
	return out
}

// checkExecutable reports whether path is a regular file with an execute bit.
func checkExecutable(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	if runtime.GOOS != "windows" && info.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not executable", path)
	}
	return nil
}

// checkNative reports whether path is an executable that is not a script
// (a shell or node wrapper starts with "#!").
func checkNative(path string) error {
	if err := checkExecutable(path); err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 2)
	if _, err := io.ReadFull(f, head); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if bytes.Equal(head, []byte("#!")) {
		return fmt.Errorf("%s is a script, not the native binary", path)
	}
	return nil
}
