// Package load reads an agent-contract spec written in CUE, evaluates it
// against agentc's metaschema and builds the resolved model. Every problem
// it finds is a positioned diag.Error; nothing outside the supported subset
// is dropped silently.
package load

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/cuecontext"
	cueload "cuelang.org/go/cue/load"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"

	"github.com/agentc-dev/agentc/gen/diag"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/spec"
)

// cueLanguage is the CUE language version of a spec with no cue.mod, and
// the one a cue.mod that declares none is told to declare.
const cueLanguage = "v0.17.0"

// DefaultDisplayDir is how positions in the embedded default spec are shown.
const DefaultDisplayDir = "spec"

// Source is a spec to load: a set of CUE files in one directory.
type Source struct {
	// Display is the directory name used in positions and messages.
	Display string
	// Files maps a file name to its contents: the spec's own (no
	// directory), its module's cue.mod/module.cue, in the spec directory
	// or in one above it ("../cue.mod/module.cue"), and any other file of
	// the module that cue/load is to read from here rather than from disk,
	// each by its slash path relative to the spec directory.
	Files map[string][]byte
	// abs is the absolute directory cue/load sees.
	abs string
}

// Default returns the embedded default spec.
func Default() *Source {
	files := map[string][]byte{}
	_ = fs.WalkDir(spec.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := spec.FS.ReadFile(p)
			files[p] = b
		}
		return nil
	})
	return Bytes(DefaultDisplayDir, files)
}

// Dir reads the spec in dir: its *.cue files and its module's
// cue.mod/module.cue, found as cue finds it: in dir, or else in the nearest
// directory above dir that holds one (a repository's CUE module, the spec
// one of its packages).
func Dir(dir string) (*Source, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil, fmt.Errorf("reading spec: %w", err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		if e.IsDir() || !cueFile(e.Name()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(abs, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("reading spec: %w", err)
		}
		files[e.Name()] = b
	}
	for d, up := abs, "cue.mod"; ; d, up = filepath.Dir(d), "../"+up {
		if b, err := os.ReadFile(filepath.Join(d, "cue.mod", "module.cue")); err == nil {
			files[up+"/module.cue"] = b
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	display := filepath.ToSlash(filepath.Clean(dir))
	return &Source{Display: display, Files: files, abs: abs}, nil
}

// Bytes builds a source from in-memory files placed in a virtual directory
// (agentc breaking's baseline, read from git; tests and fuzzing).
func Bytes(display string, files map[string][]byte) *Source {
	// As deep as the files of a module above the spec reach up
	// ("../../cue.mod/module.cue"), so that they stay in the virtual
	// directory; and with no ':' (a git baseline's HEAD:contracts/agent),
	// which in the directory's path cue/load takes for no package of the
	// module.
	depth := 0
	for name := range files {
		depth = max(depth, strings.Count(name, "../"))
	}
	abs := filepath.Join(string(filepath.Separator), "agentc-virtual", strings.Repeat("up/", depth), filepath.FromSlash(strings.ReplaceAll(display, ":", "/")))
	return &Source{Display: display, Files: files, abs: abs}
}

// ModuleRoot returns the directory of the spec's module, whose packages
// the spec may import: the directory that holds the module's cue.mod,
// the spec directory itself when there is none.
func (src *Source) ModuleRoot() string {
	up := strings.TrimSuffix(src.moduleFile(), "cue.mod/module.cue") // "", "../", "../../" …
	return filepath.Join(src.abs, filepath.FromSlash(up))
}

// moduleFile returns the name in Files of the spec's cue.mod/module.cue
// ("cue.mod/module.cue", "../cue.mod/module.cue" …), "" when there is none.
func (src *Source) moduleFile() string {
	for name := range src.Files {
		if up, ok := strings.CutSuffix(name, "cue.mod/module.cue"); ok && strings.ReplaceAll(up, "../", "") == "" {
			return name
		}
	}
	return ""
}

// cueFile reports whether the file name is one of a package's .cue files
// as cue/load reads them: it ignores a name that begins with _ or . (a
// draft _x.cue, an editor's lock file .#x.cue), as go build does.
func cueFile(name string) bool {
	return strings.HasSuffix(name, ".cue") && !strings.HasPrefix(name, "_") && !strings.HasPrefix(name, ".")
}

// UserFiles returns the names of the spec author's .cue files, sorted: the
// directory's own, without the metaschema copy.
func (src *Source) UserFiles() []string {
	var names []string
	for name := range src.Files {
		if cueFile(name) && !strings.Contains(name, "/") && name != spec.SchemaFile {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// Load evaluates src and builds the model. The error, if any, is a
// diag.List of positioned findings.
func Load(src *Source) (*model.Spec, error) { return load(src, true) }

// load is Load, with the checks that mirror the emitters or without them
// (for the test that proves each such broken case is one an emitter
// rejects).
func load(src *Source, emitChecks bool) (*model.Spec, error) {
	l := &loader{
		src:      src,
		modRoot:  src.ModuleRoot(),
		clashed:  map[*model.Tool]bool{},
		exprMemo: map[cue.Value]exprResult{},
	}
	v, err := l.evaluate()
	if err != nil {
		return nil, err
	}
	s := l.build(v)
	if len(l.errs) == 0 && emitChecks {
		l.emitChecks(v, s)
	}
	if err := l.errs.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

type loader struct {
	src  *Source
	errs diag.List
	root cue.Value
	// syn is read from the spec's syntax once, for doc comments (Value.Doc
	// is quadratic in the size of a file) and positions.
	syn *syntaxIndex
	// exprMemo holds the results of Value.Expr, which re-evaluates each
	// conjunct of a value: the loader asks again for the same values.
	exprMemo map[cue.Value]exprResult
	// modRoot is the spec's module's root directory (Source.ModuleRoot).
	modRoot string
	// clashed holds tools whose names clash with another tool's; checks
	// that would only repeat that finding skip them.
	clashed map[*model.Tool]bool
}

// evaluate loads the CUE instance with the metaschema overlaid and
// validates it (non-concrete: argument schemas stay schemas). The
// metaschema closes the spec (see its pattern on the top-level fields), so
// CUE itself reports a field it does not declare.
func (l *loader) evaluate() (cue.Value, error) {
	userFiles := l.src.UserFiles()
	if len(userFiles) == 0 {
		return cue.Value{}, diag.List{{Pos: model.Pos{File: l.src.Display}, Code: "no-spec", Msg: "no .cue files in the spec directory"}}
	}
	pkg, errs := l.packageName(userFiles)
	if errs != nil {
		return cue.Value{}, errs.Err()
	}
	if _, errs := l.schemaCopy(pkg); errs != nil {
		return cue.Value{}, errs.Err()
	}
	overlay := map[string]cueload.Source{}
	for name, b := range l.src.Files {
		overlay[filepath.Join(l.src.abs, filepath.FromSlash(name))] = cueload.FromBytes(b)
	}
	// agentc's metaschema, in place of the copy the directory may hold.
	overlay[filepath.Join(l.src.abs, spec.SchemaFile)] = cueload.FromBytes(schemaIn(pkg))
	if l.src.moduleFile() == "" {
		overlay[filepath.Join(l.src.abs, "cue.mod", "module.cue")] = cueload.FromString("module: \"agentc.local/spec\"\nlanguage: version: \"" + cueLanguage + "\"\n")
	}
	cfg := &cueload.Config{Dir: l.src.abs, Overlay: overlay, Package: pkg}
	insts := cueload.Instances([]string{"."}, cfg)
	if len(insts) != 1 {
		return cue.Value{}, fmt.Errorf("loading spec: %d instances", len(insts))
	}
	if err := insts[0].Err; err != nil {
		return cue.Value{}, l.convertList(err, model.Pos{File: l.src.Display}).Err()
	}
	// The doc comments are read from the syntax cue/load parsed (with
	// comments), rather than parsing the files a second time.
	l.syn = l.indexSyntax(insts[0], userFiles)
	v := cuecontext.New().BuildInstance(insts[0])
	l.root = v // for positions while converting errors
	// Validate reports every error; Err only one.
	err := v.Validate(cue.Concrete(false))
	if err == nil {
		err = v.Err()
	}
	if err != nil {
		return cue.Value{}, l.twinNotes(l.convertList(err, model.Pos{File: l.src.Display})).Err()
	}
	var missing diag.List
	l.required(v, nil, &anchor{pos: model.Pos{File: l.src.Display}, done: true}, &missing)
	if len(missing) > 0 {
		return cue.Value{}, missing.Err()
	}
	return v, nil
}

// packageName returns the package every user file declares. A file without
// a package clause, or with another package, would be left out of the
// instance silently by cue/load, so each is a finding.
func (l *loader) packageName(userFiles []string) (string, diag.List) {
	type clause struct {
		file, pkg string
		pos       token.Pos
	}
	var clauses []clause
	count := map[string]int{}
	for _, name := range userFiles {
		f, err := parser.ParseFile(filepath.Join(l.src.abs, name), l.src.Files[name], parser.PackageClauseOnly)
		if err != nil {
			return "", l.convertList(err, model.Pos{File: l.src.Display})
		}
		c := clause{file: name}
		for _, d := range f.Decls {
			if p, ok := d.(*ast.Package); ok && p.Name != nil && p.Name.Name != "_" {
				c.pkg, c.pos = p.Name.Name, p.Name.Pos()
			}
		}
		clauses = append(clauses, c)
		if c.pkg != "" {
			count[c.pkg]++
		}
	}
	// The package is the one most files declare; on a tie, the first file's.
	pkg := ""
	for _, c := range clauses {
		if c.pkg != "" && (pkg == "" || count[c.pkg] > count[pkg]) {
			pkg = c.pkg
		}
	}
	var errs diag.List
	for _, c := range clauses {
		switch {
		case c.pkg == "" && pkg == "":
			errs.Add(model.Pos{File: path.Join(l.src.Display, c.file), Line: 1, Col: 1}, "no-package",
				"spec files must declare a package (for example `package agentc`)")
		case c.pkg == "":
			errs.Add(model.Pos{File: path.Join(l.src.Display, c.file), Line: 1, Col: 1}, "no-package",
				"this file has no package clause, so it would not be part of the spec; start it with `package %s`", pkg)
		case c.pkg != pkg:
			errs.Add(l.pos(c.pos), "package", "package %s differs from the spec's package %s; every spec file must be in one package", c.pkg, pkg)
		}
	}
	return pkg, errs
}

// pos converts a CUE position to a display position.
func (l *loader) pos(p token.Pos) model.Pos {
	if !p.IsValid() {
		return model.Pos{}
	}
	if !l.inModule(p.Filename()) {
		// A place outside the spec's module: a builtin package's source
		// (list:3:9), which is on no author's disk.
		return model.Pos{}
	}
	// A package of the module outside the spec directory is shown from
	// it too (spec/../schemas/x.cue is schemas/x.cue).
	rel, _ := filepath.Rel(l.src.abs, p.Filename())
	return model.Pos{File: path.Join(l.src.Display, filepath.ToSlash(rel)), Line: p.Line(), Col: p.Column()}
}

// inModule reports whether the file name is one of the spec's module's:
// in the directory that holds its cue.mod, or below it.
func (l *loader) inModule(name string) bool {
	rel, err := filepath.Rel(l.modRoot, name)
	return err == nil && filepath.IsLocal(rel)
}

// vpos returns the position of v in the spec's own files when it has one
// there: a struct unified with the metaschema reports the metaschema's
// position first, which tells an author nothing.
func (l *loader) vpos(v cue.Value) model.Pos {
	p := l.pos(v.Pos())
	if inSpec(p) {
		return p
	}
	// Where the spec's files declare v's field, read from their syntax;
	// else the first of v's conjuncts written there, which takes
	// evaluating each again.
	if dp, ok := l.syn.declPos(v); ok {
		return l.pos(dp)
	}
	if q, ok := l.userPos(v, 0); ok {
		return q
	}
	return p
}

func (l *loader) userPos(v cue.Value, depth int) (model.Pos, bool) {
	if depth > 8 {
		return model.Pos{}, false
	}
	// Not l.expr: what Expr makes for the value's operands would be kept
	// (a mode's standing of each tool) for nothing.
	r, ok := l.exprMemo[v]
	if !ok {
		r.op, r.args = v.Expr()
	}
	if r.op != cue.AndOp {
		return model.Pos{}, false
	}
	for _, a := range r.args {
		if p := l.pos(a.Pos()); inSpec(p) {
			return p, true
		}
	}
	for _, a := range r.args {
		if p, ok := l.userPos(a, depth+1); ok {
			return p, true
		}
	}
	return model.Pos{}, false
}

type exprResult struct {
	op   cue.Op
	args []cue.Value
}

// expr returns v.Expr(), memoized. The arguments are shared: callers must
// not modify them.
func (l *loader) expr(v cue.Value) (cue.Op, []cue.Value) {
	if r, ok := l.exprMemo[v]; ok {
		return r.op, r.args
	}
	op, args := v.Expr()
	l.exprMemo[v] = exprResult{op, args}
	return op, args
}

// errorf records a finding at a CUE value's position.
func (l *loader) errorf(v cue.Value, code, format string, args ...any) {
	l.errs.Add(l.vpos(v), code, format, args...)
}

// importAdvice says, after an import cue/load could not resolve in a spec
// with no module (no cue.mod in its directory or above it, as cue looks),
// which module agentc read it as and where its packages are: module
// agentc.local/spec, rooted at the spec directory. With a module, CUE's
// cause says it all (a package the module lacks, a dependency it cannot
// fetch).
func (l *loader) importAdvice() string {
	if l.src.moduleFile() != "" {
		return ""
	}
	return "; neither the spec directory nor one above it holds a cue.mod/module.cue, so agentc reads the spec directory as the root of module agentc.local/spec: " +
		"import the packages below the spec directory as agentc.local/spec/<dir>, or give the spec a module (cue mod init in the spec directory or the repository's root) and import the module's packages by its path"
}

// twinNotes adds to errs, CUE's findings, one at each definition of the
// spec's that the metaschema declares too when a finding lies within it:
// the metaschema is part of the spec's package, so CUE unified the spec's
// #Model with agentc's, which the findings alone do not say.
func (l *loader) twinNotes(errs diag.List) diag.List {
	notes := errs
	for _, n := range l.syn.twins {
		from, to := l.pos(n.Pos()), l.pos(n.End())
		if slices.ContainsFunc(errs, func(e *diag.Error) bool {
			return from.Compare(e.Pos) <= 0 && e.Pos.Compare(to) <= 0
		}) {
			name := n.Label.(*ast.Ident).Name
			notes.Add(from, "schema", "%s is also a definition of agentc's metaschema (%s, which is part of the spec's package), so CUE unifies the two, and the findings here come from that; rename this definition", name, spec.SchemaFile)
		}
	}
	return notes
}
