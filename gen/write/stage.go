package write

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/agentc-dev/agentc/gen/emit"
)

// A Run writes one generation of files under a root while the emitters
// are still producing it: Stage plans each file as soon as its emitter
// has succeeded and writes the ones that change where no reader, and no
// later plan, sees them — a temporary file beside the target, or, for a
// directory that does not exist yet, straight into a temporary directory
// that will become it. Commit, once every emitter has succeeded, finishes
// the plan as Plan (or PlanPartial) would and carries it out as Apply
// would, by renames: the manifest first, each changed file replaced
// atomically, a new directory moved into place whole, stale files
// removed, the manifest last. If a file is hand-written, or anything
// fails before Commit, Abort (which Commit calls itself) removes every
// temporary file and directory and every directory the run made: no
// target is created, replaced or removed.
//
// A Run plans without probing: a file in a directory that does not exist
// is new, and each directory is looked up and made once.
type Run struct {
	root    string
	partial bool
	mem     *Memory
	// manifest is the previous manifest (data and entries), read once.
	manifest    []byte
	entries     map[string]string
	manifestErr error
	// chmod: the umask hides bits of 0644 (createFile).
	chmod bool

	wg     sync.WaitGroup
	failed atomic.Bool

	mu sync.Mutex
	// queue holds the files Stage was given that wait for the goroutine
	// staging them (staging: there is one).
	queue   []emit.File
	staging bool
	dirs    map[string]*stagedDir
	// changes is the plan of each staged file, temps the temporary file
	// of each one staged beside its target.
	changes map[string]Change
	temps   map[string]string
	// tops are the new directories staged whole; created the directories
	// made for real (the root and its missing parents), in order.
	tops    []*stagedDir
	created []string
	err     error
}

// stagedDir is what a Run knows of one directory of the output.
type stagedDir struct {
	rel  string // slash path under the root, "." for the root
	once sync.Once
	err  error
	// path is where the directory's files are written: its real path, or
	// its place inside a staged directory.
	path string
	// exists: files in the directory may exist and are read; otherwise
	// every one is new.
	exists bool
	// top is the staged directory that holds this one (itself, if it is
	// a new directory whose parent exists), nil if the directory is real.
	top *stagedDir
	// renamed: (top only) it has been moved into place.
	renamed bool
}

// Options say what kind of run Begin starts.
type Options struct {
	// Partial is a run of only some emitters: as PlanPartial, it removes
	// nothing and keeps the other emitters' entries in the manifest.
	Partial bool
	// Memory, if not nil, is the memory the run reads the existing files
	// through, as Memory.Plan does (gen --watch). The caller records what
	// Commit wrote with Memory.Applied.
	Memory *Memory
}

// Begin starts a run that writes under root.
func Begin(root string, opt Options) *Run {
	r := &Run{
		root: root, partial: opt.Partial, mem: opt.Memory,
		dirs: map[string]*stagedDir{}, changes: map[string]Change{}, temps: map[string]string{},
		chmod: umaskHides(0o644),
	}
	if r.mem != nil {
		r.mem.use(root)
	}
	r.manifest, r.manifestErr = readFile(filepath.Join(root, emit.ManifestName))
	if errors.Is(r.manifestErr, fs.ErrNotExist) {
		r.manifestErr = nil
	}
	r.entries = emit.ParseManifest(r.manifest)
	return r
}

// Stage plans files and writes those that change out of sight. It returns
// at once; the work goes on in the background until Commit or Abort. It
// is safe to call from several goroutines (emit.GenerateStaged's emitters).
//
// One goroutine does the work, a file at a time: creating files is mostly
// work in the kernel, and two at once cost more processor time than one
// after the other (they contend for the directory and the journal) — at
// 1,000 tools, about a third more.
func (r *Run) Stage(files []emit.File) {
	r.mu.Lock()
	r.queue = append(r.queue, files...)
	start := !r.staging
	r.staging = true
	r.mu.Unlock()
	if start {
		r.wg.Go(r.drain)
	}
}

// drain stages the queued files until none is left.
func (r *Run) drain() {
	for {
		r.mu.Lock()
		if len(r.queue) == 0 || r.failed.Load() {
			r.staging = false
			r.mu.Unlock()
			return
		}
		f := r.queue[0]
		r.queue = r.queue[1:]
		r.mu.Unlock()
		if err := r.stage(f); err != nil {
			r.fail(err)
		}
	}
}

func (r *Run) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
	}
	r.failed.Store(true)
}

// stage plans one file and, if it changes, writes it out of sight.
func (r *Run) stage(f emit.File) error {
	r.mu.Lock()
	_, twice := r.changes[f.Path]
	r.changes[f.Path] = Change{Path: f.Path} // taken
	r.mu.Unlock()
	if twice {
		return fmt.Errorf("two files for %s", f.Path)
	}
	d := r.dir(path.Dir(f.Path))
	if d.err != nil {
		return d.err
	}
	c := Change{Path: f.Path, Kind: Create, New: f.Data}
	if d.exists {
		target := filepath.Join(d.path, path.Base(f.Path))
		var old []byte
		var err error
		if r.mem != nil {
			old, err = r.mem.read(f.Path, target)
		} else {
			old, err = readFile(target)
		}
		if c, err = classify(f, old, err, r.entries); err != nil {
			return err
		}
	}
	var tmp string
	switch {
	case c.Kind != Create && c.Kind != Update:
	case d.top != nil:
		if err := createFile(filepath.Join(d.path, path.Base(f.Path)), f.Data, r.chmod); err != nil {
			return err
		}
	default:
		var err error
		if tmp, err = createTemp(d.path, f.Data, r.chmod); err != nil {
			return err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.changes[f.Path] = c
	if tmp != "" {
		r.temps[f.Path] = tmp
	}
	return nil
}

// dir returns the directory at rel, looked up (and made) once.
func (r *Run) dir(rel string) *stagedDir {
	r.mu.Lock()
	d := r.dirs[rel]
	if d == nil {
		d = &stagedDir{rel: rel}
		r.dirs[rel] = d
	}
	r.mu.Unlock()
	d.once.Do(func() { d.err = r.lookUp(d) })
	return d
}

// lookUp finds where d's files go: its real path if it exists; if it does
// not, a new temporary directory beside it, or, within one, its own place
// there. The root is made for real (it holds the staged directories),
// with its missing parents.
func (r *Run) lookUp(d *stagedDir) error {
	real := filepath.Join(r.root, filepath.FromSlash(d.rel))
	var parent *stagedDir
	if d.rel != "." {
		if parent = r.dir(path.Dir(d.rel)); parent.err != nil {
			return parent.err
		}
		if parent.top != nil {
			d.path, d.top = filepath.Join(parent.path, path.Base(d.rel)), parent.top
			return os.Mkdir(d.path, 0o755)
		}
	}
	if parent == nil || parent.exists {
		fi, err := os.Stat(real)
		switch {
		case err == nil && fi.IsDir():
			d.path, d.exists = real, true
			return nil
		case err == nil:
			return fmt.Errorf("writing under %s: %w", real, syscall.ENOTDIR)
		case !errors.Is(err, fs.ErrNotExist):
			return err
		}
	}
	if parent == nil {
		d.path = real
		return r.mkdirAll(real)
	}
	tmp, err := mkdirTemp(parent.path)
	if err != nil {
		return err
	}
	d.path, d.top = tmp, d
	r.mu.Lock()
	r.tops = append(r.tops, d)
	r.mu.Unlock()
	return nil
}

// mkdirAll makes dir and its missing parents, noting each one made.
func (r *Run) mkdirAll(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := r.mkdirAll(parent); err != nil {
			return err
		}
	}
	err := os.Mkdir(dir, 0o755)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err == nil {
		r.mu.Lock()
		r.created = append(r.created, dir)
		r.mu.Unlock()
	}
	return err
}

// Commit waits for the files staged so far, plans the rest of files (the
// complete, sorted output of a generation: the manifest, and any file not
// staged), then, unless a file is hand-written (a *ConflictError), moves
// everything into place and removes the stale files. It returns the plan,
// as Plan or PlanPartial would have made it. On an error, it leaves what
// Abort leaves, except that a failure part-way through the renames leaves
// each file old or new, as Apply does. It also removes the temporary files
// that killed runs left under the root (a full run only).
func (r *Run) Commit(files []emit.File) ([]Change, error) {
	changes, err := r.finish(files)
	if err == nil {
		err = conflictError(r.root, changes)
	}
	if err == nil {
		err = commit(r.root, changes, r.put, os.Remove)
	}
	r.Abort() // removes what is left
	if err != nil {
		return nil, err
	}
	return changes, nil
}

// finish completes the plan.
func (r *Run) finish(files []emit.File) ([]Change, error) {
	r.wg.Wait()
	if r.manifestErr != nil {
		return nil, r.manifestErr
	}
	r.mu.Lock()
	err := r.err
	r.mu.Unlock()
	if err != nil {
		return nil, err
	}
	want := make(map[string]bool, len(files))
	for _, f := range files {
		want[f.Path] = true
		r.mu.Lock()
		_, staged := r.changes[f.Path]
		r.mu.Unlock()
		if staged {
			continue
		}
		if f.Path == emit.ManifestName && r.partial {
			f.Data = partialManifest(r.root, f.Data, r.manifest, files)
		}
		if err := r.stage(f); err != nil {
			return nil, err
		}
	}
	changes := make([]Change, 0, len(files))
	for p, c := range r.changes {
		if !want[p] {
			return nil, fmt.Errorf("staged %s, which is not among the files to commit", p)
		}
		changes = append(changes, c)
	}
	if !r.partial && r.dir(".").exists {
		removes, err := stale(r.root, want, r.entries, func(p string, d fs.DirEntry) {
			if leftover(d) {
				os.RemoveAll(p)
			}
		})
		if err != nil {
			return nil, err
		}
		changes = append(changes, removes...)
	}
	sortChanges(changes)
	return changes, nil
}

// put moves the staged file at rel (or the new directory that holds it)
// into place; a file not staged, the manifest as commit writes it first,
// is written atomically.
func (r *Run) put(rel string, data []byte) error {
	r.mu.Lock()
	tmp, staged := r.temps[rel]
	staged = staged && string(r.changes[rel].New) == string(data)
	d := r.dirs[path.Dir(rel)]
	r.mu.Unlock()
	target := filepath.Join(r.root, filepath.FromSlash(rel))
	switch {
	case staged:
		if err := os.Rename(tmp, target); err != nil {
			return fmt.Errorf("writing %s: %w", target, err)
		}
		r.mu.Lock()
		delete(r.temps, rel)
		r.mu.Unlock()
		return nil
	case d != nil && d.top != nil:
		top := d.top
		if top.renamed {
			return nil
		}
		dst := filepath.Join(r.root, filepath.FromSlash(top.rel))
		if err := os.Rename(top.path, dst); err != nil {
			return fmt.Errorf("writing %s: %w", dst, err)
		}
		top.renamed = true
		return nil
	}
	if err := writeAtomic(target, data, r.chmod); err != nil {
		return fmt.Errorf("writing %s: %w", target, err)
	}
	return nil
}

// Abort waits for the files staged so far, then removes every temporary
// file and directory the run made and every directory it made for real
// that is still empty. After Commit, it removes nothing Commit put in
// place.
func (r *Run) Abort() {
	r.failed.Store(true)
	r.wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	for rel, tmp := range r.temps {
		os.Remove(tmp)
		delete(r.temps, rel)
	}
	for _, d := range r.tops {
		if !d.renamed {
			os.RemoveAll(d.path)
			d.renamed = true // gone
		}
	}
	for i := len(r.created) - 1; i >= 0; i-- {
		os.Remove(r.created[i]) // fails unless empty
	}
	r.created = nil
}
