package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/spec"
)

const modulePath = "github.com/agentc-dev/agentc"

func init() {
	var specDir, out, version string
	var tidy, schema bool
	register(&command{
		name: "init",
		args: "[repo-dir]",
		summary: "Scaffold a downstream repository: a spec started from the default, a go:generate line, a tool directive, a CI snippet. " +
			"With --schema, (re)write only agentc's metaschema copy in the spec directory given (default .).",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&schema, "schema", false, "only write agentc's copy of the metaschema ("+spec.SchemaFile+") into the spec directory given as the argument")
			fs.StringVar(&specDir, "spec-dir", "spec", "where to put the spec, relative to the repository")
			fs.StringVar(&out, "out", "generated", "output root for generated files, relative to the repository")
			fs.StringVar(&version, "version", "", "agentc version to require in go.mod (default: this agentc's, or the replaced module's)")
			fs.BoolVar(&tidy, "tidy", true, "run go mod tidy after adding the tool directive")
		},
		run: func(e *env, fs *flag.FlagSet, args []string) error {
			if len(args) > 1 {
				return usagef("init takes at most one repository directory")
			}
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			if schema {
				return runInitSchema(e, dir)
			}
			return runInit(e, dir, specDir, out, version, tidy)
		},
	})
}

// runInitSchema writes agentc's metaschema into the spec directory dir, in
// the package of the spec's files, replacing an older or edited copy.
func runInitSchema(e *env, dir string) error {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("init --schema: %s is not a spec directory", dir)
	}
	src, err := load.Dir(dir)
	if err != nil {
		return err
	}
	file := filepath.Join(dir, spec.SchemaFile)
	data := load.SchemaFor(src)
	old, err := os.ReadFile(file)
	changed := err != nil || !bytes.Equal(old, data)
	if changed {
		tmp := file + ".agentc-tmp"
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, file); err != nil {
			os.Remove(tmp)
			return err
		}
	}
	if !e.json {
		if changed {
			e.logf("agentc init: wrote %s", file)
		} else {
			e.logf("agentc init: %s is already agentc's metaschema", file)
		}
	}
	return ok(map[string]any{"schema": filepath.ToSlash(file), "written": changed})
}

func runInit(e *env, dir, specDir, out, version string, tidy bool) error {
	if !localPath(specDir) || !localPath(out) {
		return usagef("--spec-dir and --out must be relative paths inside the repository")
	}
	gomod := filepath.Join(dir, "go.mod")
	mod, err := os.ReadFile(gomod)
	if err != nil {
		return fmt.Errorf("%s: %w (run go mod init first)", gomod, err)
	}
	sdir := filepath.Join(dir, filepath.FromSlash(specDir))
	if entries, err := os.ReadDir(sdir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s already exists and is not empty; choose another --spec-dir", sdir)
	}
	var created []string
	// The spec, started from the default.
	err = fs.WalkDir(spec.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := spec.FS.ReadFile(p)
		if err != nil {
			return err
		}
		if p == "contract.cue" {
			// The generated packages are this repository's, and import
			// the copies of their runtimes agentc writes beside them,
			// not agentc's own.
			core := path.Join(modfile.ModulePath(mod), out, "go/contract")
			b = bytes.Replace(b, []byte(strconv.Quote(modulePath+"/generated/go/contract")), []byte(strconv.Quote(core)), 1)
			b = agentcRuntimes.ReplaceAll(b, nil)
		}
		created = append(created, filepath.Join(specDir, p))
		return writeNew(filepath.Join(sdir, filepath.FromSlash(p)), b)
	})
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(filepath.FromSlash(specDir), filepath.FromSlash(out))
	if err != nil {
		return err
	}
	rel = filepath.ToSlash(rel)
	gen := fmt.Sprintf(`// Package spec holds this repository's agent contract, written in CUE. agentc
// compiles it into %[1]s/; run go generate ./... after editing it.
package spec

//go:generate go tool agentc gen --spec . --out %[2]s
`, out, rel)
	if err := writeNew(filepath.Join(sdir, "generate.go"), []byte(gen)); err != nil {
		return err
	}
	created = append(created, filepath.Join(specDir, "generate.go"))

	// README: how to regenerate, and the CI gate.
	readme := filepath.Join(dir, "README.md")
	old, err := os.ReadFile(readme)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if !bytes.Contains(old, []byte("<!-- agentc -->")) {
		section := fmt.Sprintf(`
<!-- agentc -->
## Agent contract

The agent's tools, modes and models are specified once, in CUE, in %[1]s/. agentc generates
the OpenCode tool files, the Go validators and handler interfaces, tables and docs in %[2]s/.

After editing the spec:

    go tool agentc vet %[1]s      # positioned errors for the spec
    go generate ./...             # regenerate %[2]s/ (or: go run %[3]s/cmd/agentc gen --spec %[1]s --out %[2]s)

In CI:

    go tool agentc check --spec %[1]s --out %[2]s --handlers ./...   # generated files and handlers match the spec
    go tool agentc breaking --spec %[1]s --against origin/main:%[1]s   # no breaking contract change
`, specDir, out, modulePath)
		if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
			old = append(old, '\n')
		}
		if err := os.WriteFile(readme, append(old, section...), 0o644); err != nil {
			return err
		}
		created = append(created, "README.md")
	}

	// go.mod: require agentc and declare it a tool.
	if version == "" {
		version = Version()
		if !semver.MatchString(version) {
			version = "v0.0.0-00010101000000-000000000000" // resolved through a replace directive
			if !bytes.Contains(mod, []byte("replace "+modulePath)) && !bytes.Contains(mod, []byte(modulePath+" =>")) {
				version = "latest"
			}
		}
	}
	if version == "latest" {
		if err := goCmd(e, dir, "get", modulePath+"@latest"); err != nil {
			return err
		}
		if err := goCmd(e, dir, "mod", "edit", "-tool="+modulePath+"/cmd/agentc"); err != nil {
			return err
		}
	} else if err := goCmd(e, dir, "mod", "edit", "-require="+modulePath+"@"+version, "-tool="+modulePath+"/cmd/agentc"); err != nil {
		return err
	}
	if tidy {
		if err := goCmd(e, dir, "mod", "tidy"); err != nil {
			return err
		}
	}
	if !e.json {
		e.logf("agentc init: wrote %s; run go generate ./... to generate %s/", strings.Join(created, ", "), out)
	}
	return ok(map[string]any{"created": created, "spec": specDir, "out": out, "version": version})
}

var semver = regexp.MustCompile(`^v\d+\.\d+\.\d+`)

// agentcRuntimes are the last lines of the default spec's contract.cue:
// the ones that make its generated packages import agentc's own runtime
// packages, with the comment and blank line above them.
var agentcRuntimes = regexp.MustCompile(`(?m)\n(//.*\n)*codegen: go: runtime: .*\ncodegen: mcp: runtime: .*\n`)

// writeNew creates path with data, refusing to replace an existing file.
func writeNew(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func goCmd(e *env, dir string, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = e.stderr, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return nil
}

// localPath reports whether p is a non-empty relative slash path without
// ".." segments.
func localPath(p string) bool {
	return p != "" && filepath.IsLocal(filepath.FromSlash(p))
}
