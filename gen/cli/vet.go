package cli

import (
	"flag"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
)

func init() {
	register(&command{
		name:    "vet",
		args:    "[spec-dir]",
		summary: "Check a spec (default: the embedded default spec) and print its findings as file:line:col: message.",
		run:     runVet,
	})
	register(&command{
		name:    "version",
		summary: "Print agentc's version.",
		run:     runVersion,
	})
}

// loadSpec loads the spec in dir, or the embedded default when dir is "".
func loadSpec(dir string) (*model.Spec, error) {
	src, err := specSource(dir)
	if err != nil {
		return nil, err
	}
	return load.Load(src)
}

// specSource reads the spec's files in dir, or the embedded default's when
// dir is "".
func specSource(dir string) (*load.Source, error) {
	if dir == "" {
		return load.Default(), nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("spec directory: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("spec directory: %s is not a directory", dir)
	}
	return load.Dir(dir)
}

func runVet(e *env, fs *flag.FlagSet, args []string) error {
	if len(args) > 1 {
		return usagef("vet takes at most one spec directory, got %d arguments", len(args))
	}
	dir := ""
	if len(args) == 1 {
		dir = args[0]
	}
	src, err := specSource(dir)
	if err != nil {
		return err
	}
	e.warn(src)
	s, err := load.Load(src)
	if err != nil {
		return err
	}
	return ok(map[string]any{"spec": s.Dir, "tools": len(s.Tools), "modes": len(s.Modes), "models": len(s.Models)})
}

// Version returns agentc's module version ("(devel)" in a source build).
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/agentc-dev/agentc" {
				return d.Version
			}
		}
		if bi.Main.Path == "github.com/agentc-dev/agentc" && bi.Main.Version != "" {
			return bi.Main.Version
		}
	}
	return "(devel)"
}

func runVersion(e *env, fs *flag.FlagSet, args []string) error {
	if len(args) > 0 {
		return usagef("version takes no arguments")
	}
	v := Version()
	if !e.json {
		fmt.Fprintf(e.stdout, "agentc %s\n", v)
	}
	return ok(map[string]string{"version": v})
}
