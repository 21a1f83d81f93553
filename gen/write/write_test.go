package write_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/write"
)

var spec = &model.Spec{Files: []string{"spec/tools.cue"}}

// headed returns a generated TypeScript file's content.
func headed(body string) []byte {
	return []byte("// " + emit.Header + "\n// " + emit.SourceLine(spec) + "\n\n" + body + "\n")
}

// withManifest appends the manifest, as emit.Generate does.
func withManifest(files ...emit.File) []emit.File {
	files = append(files, emit.Manifest(spec, files))
	slices.SortFunc(files, func(a, b emit.File) int { return strings.Compare(a.Path, b.Path) })
	return files
}

// gen writes files under root with the real file system.
func gen(t *testing.T, root string, files []emit.File) []write.Change {
	t.Helper()
	changes, err := write.Plan(root, files, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := write.Apply(write.WriteAtomic, root, changes); err != nil {
		t.Fatal(err)
	}
	return changes
}

func kinds(changes []write.Change) map[string]write.Kind {
	out := map[string]write.Kind{}
	for _, c := range changes {
		out[c.Path] = c.Kind
	}
	return out
}

// tree reads every regular file under root (slash paths).
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func setOld(t *testing.T, p string) time.Time {
	t.Helper()
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	return old
}

func TestOnlyChangedFilesAreWritten(t *testing.T) {
	root := t.TempDir()
	v1 := withManifest(
		emit.File{Path: "a/one.ts", Data: headed("one")},
		emit.File{Path: "b/two.json", Data: []byte("{}\n")},
		emit.File{Path: "three.txt", Data: []byte("three\n")},
	)
	if k := kinds(gen(t, root, v1)); k["a/one.ts"] != write.Create || k["b/two.json"] != write.Create {
		t.Fatalf("first run: %v", k)
	}
	// Readable by all, whatever the temporary file's mode was.
	if fi, err := os.Stat(filepath.Join(root, "a/one.ts")); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("a/one.ts: %v, %v; want mode 0644", fi.Mode(), err)
	}
	mtimes := map[string]time.Time{}
	for _, p := range []string{"a/one.ts", "b/two.json", "three.txt"} {
		mtimes[p] = setOld(t, filepath.Join(root, p))
	}

	// The same files again: nothing is written, no mtime moves.
	for _, c := range gen(t, root, v1) {
		if c.Kind != write.Unchanged {
			t.Errorf("second run: %s is %s, want unchanged", c.Path, c.Kind)
		}
	}
	// One file changes: only it is rewritten.
	v2 := withManifest(
		emit.File{Path: "a/one.ts", Data: headed("one")},
		emit.File{Path: "b/two.json", Data: []byte("{\"x\": 1}\n")},
		emit.File{Path: "three.txt", Data: []byte("three\n")},
	)
	k := kinds(gen(t, root, v2))
	if k["b/two.json"] != write.Update || k["a/one.ts"] != write.Unchanged || k["three.txt"] != write.Unchanged {
		t.Errorf("third run: %v", k)
	}
	for p, old := range mtimes {
		fi, err := os.Stat(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		if changed := !fi.ModTime().Equal(old); changed != (p == "b/two.json") {
			t.Errorf("%s: mtime changed = %v", p, changed)
		}
	}
	if got := tree(t, root)["b/two.json"]; got != "{\"x\": 1}\n" {
		t.Errorf("b/two.json = %q", got)
	}
}

func TestStaleFilesAreRemoved(t *testing.T) {
	root := t.TempDir()
	gen(t, root, withManifest(
		emit.File{Path: "keep.ts", Data: headed("keep")},
		emit.File{Path: "gone/old.ts", Data: headed("old")},
		emit.File{Path: "gone/old.json", Data: []byte("{}\n")}, // no header: the manifest vouches for it
	))
	// A hand-written file beside them must survive.
	writeFile(t, filepath.Join(root, "gone", "mine.ts"), "// mine\n")
	// A headered file no manifest lists is agentc's too (an older run's).
	writeFile(t, filepath.Join(root, "orphan.ts"), string(headed("orphan")))

	k := kinds(gen(t, root, withManifest(emit.File{Path: "keep.ts", Data: headed("keep")})))
	for _, p := range []string{"gone/old.ts", "gone/old.json", "orphan.ts"} {
		if k[p] != write.Remove {
			t.Errorf("%s: %s, want remove", p, k[p])
		}
	}
	got := tree(t, root)
	want := []string{emit.ManifestName, "gone/mine.ts", "keep.ts"}
	if keys := sortedKeys(got); !slices.Equal(keys, want) {
		t.Errorf("files after the run: %v, want %v", keys, want)
	}
	if strings.Contains(got[emit.ManifestName], "old") {
		t.Errorf("the manifest still lists removed files:\n%s", got[emit.ManifestName])
	}
	// A directory left empty is removed, however the root is spelled
	// (--out ./generated, --out .).
	for _, r := range []string{root, root + string(filepath.Separator) + "."} {
		gen(t, r, withManifest(emit.File{Path: "keep.ts", Data: headed("keep")}, emit.File{Path: "d/e/x.ts", Data: headed("x")}))
		gen(t, r, withManifest(emit.File{Path: "keep.ts", Data: headed("keep")}))
		if _, err := os.Stat(filepath.Join(root, "d")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("root %s: empty directories d/e were left behind: %v", r, err)
		}
	}
}

// TestLeftoverTempFilesAreRemoved: a full run removes the temporary files
// a killed run left, once older than any run keeps one, and leaves a
// fresh one (a run in progress) alone.
func TestLeftoverTempFilesAreRemoved(t *testing.T) {
	root := t.TempDir()
	files := withManifest(emit.File{Path: "d/a.ts", Data: headed("a")})
	gen(t, root, files)
	writeFile(t, filepath.Join(root, "d", ".agentc-tmp-left"), "half a file")
	setOld(t, filepath.Join(root, "d", ".agentc-tmp-left"))
	writeFile(t, filepath.Join(root, ".agentc-tmp-fresh"), "in progress")
	k := kinds(gen(t, root, files))
	if k["d/.agentc-tmp-left"] != write.Remove || k[".agentc-tmp-fresh"] != "" {
		t.Errorf("planned %v, want the leftover removed and the fresh one left alone", k)
	}
	if got, want := sortedKeys(tree(t, root)), []string{".agentc-tmp-fresh", emit.ManifestName, "d/a.ts"}; !slices.Equal(got, want) {
		t.Errorf("files after the run: %v, want %v", got, want)
	}
}

// TestInstalledPackagesAreLeftAlone: a full run looks for stale files
// only in the output tree itself: node_modules (the OpenCode tools'
// installed packages) and a nested .git are not its to clean, even where
// a file there carries agentc's header (a package built from generated
// code, a checked-in copy).
func TestInstalledPackagesAreLeftAlone(t *testing.T) {
	root := t.TempDir()
	files := withManifest(emit.File{Path: "opencode/tool/a.ts", Data: headed("a")})
	gen(t, root, files)
	for _, p := range []string{"opencode/node_modules/pkg/index.ts", ".git/objects/x.ts"} {
		writeFile(t, filepath.Join(root, filepath.FromSlash(p)), string(headed("installed")))
	}
	if k := kinds(gen(t, root, files)); len(k) != 2 {
		t.Errorf("planned %v, want only the generated files (unchanged)", k)
	}
	want := []string{".git/objects/x.ts", emit.ManifestName, "opencode/node_modules/pkg/index.ts", "opencode/tool/a.ts"}
	if got := sortedKeys(tree(t, root)); !slices.Equal(got, want) {
		t.Errorf("files after the run: %v, want %v", got, want)
	}
}

func TestHandWrittenFileIsNeverOverwritten(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ts", "models.ts"), "// my own models\n")
	writeFile(t, filepath.Join(root, "z.json"), "{\"mine\": true}\n")
	files := withManifest(
		emit.File{Path: "a.ts", Data: headed("a")},
		emit.File{Path: "ts/models.ts", Data: headed("models")},
		emit.File{Path: "z.json", Data: []byte("{}\n")},
	)
	changes, err := write.Plan(root, files, false)
	if err != nil {
		t.Fatal(err)
	}
	err = write.Apply(write.WriteAtomic, root, changes)
	if err == nil {
		t.Fatal("Apply over hand-written files succeeded")
	}
	// Every refused file is named, one a line.
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], filepath.Join(root, "ts", "models.ts")+": ") || !strings.HasPrefix(lines[1], filepath.Join(root, "z.json")+": ") {
		t.Errorf("error %q does not name ts/models.ts and z.json, one a line", err)
	}
	got := tree(t, root)
	if len(got) != 2 || got["ts/models.ts"] != "// my own models\n" || got["z.json"] != "{\"mine\": true}\n" {
		t.Errorf("a refused run wrote files: %v", got)
	}
}

var errInjected = errors.New("injected write failure")

// failingWrite returns WriteAtomic that fails the n-th write.
func failingWrite(failAt int) func(string, []byte) error {
	writes := 0
	return func(p string, data []byte) error {
		writes++
		if writes == failAt {
			// Leave what a crash mid-write would: a partial temp file.
			_ = os.WriteFile(filepath.Join(filepath.Dir(p), ".agentc-tmp-crash"), data[:len(data)/2], 0o644)
			return errInjected
		}
		return write.WriteAtomic(p, data)
	}
}

// TestInterruptedRunLeavesOldOrNew breaks a run at every write in turn and
// checks that each file is then wholly old or wholly new, that stale
// files are old or gone, and that a rerun completes the new tree.
func TestInterruptedRunLeavesOldOrNew(t *testing.T) {
	oldFiles, newFiles := twoGenerations()
	oldTree := contents(oldFiles)
	newTree := contents(newFiles)
	for failAt := 1; ; failAt++ {
		root := t.TempDir()
		gen(t, root, oldFiles)
		changes, err := write.Plan(root, newFiles, false)
		if err != nil {
			t.Fatal(err)
		}
		err = write.Apply(failingWrite(failAt), root, changes)
		if err == nil {
			if failAt == 1 {
				t.Fatal("no write happened")
			}
			break // every write has been broken once
		}
		if !errors.Is(err, errInjected) {
			t.Fatalf("failAt %d: %v", failAt, err)
		}
		checkOldOrNew(t, fmt.Sprintf("failAt %d", failAt), tree(t, root), oldTree, newTree)
		gen(t, root, newFiles)
		if got := visible(tree(t, root)); !equalMaps(got, newTree) {
			t.Errorf("failAt %d: a rerun left %v, want %v", failAt, sortedKeys(got), sortedKeys(newTree))
		}
	}
}

// twoGenerations returns an old and a new output: changed, unchanged,
// created and removed files.
func twoGenerations() (old, new []emit.File) {
	old = withManifest(
		emit.File{Path: "a.ts", Data: headed(strings.Repeat("old a ", 1000))},
		emit.File{Path: "b/b.ts", Data: headed("same")},
		emit.File{Path: "c.json", Data: []byte(`{"v": "old"}` + "\n")},
		emit.File{Path: "stale/s.ts", Data: headed("stale")},
		emit.File{Path: "stale.txt", Data: []byte("stale\n")},
	)
	new = withManifest(
		emit.File{Path: "a.ts", Data: headed(strings.Repeat("new a ", 1000))},
		emit.File{Path: "b/b.ts", Data: headed("same")},
		emit.File{Path: "c.json", Data: []byte(`{"v": "new"}` + "\n")},
		emit.File{Path: "d/fresh.ts", Data: headed("fresh")},
	)
	return old, new
}

func contents(files []emit.File) map[string]string {
	out := map[string]string{}
	for _, f := range files {
		out[f.Path] = string(f.Data)
	}
	return out
}

// visible drops temp files, which agentc ignores and a later run replaces.
func visible(m map[string]string) map[string]string {
	out := map[string]string{}
	for p, c := range m {
		if !strings.HasPrefix(filepath.Base(p), ".agentc-tmp-") {
			out[p] = c
		}
	}
	return out
}

func checkOldOrNew(t *testing.T, label string, got, oldTree, newTree map[string]string) {
	t.Helper()
	for p, c := range visible(got) {
		o, inOld := oldTree[p]
		n, inNew := newTree[p]
		switch {
		case p == emit.ManifestName:
			// The manifest must list every agentc file on disk, so that a
			// rerun recognises (and updates or removes) them.
			listed := emit.ParseManifest([]byte(c))
			for q := range visible(got) {
				if _, ok := listed[q]; !ok && q != emit.ManifestName && !emit.HasHeader([]byte(got[q])) {
					t.Errorf("%s: the manifest on disk does not vouch for %s", label, q)
				}
			}
		case inOld && c == o, inNew && c == n:
		default:
			t.Errorf("%s: %s is neither the old nor the new content (%d bytes)", label, p, len(c))
		}
	}
}

// TestKilledRunLeavesOldOrNew kills a real process in the middle of Apply
// (SIGKILL, no chance to clean up) and checks the tree as above.
func TestKilledRunLeavesOldOrNew(t *testing.T) {
	if os.Getenv("AGENTC_WRITE_CHILD") != "" {
		t.Skip("in the child")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	oldFiles, newFiles := twoGenerations()
	for _, delay := range []time.Duration{5 * time.Millisecond, 25 * time.Millisecond, 45 * time.Millisecond, 70 * time.Millisecond} {
		root := t.TempDir()
		gen(t, root, oldFiles)
		cmd := exec.Command(exe, "-test.run=^TestWriteChild$")
		cmd.Env = append(os.Environ(), "AGENTC_WRITE_CHILD="+root)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		got := tree(t, root)
		newCount := 0
		for p, c := range contents(newFiles) {
			if got[p] == c {
				newCount++
			}
		}
		t.Logf("killed after %v: %d of %d files new", delay, newCount, len(newFiles))
		checkOldOrNew(t, "killed after "+delay.String(), got, contents(oldFiles), contents(newFiles))
	}
}

// slowWrite is WriteAtomic, slowed down so that a kill lands mid-run.
func slowWrite(p string, data []byte) error {
	time.Sleep(10 * time.Millisecond)
	return write.WriteAtomic(p, data)
}

// TestWriteChild is the process TestKilledRunLeavesOldOrNew kills.
func TestWriteChild(t *testing.T) {
	root := os.Getenv("AGENTC_WRITE_CHILD")
	if root == "" {
		t.Skip("run by TestKilledRunLeavesOldOrNew")
	}
	signal.Ignore(syscall.SIGTERM)
	_, newFiles := twoGenerations()
	changes, err := write.Plan(root, newFiles, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := write.Apply(slowWrite, root, changes); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestRootIsAFile: an output root that is a file is refused as that, not
// as a manifest below it that cannot be opened.
func TestRootIsAFile(t *testing.T) {
	root := filepath.Join(t.TempDir(), "out")
	if err := os.WriteFile(root, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := write.Plan(root, withManifest(emit.File{Path: "a.ts", Data: headed("a")}), false)
	if err == nil || err.Error() != "the output root "+root+" is a file: name a directory (--out, codegen.out)" {
		t.Fatalf("Plan into a file: %v", err)
	}
}
