package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"

	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/write"
	"github.com/agentc-dev/agentc/spec"
)

const modulePath = "github.com/agentc-dev/agentc"

// toolModfile is where init keeps agentc's requirement, apart from the
// module's own go.mod, so that CUE and agentc's other dependencies never
// set minimum versions for the module's own (go tool -modfile).
const toolModfile = "tools/agentc.mod"

// starterImport is the starter spec's placeholder for the generated Go
// package's import path; init puts the module's own in its place.
const starterImport = "example.com/agent/generated/go/contract"

// initCommand returns agentc init, with flag variables of its own.
func initCommand() *command {
	var specDir, out, version string
	var schema bool
	return &command{
		name:   "init",
		writes: true,
		args:   "[repo-dir]",
		summary: "Start agentc in a Go module: an example spec, its generated code, a go:generate line, agentc as a tool in " + toolModfile + ", " +
			".gitattributes and a README section with the CI gates. With --schema, (re)write only agentc's metaschema copy in the spec directory given (default: this repository's).",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&schema, "schema", false, "only write agentc's copy of the metaschema ("+spec.SchemaFile+") into the spec directory given as the argument")
			fs.StringVar(&specDir, "spec-dir", "spec", "where to put the spec, relative to the repository")
			fs.StringVar(&out, "out", "", "output root for generated files, relative to the repository (default: generated, beside the spec directory)")
			fs.StringVar(&version, "version", "", "agentc version to require in "+toolModfile+" (default: this agentc's, or the replaced module's)")
		},
		run: func(e *env, args []string) (any, error) {
			if len(args) > 1 {
				return nil, usagef("init takes at most one repository directory")
			}
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			if schema {
				if len(args) == 0 {
					// The spec directory every command finds, not ".".
					var err error
					if dir, err = findSpec("."); errors.Is(err, errNoSpec) {
						return nil, errors.New("no agentc spec found here or in any parent directory; name the spec directory: agentc init --schema DIR")
					} else if err != nil {
						return nil, err
					}
				}
				return runInitSchema(e, dir)
			}
			return runInit(e, dir, specDir, out, version)
		},
	}
}

// runInitSchema writes agentc's metaschema into the spec directory dir, in
// the package of the spec's files, replacing an older or edited copy.
func runInitSchema(e *env, dir string) (any, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("init --schema: %s is not a spec directory", dir)
	}
	src, err := load.Dir(dir)
	if err != nil {
		return nil, err
	}
	if len(src.UserFiles()) == 0 {
		// A copy would make dir the spec directory that commands find.
		return nil, fmt.Errorf("init --schema: %s holds no spec (no .cue files); name the spec directory", dir)
	}
	file := filepath.Join(dir, spec.SchemaFile)
	data := load.SchemaFor(src)
	old, err := os.ReadFile(file)
	changed := err != nil || !bytes.Equal(old, data)
	if changed {
		if err := write.WriteAtomic(file, data); err != nil {
			return nil, err
		}
	}
	if !e.json {
		if changed {
			e.logf("agentc init: wrote %s", file)
		} else {
			e.logf("agentc init: %s is already agentc's metaschema", file)
		}
	}
	return map[string]any{"schema": filepath.ToSlash(file), "written": changed}, nil
}

// scaffold is what init does, undone as a whole when a step fails: the
// contents of each file it created or changed, as they were before (nil:
// the file did not exist).
type scaffold map[string][]byte

// create writes a new file. runInit has made sure that none of init's
// new files exists: the spec directory is missing or empty, the tool
// module file missing.
func (sc scaffold) create(file string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	sc.keep(file)
	return os.WriteFile(file, data, 0o644)
}

// keep remembers file's contents (nil if it does not exist) before a step
// (a go command, gen, an append) may change it.
func (sc scaffold) keep(file string) {
	if _, ok := sc[file]; !ok {
		sc[file], _ = os.ReadFile(file)
	}
}

// undo restores every changed file and removes every created one, and the
// directories init made for them that are empty again.
func (sc scaffold) undo() {
	for file, old := range sc {
		if old != nil {
			os.WriteFile(file, old, 0o644)
			continue
		}
		os.Remove(file)
		d := filepath.Dir(file)
		for os.Remove(d) == nil { // fails unless empty
			d = filepath.Dir(d)
		}
	}
}

func runInit(e *env, dir, specDir, out, version string) (any, error) {
	if path.Clean(specDir) == "." {
		// codegen.out is relative to the directory above the spec's,
		// which would be outside the repository.
		return nil, usagef("--spec-dir %s is the repository's root; the spec needs a directory of its own, below it (default spec)", specDir)
	}
	if out == "" {
		// codegen.out's own default, which is relative to the directory
		// that holds the spec directory: --spec-dir contracts/agent
		// alone works, where "generated" at the root could not be reached.
		out = path.Join(path.Dir(specDir), "generated")
	}
	if !localPath(specDir) || !localPath(out) {
		return nil, usagef("--spec-dir and --out must be relative paths inside the repository")
	}
	if !localPath(relOut(specDir, out)) {
		// codegen.out, relative to the spec directory's parent, holds no "..".
		return nil, usagef("--out %s is not inside %s, the directory that holds --spec-dir", out, path.Dir(specDir))
	}
	if rel, err := filepath.Rel(filepath.FromSlash(out), filepath.FromSlash(specDir)); err == nil && filepath.IsLocal(rel) {
		return nil, usagef("--spec-dir %s is inside --out %s, which .gitattributes marks generated: reviews would fold the spec; keep them apart", specDir, out)
	}
	abs, _ := filepath.Abs(dir) // "" (no working directory) has no parent to try
	gomod := filepath.Join(dir, "go.mod")
	mod, err := os.ReadFile(gomod)
	if err != nil {
		// A module whose go.mod lies in a directory above dir.
		for root := filepath.Dir(abs); root != filepath.Dir(root); root = filepath.Dir(root) {
			if b, err := os.ReadFile(filepath.Join(root, "go.mod")); err == nil {
				return nil, fmt.Errorf("%s is inside module %s; run agentc init at its root, %s (with --spec-dir for a spec directory deeper down)", abs, modfile.ModulePath(b), root)
			}
		}
		// A repository whose modules lie below it (a monorepo's backend/),
		// where go mod init would start another module beside them.
		mods, _ := fs.Glob(os.DirFS(dir), "*/go.mod")
		deeper, _ := fs.Glob(os.DirFS(dir), "*/*/go.mod")
		if mods = append(mods, deeper...); len(mods) > 0 {
			return nil, fmt.Errorf("%s has no go.mod, but directories below it hold Go modules (%s): name the one whose code serves the agent, agentc init %s, rather than start another module here",
				abs, strings.Join(mods, ", "), filepath.Join(dir, path.Dir(mods[0])))
		}
		return nil, fmt.Errorf("%s: %w (run go mod init first)", gomod, err)
	}
	mf, err := modfile.Parse(gomod, mod, nil)
	if err != nil {
		return nil, err
	}
	if mf.Module == nil {
		// go mod edit -module names the module without rewriting the rest.
		return nil, fmt.Errorf("%s has no module line; name the module first: go mod edit -module example.com/yourmodule", gomod)
	}
	modPath := mf.Module.Mod.Path
	if modPath == modulePath {
		// go -C /path/to/agentc run ./cmd/agentc init, the repository's
		// directory left out, runs in agentc's checkout.
		return nil, fmt.Errorf("%s is agentc's own module; name your module's directory: go -C %s run ./cmd/agentc init /path/to/your/module", abs, abs)
	}
	// A second init is told that agentc is set up, whatever its spec
	// directory, rather than to choose another.
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(toolModfile))); err == nil {
		return nil, fmt.Errorf("%s already exists: agentc is set up in this module; after a spec edit, go generate ./...; to move agentc's version, go get -tool -modfile=%s %s/cmd/agentc@VERSION",
			filepath.Join(dir, toolModfile), toolModfile, modulePath)
	}
	sdir := filepath.Join(dir, filepath.FromSlash(specDir))
	if entries, err := os.ReadDir(sdir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s already exists and is not empty; choose another --spec-dir", sdir)
	}
	if version == "" {
		version = readVersion().Version
		if !semver.IsValid(version) {
			version = "latest"
		}
	}
	ra := runAsIn(dir)
	replace := agentcReplace(mf)
	if replace != "" && !semver.IsValid(version) {
		version = "v0.0.0-00010101000000-000000000000" // resolved through the replace directive
	}

	// Ctrl-C ends the running go command and the step with it: init undoes its
	// steps, rather than die and leave half a scaffold, which init then refuses.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	sc := scaffold{}
	err = sc.run(dir, sdir, specDir, out, modPath, version, replace, ra, mf)
	select {
	case s := <-sig:
		// A signal for agentc alone (a CI runner's SIGTERM) lets the go
		// command finish its step: init is undone all the same.
		err = errors.Join(fmt.Errorf("interrupted (%v): init undid its steps", s), err)
	default:
	}
	if err != nil {
		sc.undo()
		return nil, err
	}
	if !e.json {
		e.logf("agentc init: wrote %s/ (an example contract), %s, %s/, .gitattributes and a README section; edit the spec, then go generate ./...", specDir, toolModfile, out)
		if ra != (runAs{}) {
			e.logf("agentc init: %s: run agentc as %s (the go:generate line does)", ra, ra.command("go", ""))
		}
		if raised := raisedRequirements(mf, gomod); len(raised) > 0 {
			e.logf("agentc init: go.mod: what the generated packages import raised %s", strings.Join(raised, ", "))
		}
	}
	return map[string]any{"spec": specDir, "out": out, "tool_modfile": toolModfile, "version": version}, nil
}

// raisedRequirements lists the module's own requirements whose versions
// go.mod at file raises from before ("path old => new"): the generated
// packages' imports (the MCP SDK) may need newer ones, which no one asked
// for. Its go line first: a newer one is a newer Go for every build of
// the module, which a team that pins its toolchain must know.
func raisedRequirements(before *modfile.File, file string) []string {
	b, _ := os.ReadFile(file) // unread, it parses as empty: nothing raised
	after, err := modfile.ParseLax(file, b, nil)
	if err != nil {
		return nil
	}
	var raised []string
	if before.Go != nil && after.Go != nil && before.Go.Version != after.Go.Version {
		raised = append(raised, fmt.Sprintf("go %s => %s", before.Go.Version, after.Go.Version))
	}
	for _, old := range before.Require {
		for _, r := range after.Require {
			if r.Mod.Path == old.Mod.Path && r.Mod.Version != old.Mod.Version {
				raised = append(raised, fmt.Sprintf("%s %s => %s", r.Mod.Path, old.Mod.Version, r.Mod.Version))
			}
		}
	}
	return raised
}

// run does init's steps, stopping at the first that fails.
func (sc scaffold) run(dir, sdir, specDir, out, modPath, version, replace string, ra runAs, mf *modfile.File) error {
	var goEnv []string
	if ra.work != "" {
		goEnv = []string{"GOWORK=off"}
	}

	// The spec: the starter example and agentc's metaschema copy.
	starter := spec.Starter()
	err := fs.WalkDir(starter, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(starter, p)
		if err != nil {
			return err
		}
		b = bytes.ReplaceAll(b, []byte(starterImport), []byte(path.Join(modPath, out, "go/contract")))
		b = bytes.Replace(b, []byte(`out: "generated"`), []byte(fmt.Sprintf("out: %q", relOut(specDir, out))), 1)
		return sc.create(filepath.Join(sdir, filepath.FromSlash(p)), b)
	})
	if err != nil {
		return err
	}
	src, err := load.Dir(sdir)
	if err != nil {
		return err
	}
	if err := sc.create(filepath.Join(sdir, spec.SchemaFile), load.SchemaFor(src)); err != nil {
		return err
	}
	// go generate runs agentc in the spec directory; go -C runs it in the
	// module's root, where go generate ./... is run: the paths it prints
	// (spec/tools.cue:3:1, generated; a directory to remove) read as from
	// there. relOut's path is relative to the directory above the spec's.
	gen := fmt.Sprintf(`// Package spec holds this repository's agent contract, written in CUE. agentc
// compiles it into %[1]s/; run go generate ./... after editing it.
package spec

//go:generate %[2]s gen --spec %[3]s
`, out, ra.command("go -C "+path.Join("..", relOut(specDir, ".")), "env "), specDir)
	if err := sc.create(filepath.Join(sdir, "generate.go"), []byte(gen)); err != nil {
		return err
	}

	// agentc as a tool of its own module file.
	tm := fmt.Sprintf("module %s\n\ngo %s\n\ntool %s/cmd/agentc\n", modPath, goVersion(mf), modulePath)
	if replace != "" {
		tm += fmt.Sprintf("\nrequire %s %s\n\nreplace %s => %s\n", modulePath, version, modulePath, replace)
	}
	tmFile := filepath.Join(dir, filepath.FromSlash(toolModfile))
	if err := sc.create(tmFile, []byte(tm)); err != nil {
		return err
	}
	sc.keep(strings.TrimSuffix(tmFile, ".mod") + ".sum")
	if replace == "" {
		if _, err := runEnv(dir, goEnv, "go", "get", "-modfile="+toolModfile, modulePath+"/cmd/agentc@"+version); err != nil {
			return fmt.Errorf("%w\nto use a checkout of agentc instead, replace its module first: go mod edit -replace %s=/path/to/agentc", err, modulePath)
		}
	}
	// The requirements and sums of agentc's packages alone: go mod tidy
	// would load the module's own packages too, copy their requirements
	// into the tool module file, and fail on one that does not build yet.
	if _, err := runEnv(dir, goEnv, "go", "list", "-modfile="+toolModfile, "-mod=mod", "-deps", modulePath+"/cmd/agentc"); err != nil {
		return err
	}

	// The generated code, so that the module builds at once, and the
	// module's own requirements for it (the MCP SDK, when the spec has
	// codegen.mcp).
	sc.keep(filepath.Join(dir, "go.mod"))
	sc.keep(filepath.Join(dir, "go.sum"))
	outDir := filepath.Join(dir, filepath.FromSlash(out))
	g, err := (&specFlags{specChoice: specChoice{spec: sdir}, out: outDir}).generate(nil)
	if err != nil {
		return err
	}
	for _, c := range g.changes {
		if c.Kind != write.Unchanged {
			sc.keep(filepath.Join(outDir, filepath.FromSlash(c.Path)))
		}
	}
	if _, err := g.write(); err != nil {
		return err
	}
	if g.spec.Codegen.MCP != nil {
		// The MCP SDK at the version agentc pins and is tested against, the
		// one agentc's go.mod requires (the tool module's graph holds it),
		// where go list below adds the latest; not one the module selects
		// newer already, which go get would downgrade.
		sdk := "github.com/modelcontextprotocol/go-sdk"
		pin, err := runEnv(dir, goEnv, "go", "list", "-modfile="+toolModfile, "-mod=mod", "-m", "-f", "{{.Version}}", sdk)
		have, _ := runEnv(dir, goEnv, "go", "list", "-mod=mod", "-m", "-e", "-f", "{{.Version}}", sdk)
		if err == nil && semver.Compare(strings.TrimSpace(string(have)), strings.TrimSpace(string(pin))) < 0 {
			_, err = runEnv(dir, goEnv, "go", "get", sdk+"@"+strings.TrimSpace(string(pin)))
		}
		if err != nil {
			return err
		}
	}
	// Likewise only the generated packages' requirements: the module's
	// go.mod changes in nothing else.
	if _, err := runEnv(dir, goEnv, "go", "list", "-mod=mod", "-deps", "./"+out+"/..."); err != nil {
		return err
	}

	// .gitattributes: reviews fold the generated files. The module may
	// mark files of its own so already.
	attr := out + "/** linguist-generated=true"
	if err := appendOnce(sc, filepath.Join(dir, ".gitattributes"), attr,
		attr+"\n"+strings.TrimSuffix(toolModfile, ".mod")+".sum linguist-generated=true\n"); err != nil {
		return err
	}
	// README: how to regenerate, and the CI gates.
	if err := appendOnce(sc, filepath.Join(dir, "README.md"), "<!-- agentc -->", readmeSection(specDir, out, ra)); err != nil {
		return err
	}
	if ra.vendored {
		// The generated packages' requirements, added to go.mod above.
		sc.keep(filepath.Join(dir, "vendor", "modules.txt"))
		if _, err := runEnv(dir, goEnv, "go", "mod", "vendor"); err != nil {
			return err
		}
	}
	return nil
}

// readmeSection is what init appends to the README.
func readmeSection(specDir, out string, ra runAs) string {
	tool := ra.command("go", "")
	specFlag := ""
	if strings.Contains(specDir, "/") {
		// A command run at the root finds a spec directory there or
		// among its children only (findSpec): a deeper one is named.
		specFlag = " --spec " + specDir
	}
	return fmt.Sprintf(`
<!-- agentc -->
## Agent contract

The agent's tools, modes and models are specified once, in CUE, in %[1]s/. agentc generates
the OpenCode tool files, the Go validators and handler interfaces, tables and docs in %[2]s/.
agentc is a tool of its own module file, %[3]s, so that its dependencies stay out of this
module's.

After editing the spec:

%[4]s
In CI:

%[5]s`, specDir, out, toolModfile, commandBlock(
		tool+" vet"+specFlag, "positioned errors for the spec",
		"go generate ./...", "regenerate "+out+"/",
	), commandBlock(
		tool+" check"+specFlag+" --handlers ./...", "generated files and handlers match the spec",
		tool+" breaking"+specFlag+" --against origin/main", "no unaccepted breaking contract change",
	))
}

// runAs is what running agentc as a tool of its own module file takes in
// the module: go refuses -modfile in a workspace (work is its go.work),
// and go tool insists on a vendor directory's being complete for the tool
// module file too (vendored), where go run -mod=readonly does not.
type runAs struct {
	work     string
	vendored bool
}

// runAsIn returns what running agentc takes in the module at dir. work is
// what go env GOWORK says without the GOWORK of agentc's own environment,
// where it may be off for init itself.
func runAsIn(dir string) runAs {
	out, _ := runEnv(dir, []string{"GOWORK="}, "go", "env", "GOWORK")
	_, err := os.Stat(filepath.Join(dir, "vendor", "modules.txt"))
	return runAs{work: strings.TrimSpace(string(out)), vendored: err == nil}
}

// String says why agentc runs as command says.
func (ra runAs) String() string {
	var why []string
	if ra.work != "" {
		why = append(why, "this module is in the workspace "+ra.work+", where go refuses -modfile")
	}
	if ra.vendored {
		why = append(why, "this module vendors its dependencies, and go tool would want agentc's in vendor/ too")
	}
	return strings.Join(why, "; ")
}

// command is the command line that runs agentc in the module's root with
// goCmd: "go" there, "go -C DIR" from a directory below it. env is "env "
// for a go:generate line, which no shell reads.
func (ra runAs) command(goCmd, env string) string {
	cmd := goCmd + " tool -modfile=" + toolModfile + " agentc"
	if ra.vendored {
		cmd = goCmd + " run -mod=readonly -modfile=" + toolModfile + " " + modulePath + "/cmd/agentc"
	}
	if ra.work != "" {
		cmd = env + "GOWORK=off " + cmd
	}
	return cmd
}

// commandBlock lays out pairs of a command and what it does as an indented
// block, one command a line, their comments aligned.
func commandBlock(pairs ...string) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for i := 0; i < len(pairs); i += 2 {
		fmt.Fprintf(tw, "    %s\t# %s\n", pairs[i], pairs[i+1])
	}
	tw.Flush()
	return b.String()
}

// agentcReplace returns the replacement of agentc's module that go.mod
// declares, as the tool module file must spell it (a directory relative to
// the repository, quoted if it holds a space, or a module version), or "".
func agentcReplace(mf *modfile.File) string {
	for _, r := range mf.Replace {
		if r.Old.Path != modulePath {
			continue
		}
		if r.New.Version != "" {
			return r.New.Path + " " + r.New.Version
		}
		p := r.New.Path
		if !filepath.IsAbs(p) {
			// go.mod's directory is the repository; the tool module file
			// lies one directory down.
			p = filepath.ToSlash(filepath.Join("..", p))
		}
		return modfile.AutoQuote(p)
	}
	return ""
}

// goVersion is the go directive for the tool module file: the module's own.
func goVersion(mf *modfile.File) string {
	if mf.Go != nil {
		return mf.Go.Version
	}
	return "1.26"
}

// relOut is codegen.out for a spec in specDir and output in out, both
// relative to the repository: codegen.out is relative to the directory
// that holds the spec directory. Both are local paths (localPath), so the
// directory above specDir is "." or a local path, and Rel never fails.
func relOut(specDir, out string) string {
	rel, _ := filepath.Rel(filepath.Join(filepath.FromSlash(specDir), ".."), filepath.FromSlash(out))
	return filepath.ToSlash(rel)
}

// appendOnce appends text to file unless the file already holds marker. A
// file that is a link (README.md -> docs/index.md) stays one: the text goes
// to its target, where the rename of an atomic write would replace the link.
func appendOnce(sc scaffold, file, marker, text string) error {
	if target, err := filepath.EvalSymlinks(file); err == nil {
		file = target
	}
	old, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if bytes.Contains(old, []byte(marker)) {
		return nil
	}
	sc.keep(file)
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		old = append(old, '\n')
	}
	return write.WriteAtomic(file, append(old, text...))
}

// localPath reports whether p is a non-empty relative slash path without
// ".." segments.
func localPath(p string) bool {
	return p != "" && filepath.IsLocal(filepath.FromSlash(p))
}
