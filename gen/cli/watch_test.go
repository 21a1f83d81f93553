package cli

import (
	"bytes"
	"context"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/agentc-dev/agentc/gen/internal/synth"
)

// lineSink sends every complete line written to it to C, and keeps all.
type lineSink struct {
	mu   sync.Mutex
	part []byte
	all  bytes.Buffer
	C    chan string
}

func (s *lineSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.all.Write(p)
	s.part = append(s.part, p...)
	for {
		i := bytes.IndexByte(s.part, '\n')
		if i < 0 {
			return len(p), nil
		}
		s.C <- string(s.part[:i])
		s.part = s.part[i+1:]
	}
}

// await returns the lines up to and including the first that matches re.
// The limit only stops a hung test; nothing depends on a quiet machine.
func (s *lineSink) await(t *testing.T, re string) []string {
	t.Helper()
	rx := regexp.MustCompile(re)
	var got []string
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case l := <-s.C:
			got = append(got, l)
			if rx.MatchString(l) {
				return got
			}
		case <-deadline:
			t.Fatalf("no line matching %q; got:\n%s", re, strings.Join(got, "\n"))
		}
	}
}

// TestWatch drives gen --watch through a spec author's session: the first
// generation, a one-line edit, a broken save, its repair, and the end. After
// each save the output equals a one-shot gen of the same spec.
func TestWatch(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	dir, sink, stop := startWatch(t, 8, out)

	first := sink.await(t, `watching .* for changes`)
	if !regexp.MustCompile(`^agentc gen: .*/out: [1-9][0-9]* written, 0 unchanged, 0 removed$`).MatchString(first[0]) {
		t.Fatalf("first line %q, want every file written", first[0])
	}
	sameAsOneShot(t, dir, out)

	// A one-line edit: one tool's description.
	tools := filepath.Join(dir, "synthetic_tools.cue")
	orig, err := os.ReadFile(tools)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(orig, []byte(`"Synthetic tool 2: saves service commands."`), []byte(`"Synthetic tool 2: saves the commands, edited."`), 1)
	if bytes.Equal(edited, orig) {
		t.Fatal("the edit changed nothing")
	}
	writeSpecFile(t, tools, edited)
	l := sink.await(t, `written|finding`)
	if m := regexp.MustCompile(`: ([1-9][0-9]*) written, ([1-9][0-9]*) unchanged, 0 removed$`).FindStringSubmatch(l[len(l)-1]); m == nil {
		t.Fatalf("after the edit: %q, want some files written and the others unchanged", l)
	}
	b, err := os.ReadFile(filepath.Join(out, "opencode", "tool", "synthetic_tool_0002.txt"))
	if err != nil || !strings.Contains(string(b), "edited.") {
		t.Fatalf("the edit did not reach the tool's description: %q, %v", b, err)
	}
	sameAsOneShot(t, dir, out)

	// A broken save is reported at its position, and watch goes on.
	writeSpecFile(t, tools, append(bytes.Clone(edited), "\ntools: broken: {\n"...))
	l = sink.await(t, `waiting for the next save`)
	if !containsMatch(l, `synthetic_tools\.cue:[0-9]+:[0-9]+: `) {
		t.Fatalf("the broken save was not reported with file:line:col:\n%s", strings.Join(l, "\n"))
	}

	// Repaired: back to the original spec, written again.
	writeSpecFile(t, tools, orig)
	l = sink.await(t, `written|finding`)
	if !strings.HasSuffix(l[len(l)-1], "unchanged, 0 removed") {
		t.Fatalf("after the repair: %q", l)
	}
	sameAsOneShot(t, dir, out)

	// A save gen refuses for a reason other than findings (the output root
	// is another contract's) is reported as a one-shot gen reports it,
	// nothing is written, and watch goes on.
	contract := filepath.Join(dir, "contract.cue")
	corig, err := os.ReadFile(contract)
	if err != nil {
		t.Fatal(err)
	}
	before := readTree(t, out)
	writeSpecFile(t, contract, bytes.Replace(corig, []byte(`name:     "proliferate"`), []byte(`name:     "other"`), 1))
	l = sink.await(t, `waiting for the next save`)
	if !containsMatch(l, `^agentc gen: .*out was generated from agent contract "proliferate" .*, not "other"`) {
		t.Fatalf("the refused save was not reported:\n%s", strings.Join(l, "\n"))
	}
	if after := readTree(t, out); !maps.Equal(after, before) {
		t.Fatal("the refused save changed the output")
	}
	writeSpecFile(t, contract, corig)
	l = sink.await(t, `written|finding`)
	if !regexp.MustCompile(`: 0 written, [1-9][0-9]* unchanged, 0 removed$`).MatchString(l[len(l)-1]) {
		t.Fatalf("after the contract's name came back: %q, want nothing written", l)
	}

	// A package the spec imports from its own module, in a directory made
	// while watching: a save there regenerates as a save of the spec's
	// own files does.
	common := filepath.Join(dir, "common")
	if err := os.Mkdir(common, 0o755); err != nil {
		t.Fatal(err)
	}
	note := filepath.Join(common, "common.cue")
	writeSpecFile(t, note, []byte("package common\n\n#Note: \"Synthetic tool 2: from common.\"\n"))
	imports := bytes.Replace(orig, []byte("\t\"strings\"\n)"), []byte("\t\"strings\"\n\t\"agentc.dev/spec/common\"\n)"), 1)
	imports = bytes.Replace(imports, []byte(`"Synthetic tool 2: saves service commands."`), []byte("common.#Note"), 1)
	writeSpecFile(t, tools, imports)
	l = sink.await(t, `written|finding`)
	if !strings.HasSuffix(l[len(l)-1], "unchanged, 0 removed") {
		t.Fatalf("after importing common: %q", l)
	}
	writeSpecFile(t, note, []byte("package common\n\n#Note: \"Synthetic tool 2: from common, edited.\"\n"))
	l = sink.await(t, `written|finding`)
	if !regexp.MustCompile(`: [1-9][0-9]* written, [1-9][0-9]* unchanged, 0 removed$`).MatchString(l[len(l)-1]) {
		t.Fatalf("after editing common: %q, want some files written", l)
	}
	b, err = os.ReadFile(filepath.Join(out, "opencode", "tool", "synthetic_tool_0002.txt"))
	if err != nil || !strings.Contains(string(b), "from common, edited.") {
		t.Fatalf("the edit of the imported package did not reach the tool's description: %q, %v", b, err)
	}
	sameAsOneShot(t, dir, out)

	// A directory moved in with a .cue file already in it makes one event,
	// for the directory: that regenerates too.
	moved := filepath.Join(t.TempDir(), "extra")
	if err := os.Mkdir(moved, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(moved, "extra.cue"), []byte("package extra\n\n#Extra: string\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(moved, filepath.Join(dir, "extra")); err != nil {
		t.Fatal(err)
	}
	l = sink.await(t, `written|finding`)
	if !regexp.MustCompile(`: 0 written, [1-9][0-9]* unchanged, 0 removed$`).MatchString(l[len(l)-1]) {
		t.Fatalf("after a directory moved in: %q, want a run that writes nothing", l)
	}

	// A file that is not part of the spec is ignored.
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hi"), 0o644); err != nil {
		t.Fatal(err)
	}

	if err := stop(); err != nil {
		t.Fatalf("watch ended with %v, want nil", err)
	}
	close(sink.C)
	var rest []string
	for l := range sink.C {
		rest = append(rest, l)
	}
	if len(rest) != 1 || !strings.HasPrefix(rest[0], "agentc gen: stopped watching") {
		t.Errorf("after the end: %q, want only the stop line (notes.txt must not regenerate)", rest)
	}
}

// TestWatchSpecDirMoved: the spec directory moved away (or removed) takes
// its watches with it; watch says the spec is gone, and when the directory
// comes back (moved back, a git checkout), watches and regenerates it again.
func TestWatchSpecDirMoved(t *testing.T) {
	dir, sink, stop := startWatch(t, 8, filepath.Join(t.TempDir(), "out"))
	sink.await(t, `watching .* for changes`)
	away := filepath.Join(t.TempDir(), "away")
	if err := os.Rename(dir, away); err != nil {
		t.Fatal(err)
	}
	if l := sink.await(t, `waiting for the next save`); !containsMatch(l, `spec directory: .*spec: no such file or directory`) {
		t.Fatalf("after the spec directory moved away:\n%s", strings.Join(l, "\n"))
	}
	if err := os.Rename(away, dir); err != nil {
		t.Fatal(err)
	}
	if l := sink.await(t, `written|finding|waiting`); !regexp.MustCompile(`: 0 written, [1-9][0-9]* unchanged, 0 removed$`).MatchString(l[len(l)-1]) {
		t.Fatalf("after the spec directory came back: %q, want a run that writes nothing", l)
	}
	tools := filepath.Join(dir, "synthetic_tools.cue")
	b, err := os.ReadFile(tools)
	if err != nil {
		t.Fatal(err)
	}
	writeSpecFile(t, tools, bytes.Replace(b, []byte("Synthetic tool 2: saves service commands."), []byte("Synthetic tool 2: back."), 1))
	if l := sink.await(t, `written|finding|waiting`); !regexp.MustCompile(`: [1-9][0-9]* written, [1-9][0-9]* unchanged, 0 removed$`).MatchString(l[len(l)-1]) {
		t.Fatalf("after a save in the spec directory moved back: %q, want some files written", l)
	}

	// The parent is watched for the spec directory alone: a .cue file
	// beside the spec directory is no part of it.
	if err := os.WriteFile(filepath.Join(filepath.Dir(dir), "beside.cue"), []byte("package beside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * settle)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	close(sink.C)
	for l := range sink.C {
		if !strings.HasPrefix(l, "agentc gen: stopped watching") {
			t.Errorf("after a .cue file was saved beside the spec directory: %q, want only the stop line", l)
		}
	}
}

// startWatch writes a synthetic spec of n tools and runs watch on it in
// the background, generating into out, as gen --watch does. stop ends the
// watch and returns what it returned; the test's cleanup calls it too, for
// a test that ends before it does.
func startWatch(t *testing.T, n int, out string) (dir string, sink *lineSink, stop func() error) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "spec")
	if err := synth.WriteDir(dir, synth.Files(n)); err != nil {
		t.Fatal(err)
	}
	sink, stop = watchDir(t, dir, out)
	return dir, sink, stop
}

// watchDir runs watch on the spec in dir as startWatch does.
func watchDir(t *testing.T, dir, out string) (sink *lineSink, stop func() error) {
	t.Helper()
	sink = &lineSink{C: make(chan string, 1000)}
	e := &env{stdout: &bytes.Buffer{}, stderr: sink}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- watch(ctx, e, &specFlags{specChoice: specChoice{spec: dir}, out: out}) }()
	stop = sync.OnceValue(func() error {
		cancel()
		return <-done
	})
	t.Cleanup(func() { stop() })
	return sink, stop
}

// TestWatchLinkedPackage: a package of the spec's module linked into the
// spec directory (common -> ../shared), which CUE loads through the link,
// is watched through it.
func TestWatchLinkedPackage(t *testing.T) {
	files := synth.Files(8)
	tools := files["synthetic_tools.cue"]
	tools = bytes.Replace(tools, []byte("\t\"strings\"\n)"), []byte("\t\"strings\"\n\t\"agentc.dev/spec/common\"\n)"), 1)
	files["synthetic_tools.cue"] = bytes.Replace(tools, []byte(`"Synthetic tool 2: saves service commands."`), []byte("common.#Note"), 1)
	dir := filepath.Join(t.TempDir(), "spec")
	if err := synth.WriteDir(dir, files); err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(t.TempDir(), "shared")
	if err := synth.WriteDir(shared, map[string][]byte{"common.cue": []byte("package common\n\n#Note: \"Synthetic tool 2: shared.\"\n")}); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(shared, filepath.Join(dir, "common")); err != nil {
		t.Fatal(err)
	}
	sink, _ := watchDir(t, dir, filepath.Join(t.TempDir(), "out"))
	if l := sink.await(t, `watching .* for changes`); !strings.HasSuffix(l[0], " 0 removed") {
		t.Fatalf("first run: %q", l)
	}
	writeSpecFile(t, filepath.Join(shared, "common.cue"), []byte("package common\n\n#Note: \"Synthetic tool 2: shared, edited.\"\n"))
	if l := sink.await(t, `written|finding|waiting`); !regexp.MustCompile(`: [1-9][0-9]* written, [1-9][0-9]* unchanged, 0 removed$`).MatchString(l[len(l)-1]) {
		t.Fatalf("after a save in the linked package: %q, want some files written", l)
	}
}

// TestWatchSymlinkedSpec: a spec directory named by a symbolic link to it
// is watched (a walk does not follow the link, and watched nothing).
func TestWatchSymlinkedSpec(t *testing.T) {
	real := filepath.Join(t.TempDir(), "spec")
	if err := synth.WriteDir(real, synth.Files(8)); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	sink, _ := watchDir(t, link, filepath.Join(t.TempDir(), "out"))
	sink.await(t, `watching .* for changes`)
	tools := filepath.Join(link, "synthetic_tools.cue")
	b, err := os.ReadFile(tools)
	if err != nil {
		t.Fatal(err)
	}
	writeSpecFile(t, tools, bytes.Replace(b, []byte("Synthetic tool 2: saves service commands."), []byte("Synthetic tool 2: linked."), 1))
	if l := sink.await(t, `written|finding|waiting`); !regexp.MustCompile(`: [1-9][0-9]* written, [1-9][0-9]* unchanged, 0 removed$`).MatchString(l[len(l)-1]) {
		t.Fatalf("after a save in the linked spec directory: %q, want some files written", l)
	}
}

func containsMatch(lines []string, re string) bool {
	rx := regexp.MustCompile(re)
	for _, l := range lines {
		if rx.MatchString(l) {
			return true
		}
	}
	return false
}

// writeSpecFile saves a file as many editors do: a new file renamed over
// the old one.
func writeSpecFile(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := path + ".swp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// sameAsOneShot fails unless out holds exactly what a one-shot gen of dir
// writes.
func sameAsOneShot(t *testing.T, dir, out string) {
	t.Helper()
	fresh := filepath.Join(t.TempDir(), "fresh")
	if _, err := genOnce(&specFlags{specChoice: specChoice{spec: dir}, out: fresh}, nil); err != nil {
		t.Fatal(err)
	}
	want, got := readTree(t, fresh), readTree(t, out)
	if len(want) != len(got) {
		t.Fatalf("watch left %d files, a one-shot gen writes %d", len(got), len(want))
	}
	for p, w := range want {
		if g, ok := got[p]; !ok || g != w {
			t.Fatalf("%s differs from a one-shot gen", p)
		}
	}
}

// readTree reads every file under root, by its path under root (which
// starts with a separator).
func readTree(t testing.TB, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		files[p[len(root):]] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestMain lets TestWatchInterrupt run this test binary as agentc, and
// BenchmarkCommands as its launcher (measure).
func TestMain(m *testing.M) {
	if os.Getenv("AGENTC_TEST_AS_MAIN") == "1" {
		os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	if os.Getenv("AGENTC_BENCH_LAUNCH") == "1" {
		os.Exit(launch(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// TestWatchInterrupt: agentc gen --watch, as a process, ends on SIGINT with
// exit status 0 and says so.
func TestWatchInterrupt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spec")
	if err := synth.WriteDir(dir, synth.Files(5)); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "gen", "--watch", "--spec", dir, "--out", filepath.Join(t.TempDir(), "out"))
	cmd.Env = append(os.Environ(), "AGENTC_TEST_AS_MAIN=1")
	sink := &lineSink{C: make(chan string, 100)}
	cmd.Stderr = sink
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sink.await(t, `watching .* for changes \(Ctrl-C to stop\)`)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after SIGINT: %v, want exit status 0\n%s", err, sink.all.String())
	}
	sink.await(t, `^agentc gen: stopped watching `)
	if stdout.Len() > 0 {
		t.Errorf("stdout should be empty, got %q", stdout.String())
	}
}

// TestWatchInterruptMidWrite: gen --watch interrupted (SIGINT) while its
// first run writes says so and stops, exit status 0, without saying it
// waits for the next save.
func TestWatchInterruptMidWrite(t *testing.T) {
	_, stderr, err := interruptMidWrite(t, "--watch")
	if err != nil {
		t.Fatalf("after SIGINT: %v, want exit status 0\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "interrupted (interrupt) after writing every file") || !strings.Contains(stderr, "stopped watching") || strings.Contains(stderr, "waiting for the next save") {
		t.Errorf("gen --watch interrupted while it writes: want it to say so and stop, not wait for the next save:\n%s", stderr)
	}
}

// TestGenInterrupt: agentc gen, as a process, interrupted (SIGINT) while it
// writes, writes every file before it stops: no temporary file is left, the
// output is a one-shot gen's, and it exits 1 saying it was interrupted.
func TestGenInterrupt(t *testing.T) {
	out, stderr, err := interruptMidWrite(t)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(stderr, "interrupted") {
		t.Fatalf("after SIGINT: %v, want exit status 1 and a word that it was interrupted\n%s", err, stderr)
	}
	for p := range readTree(t, out) {
		if strings.Contains(p, ".agentc-tmp-") {
			t.Errorf("left a temporary file: %s", p)
		}
	}
	sameAsOneShot(t, filepath.Join(filepath.Dir(out), "spec"), out)
}

// interruptMidWrite runs agentc gen with args on a 300-tool spec, as a
// process, and interrupts it (SIGINT) once it has written its first file,
// the manifest; it returns the output root (out, beside the spec directory,
// spec, in one temporary directory), what the run printed on stderr and how
// it ended.
func interruptMidWrite(t *testing.T, args ...string) (out, stderr string, err error) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "spec")
	if err := synth.WriteDir(dir, synth.Files(300)); err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(filepath.Dir(dir), "out")
	cmd := exec.Command(os.Args[0], append([]string{"gen", "--spec", dir, "--out", out}, args...)...)
	cmd.Env = append(os.Environ(), "AGENTC_TEST_AS_MAIN=1")
	var buf bytes.Buffer
	cmd.Stderr = &buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(time.Millisecond) {
		if _, err := os.Stat(filepath.Join(out, "agentc-manifest.txt")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("gen wrote no manifest:\n%s", buf.String())
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	return out, buf.String(), err
}

// TestSpecEvent: only changes to .cue files (in the watched directories:
// the spec's, and those below it) regenerate.
func TestSpecEvent(t *testing.T) {
	dir := filepath.Join(string(filepath.Separator), "w", "spec")
	for _, tc := range []struct {
		name string
		op   fsnotify.Op
		want bool
	}{
		{"tools.cue", fsnotify.Write, true},
		{"tools.cue", fsnotify.Create, true},
		{"tools.cue", fsnotify.Rename, true},
		{"tools.cue", fsnotify.Remove, true},
		{"tools.cue", fsnotify.Chmod, false},
		{"tools.cue.swp", fsnotify.Write, false},
		{"notes.txt", fsnotify.Write, false},
		{"cue.mod/module.cue", fsnotify.Write, true},
		{"cue.mod/pkg/example.com/x/x.cue", fsnotify.Write, true},
		{"sub/x.cue", fsnotify.Write, true},
		{"sub", fsnotify.Create, false},
		{"sub/x.cue", fsnotify.Chmod, false},
	} {
		ev := fsnotify.Event{Name: filepath.Join(dir, filepath.FromSlash(tc.name)), Op: tc.op}
		if got := specEvent(ev); got != tc.want {
			t.Errorf("specEvent(%s %v) = %v, want %v", tc.name, tc.op, got, tc.want)
		}
	}
}

// TestWatchTree: watch follows every directory below the spec's that can
// hold a package of it, and none of the hidden ones or node_modules.
func TestWatchTree(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"common/deep", ".git/objects", "node_modules/zod/lib", "cue.mod"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if cue, err := watchTree(w, root, true); err != nil || cue {
		t.Fatalf("watchTree = %v, %v; want no .cue file and no error", cue, err)
	}
	watched := func() []string {
		var got []string
		for _, p := range w.WatchList() {
			rel, _ := filepath.Rel(root, p)
			got = append(got, filepath.ToSlash(rel))
		}
		slices.Sort(got)
		return got
	}
	if got, want := watched(), []string{".", "common", "common/deep", "cue.mod"}; !slices.Equal(got, want) {
		t.Errorf("watched %q, want %q", got, want)
	}

	// Directories made while watching: a hidden one and node_modules are
	// left out as below the root; a tree moved in is watched whole, and
	// its .cue file reported, for it makes no event of its own.
	for _, d := range []string{".cache/x", "node_modules/zod", "empty", "moved/sub"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "moved", "sub", "extra.cue"), []byte("package extra\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{".cache": false, "node_modules": false, "empty": false, "moved": true} {
		if cue, err := created(w, filepath.Join(root, name)); err != nil || cue != want {
			t.Errorf("created(%s) = %v, %v; want %v, nil", name, cue, err, want)
		}
	}
	if got, want := watched(), []string{".", "common", "common/deep", "cue.mod", "empty", "moved", "moved/sub"}; !slices.Equal(got, want) {
		t.Errorf("after the new directories, watched %q, want %q", got, want)
	}
}

// TestWatchModule checks that in a module rooted above the spec directory
// the directories that hold .cue files are watched (cue.mod, a package the
// spec may import), and no other: not one without a .cue file, not a hidden
// one or node_modules.
func TestWatchModule(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"cue.mod/module.cue", "schemas/slug.cue", "docs/readme.md", ".git/x/a.cue", "node_modules/m/b.cue", "contracts/agent/tools.cue"} {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := watchTree(w, root, false); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range w.WatchList() {
		rel, _ := filepath.Rel(root, p)
		got = append(got, filepath.ToSlash(rel))
	}
	slices.Sort(got)
	if want := []string{"contracts/agent", "cue.mod", "schemas"}; !slices.Equal(got, want) {
		t.Errorf("watched %q, want %q", got, want)
	}
}

// gcPercent returns the collector's target, which only setting it reads.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestWatchGC checks that a watch runs with the collector's target
// watchGCPercent and restores the one it found when it ends, and that a
// GOGC in the environment is left to rule.
func TestWatchGC(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	_, sink, stop := startWatch(t, 5, filepath.Join(t.TempDir(), "out"))
	sink.await(t, `watching .* for changes`)
	during := gcPercent()
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if during != watchGCPercent || gcPercent() != 100 {
		t.Errorf("GC target %d while watching, %d after; want %d, then 100 again", during, gcPercent(), watchGCPercent)
	}

	t.Setenv("GOGC", "50")
	debug.SetGCPercent(50)
	defer watchGC()()
	if p := gcPercent(); p != 50 {
		t.Errorf("with GOGC=50 in the environment, a watch set the GC target to %d", p)
	}
}
