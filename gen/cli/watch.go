package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/agentc-dev/agentc/gen/diag"
	"github.com/agentc-dev/agentc/gen/emit"
)

// settle is how long a burst of file events must be quiet before a
// regeneration: an editor's save is often several events (write, chmod,
// rename of a temporary file), and a half-written file would only be
// reported as broken.
const settle = 20 * time.Millisecond

// watchGCPercent is the collector's target while gen --watch runs, where
// Go's default is 100. A watching agentc keeps little from one
// regeneration to the next (the emitters' session), and each one allocates
// several times that: CUE's evaluation of the spec, the walk of its values
// and the emitters, about 50 MB at 100 tools. At 100 the collector runs
// several times a save; at 200 a one-line edit at 100 tools regenerates in
// about 90 ms instead of 107 (BenchmarkWatchEdit), for a sixth more peak
// memory (53 MB instead of 45; 233 instead of 180 at 1,000 tools). A
// one-shot gen keeps Go's default: its heap starts empty, and there fresh
// pages cost more than collections.
const watchGCPercent = 200

// watchGC sets the collector's target for a watch, unless GOGC sets it,
// and returns the function that restores it.
func watchGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(watchGCPercent)
	return func() { debug.SetGCPercent(old) }
}

// runWatch is gen --watch: it generates, then regenerates after every save
// of a spec file until SIGINT or SIGTERM, and then exits 0.
func runWatch(e *env, sf *specFlags) (any, error) {
	if sf.spec == "" {
		return nil, usagef("--watch needs a spec directory (the built-in spec never changes)")
	}
	if e.json {
		return nil, usagef("--watch prints a line per regeneration for people; it does not take --json")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return nil, watch(ctx, e, sf)
}

// watch generates once, then again whenever a .cue file in the spec
// directory or below it, or in a directory of its module that holds .cue
// files (the packages it imports, cue.mod), changes, printing
// each run's findings or its "N written, M unchanged" line on stderr. A
// broken spec is reported and the next save tried; watch returns when ctx
// is done.
func watch(ctx context.Context, e *env, sf *specFlags) error {
	src, err := specSource(sf.spec)
	if err != nil {
		return err // no spec directory there
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watching %s: %w", sf.spec, err)
	}
	defer w.Close()
	// Watch the directories, not the files: editors often save by renaming
	// a new file over the old one, which ends a watch on the file itself.
	// Every directory below the spec's is watched too: the packages the spec
	// imports from its own module, and cue.mod; and in a module above the
	// spec directory, its directories that hold .cue files.
	// Each directory by its own name: a walk does not follow a symbolic
	// link, not even at its root, and a spec directory named by one went
	// unwatched.
	dir, err := filepath.EvalSymlinks(sf.spec)
	if err != nil {
		return fmt.Errorf("watching %s: %w", sf.spec, err)
	}
	dir, _ = filepath.Abs(dir) // as the names of its parent's events are
	root, err := filepath.EvalSymlinks(src.ModuleRoot())
	if err != nil {
		return fmt.Errorf("watching %s: %w", sf.spec, err)
	}
	if _, err := watchTree(w, dir, true); err != nil {
		return fmt.Errorf("watching %s: %w", sf.spec, err)
	}
	if root != dir {
		if _, err := watchTree(w, root, false); err != nil {
			return fmt.Errorf("watching %s: %w", root, err)
		}
	}
	// The spec directory's parent is watched too, for the spec directory
	// alone (unless the module watches it): moved away or removed (an mv, a
	// git checkout), the spec directory takes its own watches with it, and
	// only its parent sees it come back. A parent we may not read is left
	// out: the spec is watched as well without it.
	parent := filepath.Dir(dir)
	inModule := slices.Contains(w.WatchList(), parent)
	_ = w.Add(parent)
	// What the emitters keep from one run to the next: the Go emitter's
	// rendered declarations, so that an edit renders again only the
	// declarations it changed.
	sf.session = emit.Session{}
	defer watchGC()()

	// A failed run is reported as a one-shot gen would, with a word that
	// watch goes on.
	regen := func() {
		r, err := genOnce(sf, e.stderr)
		var l diag.List
		switch {
		case err == nil:
			e.logf("%s", r)
		case errors.As(err, &l):
			diag.Print(e.stderr, l)
			e.logf("agentc gen: %d finding(s); nothing written, waiting for the next save", len(l))
		case errors.Is(err, errInterrupted):
			e.logf("agentc gen: %v", err) // the watch stops next
		default:
			e.logf("agentc gen: %v", err)
			e.logf("agentc gen: waiting for the next save")
		}
	}
	regen()
	e.logf("agentc gen: watching %s for changes (Ctrl-C to stop)", sf.spec)

	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			e.logf("agentc gen: stopped watching %s", sf.spec)
			return nil
		case ev, open := <-w.Events:
			if !open {
				return nil
			}
			switch {
			case ev.Name == dir && !ev.Has(fsnotify.Create):
				timer.Reset(settle) // the spec directory is gone: say so
			case filepath.Dir(ev.Name) == parent && ev.Name != dir && !inModule:
				continue // another entry of the spec directory's parent
			}
			if ev.Has(fsnotify.Create) {
				if cue, err := created(w, ev.Name); err != nil {
					e.logf("agentc gen: watching %s: %v", ev.Name, err)
				} else if cue {
					timer.Reset(settle)
				}
			}
			if specEvent(ev) {
				timer.Reset(settle)
			}
		case err, open := <-w.Errors:
			if !open {
				return nil
			}
			// An overflowed event queue loses saves: regenerate to be sure.
			e.logf("agentc gen: watching %s: %v", sf.spec, err)
			timer.Reset(settle)
		case <-timer.C:
			regen()
		}
	}
}

// created handles the path p made below the spec's directory, or the spec
// directory come back. A directory is watched from now on, with those
// below it (a file is no tree: nothing to add), but a hidden one or
// node_modules, as watchTree leaves them out below its root. It reports
// whether the new tree holds a .cue file: a directory moved in makes one
// event, none for the files it brings.
func created(w *fsnotify.Watcher, p string) (cue bool, err error) {
	if unwatched(filepath.Base(p)) {
		return false, nil
	}
	return watchTree(w, p, true)
}

// watchTree adds root, if it is a directory, and every directory below it
// to w, but the unwatched ones, and reports whether the tree holds a .cue
// file. Not every directory of a module above the spec directory, which
// is often a whole repository, whose other directories a watch leaves
// alone: there it adds those that hold .cue files (its cue.mod, the
// packages the spec may import from it). (A directory that holds no .cue
// file yet when the watch starts is not watched then; the spec directory's
// own tree is, whole.)
func watchTree(w *fsnotify.Watcher, root string, every bool) (cue bool, err error) {
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil // gone already: an editor's temporary file
		case err != nil:
			return err
		case !d.IsDir() && strings.HasSuffix(d.Name(), ".cue"):
			cue = true
			if !every {
				return w.Add(filepath.Dir(p))
			}
		case d.Type()&fs.ModeSymlink != 0 && every && !unwatched(d.Name()):
			// A directory linked in (cue.mod/pkg/x -> ../x), which cue loads
			// through the link and inotify watches through it, but a walk
			// does not follow (nor do we, below it: a link may close a loop).
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				cue = true // it may bring a package, as a directory moved in does
				return w.Add(p)
			}
		case d.IsDir() && p != root && unwatched(d.Name()):
			return filepath.SkipDir
		case d.IsDir() && every:
			return w.Add(p)
		}
		return nil
	})
	return cue, err
}

// unwatched reports whether a directory named name is left out of a
// watch: a hidden one (.git) or node_modules, which hold no package of the
// spec; a spec at the root of a JavaScript repository would otherwise
// watch every directory of its dependencies (and run out of inotify
// watches, or of file descriptors on macOS).
func unwatched(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules"
}

// specEvent reports whether ev may change what the spec loads: a .cue file
// in a watched directory (the spec directory or one below it) written,
// created, removed or renamed (a change of mode alone changes nothing).
func specEvent(ev fsnotify.Event) bool {
	return ev.Op != fsnotify.Chmod && strings.HasSuffix(ev.Name, ".cue")
}
