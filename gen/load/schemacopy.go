package load

import (
	"bytes"
	"fmt"
	"path"
	"path/filepath"

	"cuelang.org/go/cue/cuecontext"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/parser"

	"github.com/agentc-dev/agentc/gen/diag"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/spec"
)

// The spec directory may hold a copy of the metaschema (spec.SchemaFile),
// for editors and `cue vet`. agentc evaluates every spec against its own
// copy and never reads that file, so a copy that no longer matches (edited,
// or from an older agentc) would mislead its author silently: a broken copy
// is an error and a differing one a warning, each naming the file and the
// command that rewrites it.

// Warnings returns the findings about src that do not stop generation: a
// metaschema copy in the spec directory that differs from agentc's. A
// broken copy is not a warning but one of Load's errors.
func Warnings(src *Source) diag.List {
	l := &loader{src: src, modRoot: src.ModuleRoot()}
	w, _ := l.schemaCopy(l.specPackage())
	return w
}

// SchemaFor returns agentc's metaschema as a copy in src's directory
// should read: in the package of src's files (agentc init --schema).
func SchemaFor(src *Source) []byte {
	return schemaIn((&loader{src: src, modRoot: src.ModuleRoot()}).specPackage())
}

// specPackage returns the package of the spec author's files ("agentc"
// when there are none; findings about package clauses are Load's).
func (l *loader) specPackage() string {
	if pkg, _ := l.packageName(l.src.UserFiles()); pkg != "" {
		return pkg
	}
	return "agentc"
}

// schemaCopy checks the metaschema copy in the spec directory, if there is
// one: a copy that does not parse or compile gives errors, one that
// differs from agentc's copy in package pkg a warning.
func (l *loader) schemaCopy(pkg string) (warnings, errs diag.List) {
	b, ok := l.src.Files[spec.SchemaFile]
	if !ok {
		return nil, nil
	}
	ours := schemaIn(pkg)
	if bytes.Equal(b, ours) {
		// agentc's own metaschema, which Load evaluates anyway: it
		// compiles, and parsing it again would find nothing.
		return nil, nil
	}
	display := path.Join(l.src.Display, spec.SchemaFile)
	refresh := fmt.Sprintf("`agentc init --schema %s`", l.src.Display)
	f, err := parser.ParseFile(filepath.Join(l.src.abs, spec.SchemaFile), b, parser.ParseComments)
	if err == nil {
		err = cuecontext.New().BuildFile(f).Err()
	}
	if err != nil {
		for _, e := range cueerrors.Errors(err) {
			p := l.pos(e.Position())
			if !p.IsValid() {
				p = model.Pos{File: display, Line: 1, Col: 1}
			}
			format, args := e.Msg()
			errs.Add(p, "schema-copy", "this copy of agentc's metaschema is broken: %s; rewrite it with %s",
				fmt.Sprintf(format, args...), refresh)
		}
		return nil, errs
	}
	line := firstDifference(b, ours)
	// Differing in its package alone: the spec's files were copied from
	// another spec, or its package renamed in some files.
	if other, ok := bytes.CutPrefix(bytes.Split(b, []byte("\n"))[line-1], []byte("package ")); ok && bytes.Equal(schemaIn(string(other)), b) {
		warnings.Add(model.Pos{File: display, Line: line, Col: len("package ") + 1}, "schema-copy",
			"warning: this copy is in package %s, the spec's files in package %s: `cue vet` and editors see two packages here, agentc only the spec's; "+
				"put the copy in package %s with %s, or change the spec files' package clauses to %s", other, pkg, pkg, refresh, other)
		return warnings, nil
	}
	warnings.Add(model.Pos{File: display, Line: line, Col: 1}, "schema-copy",
		"warning: differs from agentc's metaschema, which agentc uses instead of this file (editors and `cue vet` "+
			"read this one); refresh it with %s", refresh)
	return warnings, nil
}

// schemaIn returns agentc's metaschema in package pkg.
func schemaIn(pkg string) []byte {
	return bytes.Replace(spec.Schema(), []byte("\npackage agentc\n"), []byte("\npackage "+pkg+"\n"), 1)
}

// firstDifference returns the first line (from 1) where a and b differ.
func firstDifference(a, b []byte) int {
	line := 1
	for i := 0; i < len(a) && i < len(b) && a[i] == b[i]; i++ {
		if a[i] == '\n' {
			line++
		}
	}
	return line
}
