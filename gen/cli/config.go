package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/agentc-dev/agentc/spec"
)

// errNoSpec is the answer of a command run outside any agentc repository
// without --spec: it says how to start one rather than falling back on the
// built-in example.
var errNoSpec = errors.New("no agentc spec found here or in any parent directory (a spec directory holds " + spec.SchemaFile + ").\n" +
	"Start one with 'agentc init', name one with --spec DIR, or use agentc's built-in example contract with --builtin")

// findSpec returns the spec directory a command uses when --spec is left
// out, as buf finds buf.yaml and cue its cue.mod: walking up from dir, the
// first directory that is a spec directory — or, at the root of the module
// or repository (a directory holding go.mod or .git), where the walk stops,
// the one spec directory among its children. A spec directory holds
// agentc's copy of its metaschema (agentc_schema.cue), which `agentc init`
// writes. The result is relative to dir, so that positions in messages
// read as the user would type them ("../spec/tools.cue:3:1").
func findSpec(dir string) (string, error) {
	start, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := start; ; {
		if isSpecDir(d) {
			return filepath.Rel(start, d)
		}
		if isRoot(d) {
			found, _ := filepath.Glob(filepath.Join(d, "*", spec.SchemaFile))
			switch len(found) {
			case 0:
				// A spec directory deeper down (api/agent, backend/spec,
				// services/api/spec) is named rather than taken: a command
				// does not search a repository for its spec (init's README
				// section names it with --spec), but says where it lies.
				deeper, _ := filepath.Glob(filepath.Join(d, "*", "*", spec.SchemaFile))
				deepest, _ := filepath.Glob(filepath.Join(d, "*", "*", "*", spec.SchemaFile))
				if deeper = append(deeper, deepest...); len(deeper) > 0 {
					rel, _ := filepath.Rel(start, filepath.Dir(deeper[0])) // both absolute
					return "", fmt.Errorf("no agentc spec found here, in a parent directory or among the children of %s, the root of its module or repository, where the search stops; %s below it holds one: name it, --spec %s", d, rel, rel)
				}
				return "", errNoSpec
			case 1:
				return filepath.Rel(start, filepath.Dir(found[0]))
			}
			return "", fmt.Errorf("%s holds more than one spec directory (%s, %s, …): name one with --spec DIR", d, filepath.Base(filepath.Dir(found[0])), filepath.Base(filepath.Dir(found[1])))
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", errNoSpec
		}
		d = parent
	}
}

// isRoot reports whether dir is a module's or a repository's root.
func isRoot(dir string) bool {
	return slices.ContainsFunc([]string{"go.mod", ".git"}, func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	})
}

// isSpecDir reports whether dir holds agentc's metaschema copy.
func isSpecDir(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, spec.SchemaFile))
	return err == nil && fi.Mode().IsRegular()
}
