// Package scratch compiles generated trees with the real compilers, many
// specs at once: a scratch directory that is both a Go module and a
// TypeScript project, one subdirectory per spec's output, so that one
// `go vet ./...` and one `tsc --strict` cover them all (each run pays its
// start-up once) and each finding is attributed to the tree it is in.
package scratch

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/internal/nodetool"
)

// Path is the scratch module's path: a tree added as name has its Go
// packages at Path/name/….
const Path = "example.com/scratch"

// tsconfig type-checks strictly, unused names included, against the
// pinned @opencode-ai/plugin; allowImportingTsExtensions is for the tools'
// "./agentc/runtime.ts" import, which OpenCode's Bun runtime resolves as
// written. %s stands for the "include" list.
const tsconfig = `{
  "compilerOptions": {
    "strict": true,
    "noEmit": true,
    "noUnusedLocals": true,
    "noUnusedParameters": true,
    "noImplicitReturns": true,
    "noFallthroughCasesInSwitch": true,
    "target": "ES2022",
    "module": "ESNext",
    "moduleResolution": "bundler",
    "allowImportingTsExtensions": true,
    "lib": ["ES2022", "DOM"],
    "types": ["node"]
  },
  "include": %s,
  "exclude": ["node_modules"]
}
`

// TSConfig is the tsconfig.json that type-checks the files the include
// patterns (JSON strings, such as `"**/*.ts"`) name.
func TSConfig(include ...string) string {
	return strings.Replace(tsconfig, "%s", "["+strings.Join(include, ", ")+"]", 1)
}

// Module is a scratch module in a temporary directory of the test.
type Module struct {
	// Dir is the module's root.
	Dir   string
	trees []string
}

// New makes an empty scratch module. Its go.mod requires what agentc's
// own does, at the same versions, so that generated packages importing the
// MCP SDK build from the module cache without the network.
func New(t testing.TB) *Module {
	t.Helper()
	root := nodetool.ModuleRoot(t)
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	gosum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	gomod = regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(gomod, []byte("module "+Path))
	m := &Module{Dir: t.TempDir()}
	m.Write(t, "go.mod", gomod)
	m.Write(t, "go.sum", gosum)
	return m
}

// Write writes one file, rel being slash-separated below the root.
func (m *Module) Write(t testing.TB, rel string, data []byte) {
	t.Helper()
	p := filepath.Join(m.Dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Add writes a generated tree (an output root's files) under name, a
// single path element.
func (m *Module) Add(t testing.TB, name string, files []emit.File) {
	t.Helper()
	for _, f := range files {
		m.Write(t, name+"/"+f.Path, f.Data)
	}
	m.trees = append(m.trees, name)
}

// Findings are a compiler's error lines by the tree they name; lines that
// name no tree are under "".
type Findings map[string][]string

// attribute sorts out lines by tree: a line belongs to the tree whose name
// starts one of its slash paths.
func (m *Module) attribute(out []byte) Findings {
	f := Findings{}
	for line := range strings.Lines(string(out)) {
		line = strings.TrimRight(line, "\r\n")
		if strings.TrimSpace(line) == "" {
			continue
		}
		owner := ""
		for _, name := range m.trees {
			if regexp.MustCompile(`(^|[\s/:(])` + regexp.QuoteMeta(name) + `/`).MatchString(line) {
				owner = name
				break
			}
		}
		f[owner] = append(f[owner], line)
	}
	return f
}

// GoEnv is the environment of the go command in a scratch module:
// offline, this module only, the local toolchain.
func GoEnv() []string {
	return append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off", "GOTOOLCHAIN=local")
}

// GoVet runs `go vet` on the packages of every tree and returns what it
// reports. The error is for a go vet that failed without naming any file.
// It is safe to call from any goroutine.
func (m *Module) GoVet() (Findings, error) {
	if len(m.trees) == 0 {
		return Findings{}, nil
	}
	args := []string{"vet"}
	for _, name := range m.trees {
		args = append(args, "./"+name+"/...")
	}
	cmd := exec.Command("go", args...)
	cmd.Env = GoEnv()
	return m.findings("go vet", cmd)
}

// findings runs cmd, a compiler, in the module and returns its error lines
// by tree. The error is for a run that failed without naming any file.
func (m *Module) findings(name string, cmd *exec.Cmd) (Findings, error) {
	cmd.Dir = m.Dir
	out, err := cmd.CombinedOutput()
	if err == nil {
		return Findings{}, nil // what it printed are notes
	}
	f := m.attribute(out)
	if len(f) == 0 {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return f, nil
}

// TSC type-checks the .ts files under the given directories of each tree
// (slash paths relative to the tree, e.g. "opencode" and "ts") with the
// pinned tsc (nodetool.Tsc, run by node) and returns its errors. The
// module must have its node_modules linked (LinkNodeModules). It is safe
// to call from any goroutine.
func (m *Module) TSC(node, tsc string, dirs map[string][]string) (Findings, error) {
	var include []string
	for _, name := range m.trees {
		for _, d := range dirs[name] {
			include = append(include, `"`+name+"/"+d+`/**/*.ts"`)
		}
	}
	if len(include) == 0 {
		return Findings{}, nil
	}
	config := TSConfig(include...)
	if err := os.WriteFile(filepath.Join(m.Dir, "tsconfig.json"), []byte(config), 0o644); err != nil {
		return nil, err
	}
	return m.findings("tsc", exec.Command(node, tsc, "--noEmit", "--pretty", "false", "-p", m.Dir))
}

// LinkNodeModules links node_modules at the root to nodeModules (the
// pinned toolchain, nodetool.Dir), for tsc and for node running the
// generated modules.
func (m *Module) LinkNodeModules(nodeModules string) error {
	return os.Symlink(nodeModules, filepath.Join(m.Dir, "node_modules"))
}
