//go:build unix

package write_test

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/write"
)

// stageAll stages files as gen does, the manifest aside, in two batches
// (two emitters), and returns the run.
func stageAll(root string, files []emit.File, opt write.Options) *write.Run {
	r := write.Begin(root, opt)
	var batch []emit.File
	for _, f := range files {
		if f.Path != emit.ManifestName {
			batch = append(batch, f)
		}
	}
	half := len(batch) / 2
	r.Stage(batch[:half])
	r.Stage(batch[half:])
	return r
}

// runGen writes files under root through a Run.
func runGen(t *testing.T, root string, files []emit.File, opt write.Options) []write.Change {
	t.Helper()
	changes, err := stageAll(root, files, opt).Commit(files)
	if err != nil {
		t.Fatal(err)
	}
	return changes
}

// entry is what a snapshot records of one file or directory.
type entry struct {
	mode    fs.FileMode
	ino     uint64
	mtime   time.Time
	content string
}

// snapshot records every file and directory under dir (and dir itself),
// temporary ones included, with inode, mode and mtime: two equal
// snapshots mean nothing was created, replaced, rewritten or removed.
func snapshot(t *testing.T, dir string) map[string]entry {
	t.Helper()
	out := map[string]entry{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == dir {
			return filepath.SkipAll
		}
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		e := entry{mode: fi.Mode(), ino: fi.Sys().(*syscall.Stat_t).Ino}
		if !d.IsDir() {
			e.mtime = fi.ModTime()
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			e.content = string(b)
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = e
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffSnapshots(t *testing.T, label string, got, want map[string]entry) {
	t.Helper()
	for p, w := range want {
		g, ok := got[p]
		switch {
		case !ok:
			t.Errorf("%s: %s is gone", label, p)
		case g != w:
			t.Errorf("%s: %s changed: %+v, was %+v", label, p, g, w)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: %s appeared", label, p)
		}
	}
}

// temps lists the temporary files and directories under dir.
func temps(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for p := range snapshot(t, dir) {
		if strings.Contains(p, ".agentc-tmp-") && !strings.Contains(strings.SplitN(p, ".agentc-tmp-", 2)[1], "/") {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

func sameChanges(a, b []write.Change) bool {
	return slices.EqualFunc(a, b, func(x, y write.Change) bool {
		return x.Path == y.Path && x.Kind == y.Kind && string(x.Old) == string(y.Old) && string(x.New) == string(y.New)
	})
}

// TestRunPlansAsPlanAndWritesAsApply: a Run plans exactly what Plan (or
// PlanPartial) plans and leaves exactly the tree Apply leaves — into a
// root that does not exist yet (nor its parent), over an older
// generation (updates, new files in a new directory, stale files and the
// directory they leave empty, a hand-written file beside them), again
// with nothing to change (no file touched), and for a partial run.
func TestRunPlansAsPlanAndWritesAsApply(t *testing.T) {
	oldFiles, newFiles := twoGenerations()
	partial := withManifest(emit.File{Path: "a.ts", Data: headed("partial a")}, emit.File{Path: "e/e.json", Data: []byte("{}\n")})
	viaRun, viaApply := filepath.Join(t.TempDir(), "new", "out"), filepath.Join(t.TempDir(), "new", "out")
	steps := []struct {
		name    string
		files   []emit.File
		partial bool
	}{{"into a new root", oldFiles, false}, {"over the old generation", newFiles, false}, {"unchanged", newFiles, false}, {"partial", partial, true}}
	for i, step := range steps {
		if i == 1 {
			for _, root := range []string{viaRun, viaApply} {
				writeFile(t, filepath.Join(root, "stale", "mine.ts"), "// mine\n")
			}
		}
		before := snapshot(t, viaRun)
		plan := write.Plan
		if step.partial {
			plan = write.PlanPartial
		}
		want, err := plan(viaApply, step.files)
		if err != nil {
			t.Fatal(err)
		}
		if err := write.Apply(write.OS{}, viaApply, want); err != nil {
			t.Fatal(err)
		}
		got := runGen(t, viaRun, step.files, write.Options{Partial: step.partial})
		if !sameChanges(got, want) {
			t.Errorf("%s: the run planned %v, Plan %v", step.name, kinds(got), kinds(want))
		}
		a, b := snapshot(t, viaRun), snapshot(t, viaApply)
		if len(a) != len(b) {
			t.Errorf("%s: the run left %v, Apply %v", step.name, sortedKeys(tree(t, viaRun)), sortedKeys(tree(t, viaApply)))
		}
		for p, e := range b {
			if g, ok := a[p]; !ok || g.content != e.content || g.mode != e.mode {
				t.Errorf("%s: %s is %+v after the run, %+v after Apply", step.name, p, g, e)
			}
		}
		if step.name == "unchanged" {
			diffSnapshots(t, step.name, a, before)
		}
	}
}

// TestRunAbortLeavesNothing: files staged, then a failure (Abort): the
// tree is as it was — no temporary file, no new directory, no file
// touched — both into a root that did not exist and over a generation.
func TestRunAbortLeavesNothing(t *testing.T) {
	oldFiles, newFiles := twoGenerations()
	parent := filepath.Join(t.TempDir(), "parent")
	existing := t.TempDir()
	gen(t, existing, oldFiles)
	for _, root := range []string{filepath.Join(parent, "out"), existing} {
		before := snapshot(t, filepath.Dir(root))
		r := stageAll(root, newFiles, write.Options{})
		r.Wait()
		if len(temps(t, root)) == 0 {
			t.Fatalf("%s: nothing was staged", root)
		}
		r.Abort()
		diffSnapshots(t, root, snapshot(t, filepath.Dir(root)), before)
	}
	if _, err := os.Stat(parent); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the root's parent, made for the run, is left behind: %v", err)
	}
}

// TestRunRefusesHandWrittenFile: a hand-written file at a target refuses
// the whole run after the rest was staged: nothing else is written,
// replaced or removed, and nothing staged is left.
func TestRunRefusesHandWrittenFile(t *testing.T) {
	oldFiles, newFiles := twoGenerations()
	root := t.TempDir()
	gen(t, root, oldFiles)
	writeFile(t, filepath.Join(root, "d", "fresh.ts"), "// mine\n")
	before := snapshot(t, root)
	_, err := stageAll(root, newFiles, write.Options{}).Commit(newFiles)
	var conflict *write.ConflictError
	if !errors.As(err, &conflict) || !slices.Equal(conflict.Paths, []string{"d/fresh.ts"}) {
		t.Fatalf("Commit = %v, want a conflict on d/fresh.ts", err)
	}
	diffSnapshots(t, "refused", snapshot(t, root), before)
}

// TestRunStagingFailureLeavesNothing: a file that cannot be staged (a
// file stands where its directory should be; a read-only directory) fails
// the run, positioned at the path, and leaves nothing of it.
func TestRunStagingFailureLeavesNothing(t *testing.T) {
	oldFiles, newFiles := twoGenerations()
	t.Run("not a directory", func(t *testing.T) {
		root := t.TempDir()
		gen(t, root, oldFiles)
		writeFile(t, filepath.Join(root, "d"), "// mine: d is a file\n")
		before := snapshot(t, root)
		_, err := stageAll(root, newFiles, write.Options{}).Commit(newFiles)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(root, "d")) {
			t.Fatalf("Commit = %v, want an error about %s", err, filepath.Join(root, "d"))
		}
		diffSnapshots(t, "failed", snapshot(t, root), before)
	})
	t.Run("read-only directory", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root writes into a read-only directory")
		}
		root := t.TempDir()
		gen(t, root, oldFiles)
		if err := os.Chmod(filepath.Join(root, "b"), 0o555); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(filepath.Join(root, "b"), 0o755)
		files := slices.Clone(newFiles)
		for i, f := range files {
			if f.Path == "b/b.ts" {
				files[i].Data = headed("changed")
			}
		}
		files = withManifest(slices.DeleteFunc(files, func(f emit.File) bool { return f.Path == emit.ManifestName })...)
		before := snapshot(t, root)
		_, err := stageAll(root, files, write.Options{}).Commit(files)
		if !errors.Is(err, fs.ErrPermission) {
			t.Fatalf("Commit = %v, want a permission error", err)
		}
		diffSnapshots(t, "failed", snapshot(t, root), before)
	})
}

// TestRunReplacesAtomically: a changed file is replaced by a rename (a
// reader holding the old file still reads it whole); an unchanged file is
// not touched (same inode, same mtime).
func TestRunReplacesAtomically(t *testing.T) {
	oldFiles, newFiles := twoGenerations()
	root := t.TempDir()
	gen(t, root, oldFiles)
	old, err := os.Open(filepath.Join(root, "a.ts"))
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	setOld(t, filepath.Join(root, "b", "b.ts"))
	before := snapshot(t, root)
	runGen(t, root, newFiles, write.Options{})
	after := snapshot(t, root)
	if after["a.ts"].ino == before["a.ts"].ino || after["a.ts"].content != contents(newFiles)["a.ts"] {
		t.Errorf("a.ts was not replaced by a new file: %+v", after["a.ts"])
	}
	b := make([]byte, 1<<16)
	n, _ := old.ReadAt(b, 0)
	if string(b[:n]) != contents(oldFiles)["a.ts"] {
		t.Errorf("the old a.ts, held open, now reads %d bytes that are not its old content", n)
	}
	if after["b/b.ts"] != before["b/b.ts"] {
		t.Errorf("unchanged b/b.ts was touched: %+v, was %+v", after["b/b.ts"], before["b/b.ts"])
	}
}

// TestRunModes: files are 0644 and directories 0755 less the umask,
// whatever the umask, as Apply makes them.
func TestRunModes(t *testing.T) {
	_, newFiles := twoGenerations()
	defer syscall.Umask(syscall.Umask(0o077))
	viaRun, viaApply := filepath.Join(t.TempDir(), "out"), filepath.Join(t.TempDir(), "out")
	runGen(t, viaRun, newFiles, write.Options{})
	gen(t, viaApply, newFiles)
	a, b := snapshot(t, viaRun), snapshot(t, viaApply)
	for p, e := range b {
		if a[p].mode != e.mode {
			t.Errorf("%s: mode %v after the run, %v after Apply", p, a[p].mode, e.mode)
		}
	}
	if m := a["a.ts"].mode; m != 0o644 {
		t.Errorf("a.ts: mode %v, want 0644", m)
	}
}

// TestRunPlansNewDirectoriesWithoutReading: the files of a directory that
// does not exist are known to be new without a look at each; the files of
// one that exists are read (through a Memory, which counts the reads).
func TestRunPlansNewDirectoriesWithoutReading(t *testing.T) {
	oldFiles, newFiles := twoGenerations()
	mem := write.NewMemory()
	runGen(t, filepath.Join(t.TempDir(), "new"), newFiles, write.Options{Memory: mem})
	if n := mem.Reads(); n != 0 {
		t.Errorf("a run into a new root read %d files", n)
	}
	root := t.TempDir()
	gen(t, root, oldFiles)
	mem = write.NewMemory()
	runGen(t, root, newFiles, write.Options{Memory: mem})
	// a.ts, b/b.ts, c.json and the manifest exist; d/ is new.
	if n := mem.Reads(); n != 4 {
		t.Errorf("a run over the old generation read %d files, want 4", n)
	}
}

// TestRunLeftovers: what a killed run left (SIGKILL after staging) is
// invisible to plans and check, makes the tree not intact (so the
// unchanged-spec shortcut does not hide it), and the next run removes it;
// a live run's temporary files are left alone.
func TestRunLeftovers(t *testing.T) {
	if os.Getenv("AGENTC_STAGE_CHILD") != "" {
		t.Skip("in the child")
	}
	oldFiles, newFiles := twoGenerations()
	root := t.TempDir()
	gen(t, root, oldFiles)
	manifest := contents(oldFiles)[emit.ManifestName]
	if ok, err := write.Intact(root, emit.Sum([]byte(manifest)), false); !ok || err != nil {
		t.Fatalf("Intact before = %v, %v", ok, err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestStageChild$")
	cmd.Env = append(os.Environ(), "AGENTC_STAGE_CHILD="+root)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if line != "staged\n" {
		t.Fatalf("the child said %q", line)
	}
	left := temps(t, root)
	if len(left) == 0 {
		t.Fatal("the killed run left nothing to test with")
	}
	t.Logf("the killed run left %v", left)

	// A plan (what check does) sees none of it.
	changes, err := write.Plan(root, oldFiles)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if c.Kind != write.Unchanged {
			t.Errorf("with leftovers, a plan of the same files has %s %s", c.Kind, c.Path)
		}
	}
	if ok, err := write.Intact(root, emit.Sum([]byte(manifest)), false); ok || err != nil {
		t.Errorf("Intact with leftovers = %v, %v; want false", ok, err)
	}

	// Temporary files of runs that may still be going on stay: a fresh one
	// of a live process (this test's parent), and one of an older
	// agentc's naming; the same, an hour old, and one of an earlier
	// process with this pid, go.
	live := fmt.Sprintf(".agentc-tmp-%d-0badcafe-1", os.Getppid())
	legacy := ".agentc-tmp-123456789"
	writeFile(t, filepath.Join(root, live), "live")
	writeFile(t, filepath.Join(root, "b", legacy), "legacy")
	writeFile(t, filepath.Join(root, "b", live), "live, old")
	writeFile(t, filepath.Join(root, legacy), "legacy, old")
	writeFile(t, filepath.Join(root, fmt.Sprintf(".agentc-tmp-%d-0badcafe-1", os.Getpid())), "this pid, another process")
	for _, p := range []string{filepath.Join(root, "b", live), filepath.Join(root, legacy)} {
		old := time.Now().Add(-2 * time.Hour)
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	runGen(t, root, newFiles, write.Options{})
	got := tree(t, root)
	want := contents(newFiles)
	want[live] = "live"
	want["b/"+legacy] = "legacy"
	if !equalMaps(got, want) {
		t.Errorf("after the next run: %v, want %v", sortedKeys(got), sortedKeys(want))
	}
}

// TestStageChild is the run TestRunLeftovers kills once it has staged.
func TestStageChild(t *testing.T) {
	root := os.Getenv("AGENTC_STAGE_CHILD")
	if root == "" {
		t.Skip("run by TestRunLeftovers")
	}
	_, newFiles := twoGenerations()
	r := stageAll(root, newFiles, write.Options{})
	r.Wait()
	fmt.Println("staged")
	time.Sleep(time.Minute)
}
