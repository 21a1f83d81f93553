// Package write puts generated files on disk safely: it plans every change
// first and refuses the whole run if any target is a hand-written file; then
// it writes each changed file atomically (temp file + rename), leaves
// unchanged files alone (their mtime too) and removes stale files that are
// agentc's own (they carry its header or its manifest lists them).
package write

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentc-dev/agentc/gen/emit"
)

// Kind is what a plan does to one path.
type Kind string

// The kinds of change.
const (
	Create    Kind = "create"
	Update    Kind = "update"
	Unchanged Kind = "unchanged"
	Remove    Kind = "remove"
	// Conflict: the target exists and is not agentc's; nothing is written.
	Conflict Kind = "conflict"
)

// Change is one planned change.
type Change struct {
	Path string // slash path relative to the root
	Kind Kind
	// Old is the current content (Update, Remove, Conflict); New the
	// generated content (Create, Update, Unchanged, Conflict).
	Old, New []byte
}

// Plan compares files with the tree under root and returns every change,
// sorted by path. It reads but never writes.
func Plan(root string, files []emit.File) ([]Change, error) {
	return plan(root, files, false, nil)
}

// PlanPartial is Plan for a run of only some emitters: it never removes a
// file, and the manifest among files is extended with the previous
// manifest's entries for files that still exist and that this run did not
// produce, so the other emitters' files stay recognisably agentc's.
func PlanPartial(root string, files []emit.File) ([]Change, error) {
	old, err := readFile(filepath.Join(root, emit.ManifestName))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	files = slices.Clone(files)
	for i, f := range files {
		if f.Path == emit.ManifestName {
			files[i].Data = partialManifest(root, f.Data, old, files)
		}
	}
	return plan(root, files, true, nil)
}

// partialManifest returns the manifest data of a run of some emitters
// that produced files: extended with the entries of the previous
// manifest, old, for files that still exist and that it did not produce.
func partialManifest(root string, data, old []byte, files []emit.File) []byte {
	produced := map[string]bool{}
	for _, f := range files {
		produced[f.Path] = true
	}
	var keep []string
	for p, sum := range emit.ParseManifest(old) {
		if produced[p] {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err == nil {
			keep = append(keep, sum+"  "+p)
		}
	}
	if len(keep) == 0 {
		return data
	}
	slices.Sort(keep)
	return mergeManifest(data, keep)
}

// mergeManifest adds entry lines to a manifest, keeping lines sorted by path.
func mergeManifest(data []byte, entries []string) []byte {
	var head, lines []string
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if strings.HasPrefix(l, "#") {
			head = append(head, l)
		} else if l != "" {
			lines = append(lines, l)
		}
	}
	lines = append(lines, entries...)
	slices.SortFunc(lines, func(a, b string) int {
		_, pa, _ := strings.Cut(a, "  ")
		_, pb, _ := strings.Cut(b, "  ")
		return strings.Compare(pa, pb)
	})
	return []byte(strings.Join(append(head, lines...), "\n") + "\n")
}

// plan is Plan (and PlanPartial), reading through mem when it is not nil.
func plan(root string, files []emit.File, partial bool, mem *Memory) ([]Change, error) {
	manifest, err := oldManifest(root)
	if err != nil {
		return nil, err
	}
	// The files are read concurrently (most of a large run's plan is
	// waiting for reads), then compared in order.
	olds := make([][]byte, len(files))
	rerrs := make([]error, len(files))
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range min(len(files), 2*runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(files); i = int(next.Add(1) - 1) {
				p := filepath.Join(root, filepath.FromSlash(files[i].Path))
				if mem != nil {
					olds[i], rerrs[i] = mem.read(files[i].Path, p)
					continue
				}
				olds[i], rerrs[i] = readFile(p)
			}
		})
	}
	wg.Wait()
	changes := make([]Change, 0, len(files))
	want := make(map[string]bool, len(files))
	for i, f := range files {
		want[f.Path] = true
		c, err := classify(f, olds[i], rerrs[i], manifest)
		if err != nil {
			return nil, err
		}
		changes = append(changes, c)
	}
	if !partial {
		removes, err := stale(root, want, manifest, nil)
		if err != nil {
			return nil, err
		}
		changes = append(changes, removes...)
	}
	sortChanges(changes)
	return changes, nil
}

// oldManifest returns the entries of the manifest under root (none if
// there is none).
func oldManifest(root string) (map[string]string, error) {
	b, err := readFile(filepath.Join(root, emit.ManifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return emit.ParseManifest(b), nil
}

// classify plans one generated file, given what reading its target
// returned and the previous manifest.
func classify(f emit.File, old []byte, err error, manifest map[string]string) (Change, error) {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Change{Path: f.Path, Kind: Create, New: f.Data}, nil
	case err != nil:
		return Change{}, err
	case string(old) == string(f.Data):
		return Change{Path: f.Path, Kind: Unchanged, Old: old, New: f.Data}, nil
	case owned(f.Path, old, manifest):
		return Change{Path: f.Path, Kind: Update, Old: old, New: f.Data}, nil
	default:
		return Change{Path: f.Path, Kind: Conflict, Old: old, New: f.Data}, nil
	}
}

// stale returns a Remove for each of agentc's own files under root that
// is not in want. temp is as for walkTree.
func stale(root string, want map[string]bool, manifest map[string]string, temp func(string, fs.DirEntry)) ([]Change, error) {
	var removes []Change
	err := walkTree(root, func(rel, p string) error {
		if want[rel] {
			return nil
		}
		old, err := readFile(p)
		if err != nil {
			return err
		}
		if owned(rel, old, manifest) {
			removes = append(removes, Change{Path: rel, Kind: Remove, Old: old})
		}
		return nil
	}, temp)
	return removes, err
}

func sortChanges(changes []Change) {
	slices.SortFunc(changes, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
}

// walkFiles calls fn with the slash path relative to root, and the path,
// of every regular file under root that a plan considers: not in
// node_modules or a nested .git, not a temporary file or directory of the
// writer's. A missing root has no files.
func walkFiles(root string, fn func(rel, p string) error) error {
	return walkTree(root, fn, nil)
}

// walkTree is walkFiles that also hands temp, if not nil, the path of
// each temporary file or directory of a writer's that it skips.
func walkTree(root string, fn func(rel, p string) error, temp func(p string, d fs.DirEntry)) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == root {
				return filepath.SkipDir
			}
			return err
		}
		if p != root && strings.HasPrefix(d.Name(), tmpPrefix) {
			if temp != nil {
				temp(p, d)
			}
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if d.Name() == "node_modules" || (d.Name() == ".git" && p != root) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		return fn(filepath.ToSlash(rel), p)
	})
}

// Intact reports whether the tree under root is still what a run left that
// wrote a manifest with SHA-256 manifestSum: the manifest is unchanged,
// every file it lists has the content it records, and, unless partial (a
// run of some emitters, which removes nothing), no other file carries
// agentc's header and no run's temporary file is there (a full run removes
// a killed one's). Then a plan of that run's files would change nothing.
// It reads the listed files concurrently and only the first bytes of the
// others.
func Intact(root, manifestSum string, partial bool) (bool, error) {
	data, err := os.ReadFile(filepath.Join(root, emit.ManifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil || emit.Sum(data) != manifestSum {
		return false, err
	}
	manifest := emit.ParseManifest(data)
	paths := make([]string, 0, len(manifest))
	for p := range manifest {
		paths = append(paths, p)
	}
	var intact atomic.Bool
	intact.Store(true)
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range min(len(paths), 2*runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(paths) && intact.Load(); i = int(next.Add(1) - 1) {
				b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(paths[i])))
				if err != nil || emit.Sum(b) != manifest[paths[i]] {
					intact.Store(false)
				}
			}
		})
	}
	wg.Wait()
	if !intact.Load() || partial {
		return intact.Load(), nil
	}
	head := make([]byte, 512)
	err = walkTree(root, func(rel, p string) error {
		if _, listed := manifest[rel]; listed || rel == emit.ManifestName {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		n, err := io.ReadFull(f, head)
		f.Close()
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return err
		}
		if emit.HasHeader(head[:n]) {
			intact.Store(false)
			return filepath.SkipAll
		}
		return nil
	}, func(string, fs.DirEntry) {
		// A run's temporary file: one in progress, or a killed one's
		// leftover, which only a full run removes.
		intact.Store(false)
	})
	return intact.Load(), err
}

// owned reports whether an existing file is agentc's: it carries the
// header, or the previous manifest lists it.
func owned(path string, data []byte, manifest map[string]string) bool {
	if emit.HasHeader(data) {
		return true
	}
	_, ok := manifest[path]
	return ok
}

// ConflictError lists hand-written files a run refused to overwrite.
type ConflictError struct {
	Root  string
	Paths []string
}

func (e *ConflictError) Error() string {
	var b strings.Builder
	for i, p := range e.Paths {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s: exists and was not generated by agentc (no %q header, not in %s); refusing to overwrite it — move it away or delete it",
			filepath.Join(e.Root, filepath.FromSlash(p)), emit.Header, emit.ManifestName)
	}
	return b.String()
}

// FS is the file-system surface the writer uses, so tests can inject
// failures part-way through a run.
type FS interface {
	MkdirAll(dir string) error
	// WriteAtomic replaces path's content with data, atomically.
	WriteAtomic(path string, data []byte) error
	Remove(path string) error
}

// OS is the real file system.
type OS struct{}

// MkdirAll creates dir and its parents.
func (OS) MkdirAll(dir string) error { return os.MkdirAll(dir, 0o755) }

// WriteAtomic writes data to a temporary file in path's directory and
// renames it over path, so a reader, or an interrupted agentc, sees the old
// file or the new one, never a mix. It does not fsync: that would guard
// against a power loss, not an interruption, and costs more than the rest
// of a large run.
func (OS) WriteAtomic(path string, data []byte) error {
	return writeAtomic(path, data, true)
}

// writeAtomic is OS.WriteAtomic; chmod is as for createFile.
func writeAtomic(path string, data []byte, chmod bool) error {
	tmp, err := createTemp(filepath.Dir(path), data, chmod)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// Remove deletes path.
func (OS) Remove(path string) error { return os.Remove(path) }

// Apply carries out a plan under root. It refuses to start if the plan has
// a conflict. Each file is written atomically. The manifest is written
// first listing both the new files and the ones about to be removed, and
// again at the end without the removed ones, so that after an interrupted
// run every file on disk is still recognisably agentc's. Empty directories
// left by removals are removed too.
func Apply(fsys FS, root string, changes []Change) error {
	if err := conflictError(root, changes); err != nil {
		return err
	}
	put := func(rel string, data []byte) error { return writeFile(fsys, root, rel, data) }
	return commit(root, changes, put, fsys.Remove)
}

// conflictError returns a *ConflictError if changes has a conflict.
func conflictError(root string, changes []Change) error {
	var conflicts []string
	for _, c := range changes {
		if c.Kind == Conflict {
			conflicts = append(conflicts, c.Path)
		}
	}
	if len(conflicts) > 0 {
		return &ConflictError{Root: root, Paths: conflicts}
	}
	return nil
}

// commit carries out changes, which have no conflict, under root: put
// gives the file at a slash path its new content, atomically, and remove
// deletes a file. The manifest goes first, listing both the new files and
// the ones about to be removed, and again at the end without the removed
// ones, so that after an interrupted run every file on disk is still
// recognisably agentc's. Empty directories left by removals are removed
// too.
func commit(root string, changes []Change, put func(rel string, data []byte) error, remove func(p string) error) error {
	var manifest *Change
	removals := false
	for i, c := range changes {
		if c.Path == emit.ManifestName && (c.Kind == Create || c.Kind == Update) {
			manifest = &changes[i]
		}
		removals = removals || c.Kind == Remove
	}
	if manifest != nil {
		interim := manifest.New
		if removals {
			interim = slices.Clip(interim)
			for _, c := range changes {
				if c.Kind == Remove {
					interim = fmt.Appendf(interim, "%s  %s\n", emit.Sum(c.Old), c.Path)
				}
			}
		}
		if err := put(manifest.Path, interim); err != nil {
			return err
		}
	}
	for _, c := range changes {
		if (c.Kind == Create || c.Kind == Update) && c.Path != emit.ManifestName {
			if err := put(c.Path, c.New); err != nil {
				return err
			}
		}
	}
	if !removals {
		return nil
	}
	for _, c := range changes {
		if c.Kind != Remove {
			continue
		}
		p := filepath.Join(root, filepath.FromSlash(c.Path))
		if err := remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing %s: %w", p, err)
		}
		for dir := filepath.Dir(p); dir != root && strings.HasPrefix(dir, root); dir = filepath.Dir(dir) {
			if os.Remove(dir) != nil { // fails unless empty
				break
			}
		}
	}
	if manifest != nil {
		return put(manifest.Path, manifest.New)
	}
	return nil
}

func writeFile(fsys FS, root, rel string, data []byte) error {
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := fsys.MkdirAll(filepath.Dir(p)); err != nil {
		return fmt.Errorf("writing %s: %w", p, err)
	}
	if err := fsys.WriteAtomic(p, data); err != nil {
		return fmt.Errorf("writing %s: %w", p, err)
	}
	return nil
}
