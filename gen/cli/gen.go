package cli

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/emitters"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/write"
)

// specFlags are the flags every generating command shares.
type specFlags struct {
	specChoice
	out, only string
	// session, under gen --watch, is what the emitters remember between
	// runs (the Go emitter's rendered declarations).
	session emit.Session
}

func (f *specFlags) register(fs *flag.FlagSet) {
	f.specChoice.register(fs)
	fs.StringVar(&f.out, "out", "", "output root (default: the spec's codegen.out, relative to the directory holding the spec directory)")
	fs.StringVar(&f.only, "only", "", "comma-separated emitters to run (default: all; see 'agentc help gen')")
}

// resolve settles which spec the command uses (specChoice.dir), and checks
// --only's names: a name that is no emitter's is a usage error that lists
// them.
func (f *specFlags) resolve() error {
	var names []string
	for _, e := range emitters.All() {
		names = append(names, e.Name)
	}
	for _, name := range f.onlyList() {
		if !slices.Contains(names, name) {
			return usagef("--only: unknown emitter %q; the emitters are %s", name, strings.Join(names, ", "))
		}
	}
	dir, err := f.dir()
	f.spec = dir
	return err
}

// onlyList is --only as a list (nil for every emitter).
func (f *specFlags) onlyList() []string {
	if f.only == "" {
		return nil
	}
	return strings.Split(f.only, ",")
}

// generation is one run of the emitters on the spec, planned against the
// output root.
type generation struct {
	spec    *model.Spec
	files   []emit.File
	out     string
	changes []write.Change
}

// generate loads the spec as loadSpec does (printing its warnings on warn,
// if not nil), runs the emitters and compares their files with the output
// root.
func (f *specFlags) generate(warn io.Writer) (*generation, error) {
	s, err := loadSpec(f.spec, warn)
	if err != nil {
		return nil, err
	}
	g := &generation{spec: s, out: cmp.Or(f.out, s.Codegen.Out)}
	if f.out == "" && f.spec != "" && !filepath.IsAbs(g.out) {
		// codegen.out is relative to the directory that holds the spec
		// directory (the working directory for the built-in spec).
		g.out = filepath.Join(f.spec, "..", g.out)
	}
	g.files, err = emit.Generate(s, emitters.All(), emit.Options{Only: f.onlyList(), Session: f.session})
	if err != nil {
		return nil, err
	}
	// A run of some emitters (--only) removes nothing: the others' files
	// are not stale.
	g.changes, err = write.Plan(g.out, g.files, f.only != "")
	return g, err
}

// genCommand returns agentc gen, with flag variables of its own.
func genCommand() *command {
	var sf specFlags
	var watch bool
	help := "Nothing is written unless every emitter succeeds; each changed file is replaced atomically;\n" +
		"stale files that agentc generated are removed; a file agentc did not generate is never\n" +
		"overwritten.\n\nWith --watch, agentc regenerates whenever a .cue file in the spec directory or below it,\n" +
		"or in a package of a module rooted above it, is saved, printing the findings or what it wrote,\n" +
		"until Ctrl-C.\n\nemitters:"
	for _, e := range emitters.All() {
		help += fmt.Sprintf("\n  %-11s %s", e.Name, e.Doc)
	}
	return &command{
		name:    "gen",
		writes:  true,
		summary: "Generate every artifact from the spec into the output root; writes only changed files, atomically.",
		help:    help,
		flags: func(fs *flag.FlagSet) {
			sf.register(fs)
			fs.BoolVar(&watch, "watch", false, "after generating, regenerate on every save of a spec file until interrupted (not with --builtin)")
		},
		run: func(e *env, args []string) (any, error) {
			if len(args) > 0 {
				return nil, usagef("gen takes no arguments (use --spec DIR)")
			}
			if err := sf.resolve(); err != nil {
				return nil, err
			}
			if watch {
				return runWatch(e, &sf)
			}
			return runGen(e, &sf)
		},
	}
}

func runGen(e *env, sf *specFlags) (any, error) {
	r, err := genOnce(sf, e.stderr)
	if err != nil {
		return nil, err
	}
	if !e.json {
		e.logf("%s", r)
	}
	return map[string]any{"out": r.out, "written": nonNil(r.written), "removed": nonNil(r.removed), "unchanged": r.unchanged}, nil
}

// genResult is what one run of gen did.
type genResult struct {
	out              string
	written, removed []string
	unchanged        int
}

func (r *genResult) String() string {
	return fmt.Sprintf("agentc gen: %s: %d written, %d unchanged, %d removed", r.out, len(r.written), r.unchanged, len(r.removed))
}

// genOnce loads the spec (printing its warnings on warn), generates and
// writes the changed files.
func genOnce(sf *specFlags, warn io.Writer) (*genResult, error) {
	// Nothing is written unless every emitter succeeded.
	g, err := sf.generate(warn)
	if err != nil {
		return nil, err
	}
	return g.write()
}

// errInterrupted is write's error when a signal came while it wrote: the
// run ends, and a watch stops, once the files are written.
var errInterrupted = errors.New("interrupted")

// write carries out g's changes, unless the output root holds another
// contract's files.
func (g *generation) write() (*genResult, error) {
	if err := sameContract(g.out, g.changes); err != nil {
		return nil, err
	}
	// An interrupt (Ctrl-C, SIGTERM) while the files are written waits
	// for the last of them: killed, the run would leave a temporary file
	// and a tree half old, half new.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	if err := write.Apply(write.WriteAtomic, g.out, g.changes); err != nil {
		return nil, err
	}
	select {
	case s := <-sig:
		return nil, fmt.Errorf("%w (%v) after writing every file", errInterrupted, s)
	default:
	}
	r := &genResult{out: g.out}
	for _, c := range g.changes {
		switch c.Kind {
		case write.Create, write.Update:
			r.written = append(r.written, c.Path)
		case write.Remove:
			r.removed = append(r.removed, c.Path)
		case write.Unchanged:
			r.unchanged++
		}
	}
	return r, nil
}

// sameContract refuses to write into an output root whose manifest was
// made from another contract: its files would be removed as stale, and
// another spec's output is not this one's to replace.
func sameContract(out string, changes []write.Change) error {
	// A manifest not on disk (Old nil) names no contract.
	if i := slices.IndexFunc(changes, func(c write.Change) bool { return c.Path == emit.ManifestName }); i >= 0 {
		was, now := emit.ManifestContract(changes[i].Old), emit.ManifestContract(changes[i].New)
		if was != "" && was != now {
			// The starter invites a rename (contract.name), which only the
			// author can tell from another contract.
			return fmt.Errorf("%s was generated from agent contract %q (its %s says so), not %q: "+
				"agentc does not replace another contract's files; if you renamed %q to %q, remove %s and generate again, else choose another --out",
				out, was, emit.ManifestName, now, was, now, out)
		}
	}
	return nil
}

func nonNil[S ~[]E, E any](s S) S {
	if s == nil {
		return S{}
	}
	return s
}
