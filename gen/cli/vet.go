package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentc-dev/agentc/gen/diag"
	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/emitters"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
)

// vetCommand returns agentc vet, with flag variables of its own.
func vetCommand() *command {
	var sc specChoice
	return &command{
		name:    "vet",
		args:    "[spec-dir]",
		summary: "Check a spec (default: this repository's, found from the working directory up) and print its findings as file:line:col: message.",
		flags:   sc.register,
		run: func(e *env, args []string) (any, error) {
			return runVet(e, args, &sc)
		},
	}
}

// specChoice is the spec a command reads, as every command that reads one
// takes it: --spec DIR or --builtin.
type specChoice struct {
	spec    string
	builtin bool
}

func (c *specChoice) register(fs *flag.FlagSet) {
	fs.StringVar(&c.spec, "spec", "", "spec directory (default: this repository's, found from the working directory up)")
	fs.BoolVar(&c.builtin, "builtin", false, "use agentc's built-in example spec (the Proliferate contract) instead of this repository's")
}

// dir returns the spec directory the command uses: --spec when given, ""
// (the built-in spec) with --builtin, and otherwise the one findSpec finds
// from the working directory.
func (c *specChoice) dir() (string, error) {
	switch {
	case c.builtin && c.spec != "":
		return "", usagef("--builtin and a spec directory exclude each other")
	case c.builtin:
		return "", nil
	case c.spec != "":
		return c.spec, nil
	}
	return findSpec(".")
}

// loadSpec reads the spec's files in dir (the embedded default's when dir
// is ""), prints on warn (if not nil) the findings about them that do not
// stop a command (a stale metaschema copy; the embedded spec has none),
// loads the spec and runs every emitter's check on the model: what vet
// reports, and what gen must not generate from. The checks run on a spec
// the loader accepted.
func loadSpec(dir string, warn io.Writer) (*model.Spec, error) {
	src, err := specSource(dir)
	if err != nil {
		return nil, err
	}
	if warn != nil {
		diag.Print(warn, load.Warnings(src).Err())
	}
	s, err := load.Load(src)
	if err != nil {
		return nil, err
	}
	if err := emit.Check(s, emitters.All()).Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// specSource reads the spec's files in dir, or the embedded default's when
// dir is "".
func specSource(dir string) (*load.Source, error) {
	if dir == "" {
		return load.Default(), nil
	}
	fi, err := os.Stat(dir)
	if err != nil && strings.HasSuffix(dir, "...") {
		// A Go package pattern, as check --handlers takes one.
		return nil, fmt.Errorf("spec directory: %s is a package pattern; a spec is one directory: name it, or leave it out for this repository's", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("spec directory: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("spec directory: %s is a file; a spec is the .cue files of one directory: name the directory, %s", dir, filepath.Dir(dir))
	}
	return load.Dir(dir)
}

func runVet(e *env, args []string, sc *specChoice) (any, error) {
	// The spec directory is vet's argument, as in cue vet, or --spec, as
	// every other command takes it.
	if len(args) > 1 || len(args) == 1 && sc.spec != "" {
		return nil, usagef("vet takes at most one spec directory, as --spec DIR or as its argument")
	}
	if len(args) == 1 {
		sc.spec = args[0]
	}
	dir, err := sc.dir()
	if err != nil {
		return nil, err
	}
	s, err := loadSpec(dir, e.stderr)
	if err != nil {
		return nil, err
	}
	return map[string]any{"spec": s.Dir, "tools": len(s.Tools), "modes": len(s.Modes), "models": len(s.Models)}, nil
}
