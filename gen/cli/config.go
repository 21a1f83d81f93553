package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentc-dev/agentc/spec"
)

// errNoSpec is the answer of a command run without --spec where findSpec
// finds no spec directory; noSpec adds what to do.
var errNoSpec = errors.New("no agentc spec found")

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
			entries, _ := os.ReadDir(d)
			var found []string
			for _, e := range entries {
				if e.IsDir() && isSpecDir(filepath.Join(d, e.Name())) {
					found = append(found, filepath.Join(d, e.Name()))
				}
			}
			switch len(found) {
			case 0:
				return "", noSpec(start, d)
			case 1:
				return filepath.Rel(start, found[0])
			}
			return "", fmt.Errorf("%s holds more than one spec directory (%s, %s, …): name one with --spec DIR", d, filepath.Base(found[0]), filepath.Base(found[1]))
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", noSpec(start, "")
		}
		d = parent
	}
}

// noSpec is errNoSpec with what to do. Below root (the module's or
// repository's, "" outside any), a spec directory deeper than findSpec
// looks (api/agent, backend/spec) is named, with how to name it: findSpec
// stops at root's children so that no command walks a whole repository,
// node_modules and all, to find its spec; this walk runs only when it
// found none. Otherwise it says how to start one, rather than fall back on
// the built-in example.
func noSpec(start, root string) error {
	var found []string
	if root != "" {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil || !d.IsDir():
				return nil
			case p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules"):
				return filepath.SkipDir
			case isSpecDir(p):
				rel, _ := filepath.Rel(start, p) // both absolute
				found = append(found, rel)
				return filepath.SkipDir
			}
			return nil
		})
	}
	if len(found) > 0 {
		return fmt.Errorf("%w here, in a parent directory or among the children of %s, the root of its module or repository, where the search stops; one lies deeper below it: name it, --spec %s",
			errNoSpec, root, strings.Join(found, " or --spec "))
	}
	return fmt.Errorf("%w here or in any parent directory (a spec directory holds "+spec.SchemaFile+").\nStart one with 'agentc init', name one with --spec DIR, or use agentc's built-in example contract with --builtin", errNoSpec)
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
