// Package handlers checks hand-written gateway code against the Go package
// agentc generated from a spec: it loads the hand-written packages with
// golang.org/x/tools/go/packages, finds the types that implement (or are
// meant to implement) the generated Handler interface, and reports, per
// tool, a missing handler method, a handler for a tool the spec no longer
// has (or for a tool's alias), and a method whose signature is wrong — each
// at its file:line:col — and a codegen.go.import that is not the generated
// package's import path.
//
// The generated package is located by directory, not by name: it is the Go
// package in <out>/<codegen.go.dir>, and its import path follows from the
// module that holds the loaded packages. The Handler interface as compiled
// is the reference for signatures (types.Identical, so aliases and
// parameter names do not matter); the spec supplies the tool names for the
// messages.
package handlers

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/token"
	"go/types"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/agentc-dev/agentc/gen/diag"
	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/names"
)

// Finding codes.
const (
	CodeMissing   = "handler-missing"   // a gateway tool has no method on a handler type
	CodeSignature = "handler-signature" // a handler method has the wrong signature
	CodeStale     = "handler-stale"     // a handler-shaped method for a tool the spec no longer has
	CodeNone      = "handler-none"      // no type implements Handler at all
	CodeCompile   = "handler-compile"   // the hand-written package does not type-check
	CodeImport    = "handler-import"    // codegen.go.import is not the generated package's import path
)

// Options says what to check.
type Options struct {
	// Patterns are the package patterns of the hand-written code ("./..."),
	// resolved in the working directory, which positions are relative to.
	Patterns []string
	// Spec is the spec the generated packages come from (required): it
	// names the tools, and its codegen says where under Out the generated
	// Go package lies, and the MCP package (generated code, never a
	// hand-written handler; a package that calls its New serves the
	// handlers over MCP).
	Spec *model.Spec
	// Out is the output root the spec was generated into.
	Out string
	// Files, when not nil, are the generated files (under Out) that stand
	// in for the ones on disk: agentc check passes what it just generated,
	// so handlers are checked against the contract the spec describes now,
	// even where the tree on disk is stale.
	Files []emit.File
}

// Result is the outcome of a check.
type Result struct {
	// Findings are sorted by position, but for a wrong codegen.go.import,
	// which comes first.
	Findings diag.List
	// GenPath is the import path of the generated package.
	GenPath string
	// Types lists the handler types found, as "pkgpath.Name", sorted.
	Types []string
	// MCPPath is the import path of the generated MCP package, when the
	// spec has one.
	MCPPath string
	// Transports lists, sorted, the transports the hand-written code
	// serves its handlers over: "callback" when it calls the generated
	// package's NewRoute, "mcp" when it calls the MCP package's New.
	Transports []string
}

// loadMode is the least go/packages must do: syntax and types for the
// matched packages (so that a package that no longer compiles, because a
// method is missing, still yields its types and positions), export data for
// their dependencies, and each package's module to place the generated one.
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedModule |
	packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo

// Check loads the packages and checks their handler types. It returns an
// error only when the packages cannot be loaded or located at all; every
// problem in the code is a finding.
func Check(opts Options) (*Result, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	// Abs joins out to the working directory, which Getwd just read.
	out, _ := filepath.Abs(filepath.FromSlash(opts.Out))
	overlay := map[string][]byte{}
	for _, f := range opts.Files {
		if strings.HasSuffix(f.Path, ".go") {
			overlay[filepath.Join(out, filepath.FromSlash(f.Path))] = f.Data
		}
	}
	modDir, patterns := inModule(dir, opts.Patterns)
	cfg := &packages.Config{Mode: loadMode, Dir: modDir, Overlay: overlay}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", strings.Join(opts.Patterns, " "), err)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("%s matched no packages", strings.Join(opts.Patterns, " "))
	}
	c := &checker{fset: pkgs[0].Fset, dir: dir, spec: opts.Spec, res: &Result{}}
	c.res.GenPath, err = genImportPath(pkgs, filepath.Join(out, filepath.FromSlash(opts.Spec.Codegen.GoDir)))
	if err != nil {
		return nil, err
	}
	if mcp := opts.Spec.Codegen.MCP; mcp != nil {
		if c.res.MCPPath, err = genImportPath(pkgs, filepath.Join(out, filepath.FromSlash(mcp.Dir))); err != nil {
			return nil, err
		}
	}
	c.res.Transports = transports(pkgs, c.res.GenPath, c.res.MCPPath)
	c.run(pkgs)
	c.res.Findings.Sort()
	if cg := opts.Spec.Codegen; cg.GoImport != "" && cg.GoImport != c.res.GenPath {
		// The generated package imports its runtime copy, and the MCP
		// package the core, by this path: after codegen.out or go.dir
		// moved, the old copy, still on disk, builds in their place. It
		// comes first, before the compile errors that follow from it.
		c.res.Findings = append(diag.List{{Pos: cg.GoImportPos, Code: CodeImport, Msg: fmt.Sprintf("codegen.go.import is %q, but the generated package is written to %s, imported as %q; set go: import: %q",
			cg.GoImport, path.Join(opts.Out, cg.GoDir), c.res.GenPath, c.res.GenPath)}}, c.res.Findings...)
	}
	return c.res, nil
}

// inModule returns the directory to load packages in and the patterns as
// they read from there: the first pattern's directory (backend for
// ./backend/...), where go finds the module that holds it, which from a
// monorepo's root it refused (directory prefix backend does not contain
// main module); dir when that is no directory. Positions stay relative to dir.
func inModule(dir string, patterns []string) (string, []string) {
	prefix, _, _ := strings.Cut(patterns[0], "...")
	at := filepath.Join(dir, prefix)
	if fi, err := os.Stat(at); err != nil || !fi.IsDir() || !build.IsLocalImport(patterns[0]) {
		return dir, patterns
	}
	rel := slices.Clone(patterns)
	for i, p := range patterns {
		if r, err := filepath.Rel(at, filepath.Join(dir, p)); err == nil && build.IsLocalImport(p) {
			rel[i] = "./" + filepath.ToSlash(r)
		}
	}
	return at, rel
}

// genImportPath computes the import path of the package in genDir from the
// module of the loaded packages.
func genImportPath(pkgs []*packages.Package, genDir string) (string, error) {
	for _, p := range pkgs {
		m := p.Module
		if m == nil || m.Dir == "" {
			continue
		}
		rel, err := filepath.Rel(m.Dir, genDir)
		if err != nil || !filepath.IsLocal(rel) {
			continue
		}
		return m.Path + "/" + filepath.ToSlash(rel), nil
	}
	for _, p := range pkgs {
		// A package that failed to load entirely (a bad pattern) says why.
		for _, e := range p.Errors {
			if e.Kind == packages.ListError {
				return "", fmt.Errorf("%s", e.Msg)
			}
		}
	}
	return "", fmt.Errorf("the generated Go package directory %s is not inside the module of the packages matched", genDir)
}

type checker struct {
	fset *token.FileSet
	dir  string
	spec *model.Spec
	res  *Result
}

func (c *checker) run(pkgs []*packages.Package) {
	var gen *types.Package
	var users []*packages.Package // matched packages that import the generated one
	for _, p := range pkgs {
		if p.PkgPath == c.res.GenPath || p.PkgPath == c.res.MCPPath || p.Types == nil {
			continue
		}
		for _, imp := range p.Types.Imports() {
			if imp.Path() == c.res.GenPath {
				gen = imp
				users = append(users, p)
			}
		}
	}
	if gen == nil {
		c.res.Findings.Add(model.Pos{}, CodeNone, "no type implements %[1]s.Handler: no package matched by the pattern imports %[2]s; "+
			"declare one in a package the pattern matches and assert it: var _ %[1]s.Handler = (*Gateway)(nil)", c.spec.Codegen.GoPackage, c.res.GenPath)
		c.compileErrors(pkgs)
		return
	}
	// handler stays an untyped nil when there is none: a nil *TypeName in
	// it would have c.pos call a method on nil.
	handler := gen.Scope().Lookup("Handler")
	handlerObj, _ := handler.(*types.TypeName)
	callObj, _ := gen.Scope().Lookup("Call").(*types.TypeName)
	if handlerObj == nil || callObj == nil || !types.IsInterface(handlerObj.Type()) {
		c.res.Findings.Add(c.pos(handler), CodeNone, "%s has no Handler interface; regenerate it with agentc gen", c.res.GenPath)
		return
	}
	iface := handlerObj.Type().Underlying().(*types.Interface)
	var cands []*types.Named // types that implement, or are meant to implement, Handler
	for _, p := range users {
		asserted := assertedTypes(p, handlerObj.Type())
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || tn.IsAlias() {
				continue
			}
			named, ok := tn.Type().(*types.Named)
			if !ok || types.IsInterface(named) {
				continue
			}
			if asserted[tn] || c.meantAsHandler(named, iface, callObj) {
				cands = append(cands, named)
			}
		}
	}
	if len(cands) == 0 {
		tools := "the spec has no gateway tools"
		var names []string
		for m := range iface.Methods() {
			names = append(names, c.toolName(m.Name()))
		}
		if len(names) > 0 {
			tools = "tools " + strings.Join(names, ", ")
		}
		c.res.Findings.Add(c.pos(handlerObj), CodeNone, "no type in the packages matched implements %s.Handler (%s); declare one and assert it: var _ %s.Handler = (*Gateway)(nil)",
			gen.Name(), tools, gen.Name())
		c.compileErrors(pkgs)
		return
	}
	for _, named := range cands {
		c.res.Types = append(c.res.Types, named.Obj().Pkg().Path()+"."+named.Obj().Name())
		c.checkType(named, iface, callObj)
	}
	slices.Sort(c.res.Types)
	if len(c.res.Findings) == 0 {
		// Nothing explains why a matched package does not compile; its
		// types are incomplete, so say so rather than pass.
		c.compileErrors(pkgs)
	}
}

// transports returns the transports the matched packages (other than the
// generated ones) mount: "callback" for a use of genPath's NewRoute, "mcp"
// for a use of mcpPath's New.
func transports(pkgs []*packages.Package, genPath, mcpPath string) []string {
	found := map[string]bool{}
	for _, p := range pkgs {
		if p.PkgPath == genPath || p.PkgPath == mcpPath || p.TypesInfo == nil {
			continue
		}
		for _, obj := range p.TypesInfo.Uses {
			if _, ok := obj.(*types.Func); !ok || obj.Pkg() == nil {
				continue
			}
			switch {
			case obj.Pkg().Path() == genPath && obj.Name() == "NewRoute":
				found["callback"] = true
			case mcpPath != "" && obj.Pkg().Path() == mcpPath && obj.Name() == "New":
				found["mcp"] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(found))
}

// meantAsHandler reports whether a type has a method named like a Handler
// method or shaped like one.
func (c *checker) meantAsHandler(named *types.Named, iface *types.Interface, callObj *types.TypeName) bool {
	ms := types.NewMethodSet(types.NewPointer(named))
	for sel := range ms.Methods() {
		f := sel.Obj().(*types.Func)
		if m, _, _ := types.LookupFieldOrMethod(iface, false, nil, f.Name()); m != nil || handlerShaped(f, callObj) {
			return true
		}
	}
	return false
}

// handlerShaped reports whether f looks like a handler method:
// (context.Context, Call, Args) (Output[Result], error), judged only by the
// second parameter and the error result so that a method whose argument
// type no longer exists (a removed tool) still counts.
func handlerShaped(f *types.Func, callObj *types.TypeName) bool {
	sig := f.Type().(*types.Signature)
	if sig.Params().Len() != 3 || sig.Results().Len() != 2 {
		return false
	}
	// Call is the runtime's Call instantiated with the package's Mode.
	return types.Identical(sig.Params().At(1).Type(), callObj.Type()) &&
		types.Identical(sig.Results().At(1).Type(), types.Universe.Lookup("error").Type())
}

// assertedTypes returns the package's types asserted to be handlers:
// var _ gen.Handler = (*T)(nil), T{}, &T{} or NewT().
func assertedTypes(p *packages.Package, handler types.Type) map[*types.TypeName]bool {
	out := map[*types.TypeName]bool{}
	for _, f := range p.Syntax {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				if vs.Type == nil || !types.Identical(p.TypesInfo.TypeOf(vs.Type), handler) {
					continue
				}
				for _, v := range vs.Values {
					t := p.TypesInfo.TypeOf(v)
					if ptr, ok := t.(*types.Pointer); ok {
						t = ptr.Elem()
					}
					if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() == p.Types {
						out[n.Obj()] = true
					}
				}
			}
		}
	}
	return out
}

func (c *checker) checkType(named *types.Named, iface *types.Interface, callObj *types.TypeName) {
	tn := named.Obj()
	// Qualify by package name, as the code the user writes does.
	q := func(p *types.Package) string {
		if p == tn.Pkg() {
			return ""
		}
		return p.Name()
	}
	ms := types.NewMethodSet(types.NewPointer(named))
	for m := range iface.Methods() {
		tool := c.toolName(m.Name())
		sel := ms.Lookup(m.Pkg(), m.Name())
		want := m.Type().(*types.Signature)
		if sel == nil {
			c.res.Findings.Add(c.pos(tn), CodeMissing, "type %s has no handler for tool %q: add the method %s%s",
				tn.Name(), tool, m.Name(), strings.TrimPrefix(types.TypeString(want, q), "func"))
			continue
		}
		f := sel.Obj().(*types.Func)
		if have := f.Type().(*types.Signature); !types.Identical(have, want) {
			c.res.Findings.Add(c.pos(f), CodeSignature, "%s.%s, the handler for tool %q, has the wrong signature: have %s, want %s",
				tn.Name(), m.Name(), tool, types.TypeString(have, q), types.TypeString(want, q))
		}
	}
	for sel := range ms.Methods() {
		f := sel.Obj().(*types.Func)
		if m, _, _ := types.LookupFieldOrMethod(iface, false, nil, f.Name()); m != nil || !handlerShaped(f, callObj) {
			continue
		}
		if t := c.toolByGoName(f.Name()); t != nil {
			c.res.Findings.Add(c.pos(f), CodeStale, "%s.%s handles tool %q, which the gateway no longer executes (it runs %s); delete the method",
				tn.Name(), f.Name(), t.Name, t.Execution)
			continue
		}
		if t, alias := c.toolByAlias(f.Name()); t != nil && t.Execution == model.Gateway {
			// A tool renamed with its old name kept as an alias: the
			// gateway dispatches calls by the old name to the new method.
			do := "rename the method to " + t.GoName
			if ms.Lookup(f.Pkg(), t.GoName) != nil {
				do = "delete the method"
			}
			c.res.Findings.Add(c.pos(f), CodeStale, "%s.%s handles %q, now an alias of tool %q: the gateway calls %s for both names; %s",
				tn.Name(), f.Name(), alias, t.Name, t.GoName, do)
			continue
		}
		c.res.Findings.Add(c.pos(f), CodeStale, "%s.%s handles a tool the spec no longer has (no gateway tool is named %s in Go); delete the method",
			tn.Name(), f.Name(), f.Name())
	}
}

// compileErrors reports, for each matched package that does not compile,
// which makes the analysis unreliable, its first error and how many more
// it has, when nothing else explains them: one cause (a go.mod without a
// go directive, a wrong codegen.go.import) makes hundreds.
func (c *checker) compileErrors(pkgs []*packages.Package) {
	for _, p := range pkgs {
		// go list's own compile failure repeats the type errors; keep it
		// only when it is all there is.
		errs := slices.DeleteFunc(slices.Clone(p.Errors), func(e packages.Error) bool { return e.Kind == packages.ListError })
		if len(errs) == 0 {
			errs = p.Errors
		}
		if len(errs) == 0 {
			continue
		}
		more := ""
		if len(errs) > 1 {
			more = fmt.Sprintf(" (and %d more errors)", len(errs)-1)
		}
		c.res.Findings.Add(c.parsePos(errs[0].Pos), CodeCompile, "package %s does not compile: %s%s", p.PkgPath, errs[0].Msg, more)
	}
}

var posRE = regexp.MustCompile(`^(.*):(\d+):(\d+)$`)

func (c *checker) parsePos(s string) model.Pos {
	m := posRE.FindStringSubmatch(s)
	if m == nil {
		if s == "" || s == "-" {
			return model.Pos{}
		}
		return model.Pos{File: c.rel(s)}
	}
	line, _ := strconv.Atoi(m[2])
	col, _ := strconv.Atoi(m[3])
	return model.Pos{File: c.rel(m[1]), Line: line, Col: col}
}

// pos is obj's position, its file relative to the working directory.
func (c *checker) pos(obj types.Object) model.Pos {
	if obj == nil || !obj.Pos().IsValid() || obj.Pkg() == nil {
		return model.Pos{}
	}
	p := c.fset.Position(obj.Pos())
	return model.Pos{File: c.rel(p.Filename), Line: p.Line, Col: p.Column}
}

// rel shortens file as the go command does: relative to the working
// directory when that is shorter.
func (c *checker) rel(file string) string {
	if r, err := filepath.Rel(c.dir, file); err == nil && len(r) < len(file) {
		return filepath.ToSlash(r)
	}
	return file
}

func (c *checker) toolByGoName(goName string) *model.Tool {
	for _, t := range c.spec.Tools {
		if t.GoName == goName {
			return t
		}
	}
	return nil
}

// toolByAlias returns the tool with an alias whose Go name is goName, and
// that alias.
func (c *checker) toolByAlias(goName string) (*model.Tool, string) {
	for _, t := range c.spec.Tools {
		for _, a := range t.Aliases {
			if names.GoExported(a) == goName {
				return t, a
			}
		}
	}
	return nil, ""
}

// toolName is the tool name behind a Handler method, or the method name
// when the spec does not know it (the generated package is stale).
func (c *checker) toolName(method string) string {
	if t := c.toolByGoName(method); t != nil {
		return t.Name
	}
	return method
}
