// Package write puts generated files on disk safely: it plans every change
// first and refuses the whole run if any target is a hand-written file; then
// it writes each changed file atomically (temp file + rename), leaves
// unchanged files alone (their mtime too) and removes stale files that are
// agentc's own (they carry its header or its manifest lists them).
package write

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

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
// sorted by path. It reads but never writes. A partial plan, for a run of
// only some emitters, never removes a file, and the manifest among files is
// extended with the previous manifest's entries for files that still exist
// and that this run did not produce, so the other emitters' files stay
// recognisably agentc's.
func Plan(root string, files []emit.File, partial bool) ([]Change, error) {
	if fi, err := os.Stat(root); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("the output root %s is a file: name a directory (--out, codegen.out)", root)
	}
	old, err := os.ReadFile(filepath.Join(root, emit.ManifestName))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	manifest := emit.ParseManifest(old)
	if partial {
		files = slices.Clone(files)
		for i, f := range files {
			if f.Path == emit.ManifestName {
				files[i].Data = partialManifest(root, f.Data, old)
			}
		}
	}
	// The files on disk are read by a few goroutines at once: reading one
	// is system calls more than bytes.
	olds := make([][]byte, len(files))
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	const readers = 4
	for r := range readers {
		wg.Go(func() {
			for i := r; i < len(files); i += readers {
				olds[i], errs[i] = os.ReadFile(filepath.Join(root, filepath.FromSlash(files[i].Path)))
			}
		})
	}
	wg.Wait()
	changes := make([]Change, 0, len(files))
	want := make(map[string]bool, len(files))
	for i, f := range files {
		want[f.Path] = true
		old, err := olds[i], errs[i]
		switch {
		case errors.Is(err, fs.ErrNotExist):
			changes = append(changes, Change{Path: f.Path, Kind: Create, New: f.Data})
		case err != nil:
			return nil, err
		case string(old) == string(f.Data):
			changes = append(changes, Change{Path: f.Path, Kind: Unchanged, Old: old, New: f.Data})
		case owned(f.Path, old, manifest):
			changes = append(changes, Change{Path: f.Path, Kind: Update, Old: old, New: f.Data})
		default:
			changes = append(changes, Change{Path: f.Path, Kind: Conflict, Old: old, New: f.Data})
		}
	}
	if !partial {
		removes, err := stale(root, want, manifest)
		if err != nil {
			return nil, err
		}
		changes = append(changes, removes...)
	}
	slices.SortFunc(changes, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	return changes, nil
}

// partialManifest returns the manifest data of a run of some emitters,
// extended with the entries of the previous manifest, old, for files that
// still exist and that the run did not produce: its comment lines, then
// every entry, sorted by path.
func partialManifest(root string, data, old []byte) []byte {
	entries := emit.ParseManifest(data)
	for p, sum := range emit.ParseManifest(old) {
		if _, produced := entries[p]; produced {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err == nil {
			entries[p] = sum
		}
	}
	var out []byte
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if strings.HasPrefix(line, "#") {
			out = append(out, line...)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(entries)) {
		out = fmt.Appendf(out, "%s  %s\n", entries[p], p)
	}
	return out
}

// A writer's temporary files are named tmpPrefix…; each lives from its
// creation to its rename over the target. A plan skips them, but one older
// than leftoverAge is what a killed run left, and a full run removes it.
const (
	tmpPrefix   = ".agentc-tmp-"
	leftoverAge = time.Minute
)

// stale returns a Remove for each of agentc's own files under root that
// is not in want, and for each temporary file a killed run left. It skips
// node_modules and nested .git directories. A missing root has no files.
func stale(root string, want map[string]bool, manifest map[string]string) ([]Change, error) {
	var removes []Change
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == root {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() {
			if p != root && (d.Name() == "node_modules" || d.Name() == ".git") {
				return filepath.SkipDir
			}
			return nil
		}
		// p is root joined with the names below it, so Rel never fails.
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if !d.Type().IsRegular() || want[rel] {
			return nil
		}
		if strings.HasPrefix(d.Name(), tmpPrefix) {
			if fi, err := d.Info(); err != nil || time.Since(fi.ModTime()) < leftoverAge {
				return nil // a run's work in progress, or gone
			}
		}
		old, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), tmpPrefix) || owned(rel, old, manifest) {
			removes = append(removes, Change{Path: rel, Kind: Remove, Old: old})
		}
		return nil
	})
	return removes, err
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

// WriteAtomic writes data to a temporary file in path's directory and
// renames it over path, so a reader, or an interrupted agentc, sees the old
// file or the new one, never a mix. It does not fsync: that would guard
// against a power loss, not an interruption, and costs more than the rest
// of a large run.
func WriteAtomic(path string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), tmpPrefix+"*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	// CreateTemp's mode is 0600; generated files are for everyone to read.
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// Apply carries out a plan under root. It refuses to start if the plan has
// a conflict, and names each conflicting file, one a line. Each file is
// written with writeAtomic (WriteAtomic; tests inject failures part-way
// through a run). The manifest is written first listing both the new files
// and the ones about to be removed, and again at the end without the
// removed ones, so that after an interrupted run every file on disk is
// still recognisably agentc's. Empty directories left by removals are
// removed too.
func Apply(writeAtomic func(path string, data []byte) error, root string, changes []Change) error {
	var conflicts []error
	var manifest *Change
	var removes []Change
	for i, c := range changes {
		switch {
		case c.Kind == Conflict:
			conflicts = append(conflicts, fmt.Errorf("%s: exists and was not generated by agentc (no %q header, not in %s); refusing to overwrite it — move it away or delete it",
				filepath.Join(root, filepath.FromSlash(c.Path)), emit.Header, emit.ManifestName))
		case c.Path == emit.ManifestName && (c.Kind == Create || c.Kind == Update):
			manifest = &changes[i]
		case c.Kind == Remove:
			removes = append(removes, c)
		}
	}
	if len(conflicts) > 0 {
		return errors.Join(conflicts...)
	}
	if manifest != nil {
		interim := slices.Clip(manifest.New)
		for _, c := range removes {
			interim = fmt.Appendf(interim, "%s  %s\n", emit.Sum(c.Old), c.Path)
		}
		if err := writeFile(writeAtomic, root, manifest.Path, interim); err != nil {
			return err
		}
	}
	for _, c := range changes {
		if (c.Kind == Create || c.Kind == Update) && c.Path != emit.ManifestName {
			if err := writeFile(writeAtomic, root, c.Path, c.New); err != nil {
				return err
			}
		}
	}
	// Every removed path is clean and below root, so climbing from its
	// directory reaches root, spelled as Join spells it.
	root = filepath.Clean(root)
	for _, c := range removes {
		p := filepath.Join(root, filepath.FromSlash(c.Path))
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing %s: %w", p, err)
		}
		for dir := filepath.Dir(p); dir != root; dir = filepath.Dir(dir) {
			if os.Remove(dir) != nil { // fails unless empty
				break
			}
		}
	}
	if manifest != nil && len(removes) > 0 {
		return writeFile(writeAtomic, root, manifest.Path, manifest.New)
	}
	return nil
}

func writeFile(writeAtomic func(path string, data []byte) error, root, rel string, data []byte) error {
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", p, err)
	}
	if err := writeAtomic(p, data); err != nil {
		return fmt.Errorf("writing %s: %w", p, err)
	}
	return nil
}
