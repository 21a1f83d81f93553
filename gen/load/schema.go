package load

import (
	"cmp"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	cueerrors "cuelang.org/go/cue/errors"
	cueload "cuelang.org/go/cue/load"
	"cuelang.org/go/cue/token"
	"cuelang.org/go/mod/modfile"

	"github.com/agentc-dev/agentc/gen/diag"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/spec"
)

// anchor is a value above the one required checks, for the closest
// user-file position above it. Positions are costly (see vpos) and needed
// only for a finding, so an anchor finds its position when first asked.
type anchor struct {
	up   *anchor
	v    cue.Value
	pos  model.Pos
	done bool
}

// anchorPos returns the closest user-file position at or above a.
func (l *loader) anchorPos(a *anchor) model.Pos {
	if !a.done {
		a.done = true
		if p := l.vpos(a.v); inSpec(p) {
			a.pos = p
		} else {
			a.pos = l.anchorPos(a.up)
		}
	}
	return a.pos
}

// required reports fields below v (at path) that have no concrete value,
// outside argument and result schemas, which stay schemas: the metaschema
// declares most fields with a type alone (`description: string`), and a
// spec that leaves one out is still a valid, non-concrete value. up leads
// to the closest user-file position above v, where a field that only the
// metaschema declares is reported.
func (l *loader) required(v cue.Value, path []string, up *anchor, errs *diag.List) {
	if schemaPath(path) {
		return // argument and result schemas, and opencode.config (checked when built)
	}
	a := &anchor{up: up, v: v}
	d, _ := v.Default()
	if k := d.IncompleteKind(); (k == cue.StructKind || k == cue.ListKind) && !schemaAbove(path) && d.Validate(cue.Concrete(true)) == nil {
		// Concrete throughout: nothing below can be missing. One
		// validation costs less than listing every struct's fields.
		return
	}
	if !l.requiredBelow(d, path, a, errs) {
		l.requiredLeaf(v, d, path, up, errs)
	}
}

// requiredBelow reports the fields below d, the default of the value at
// path, that have no concrete value; false when d is not a struct or a
// concrete list, to be checked itself.
func (l *loader) requiredBelow(d cue.Value, path []string, a *anchor, errs *diag.List) bool {
	switch d.IncompleteKind() {
	case cue.StructKind, cue.BottomKind:
		// A struct whose evaluation waits on a missing field (#Tool's
		// `if execution == …`) is an incomplete error as a whole, but
		// lists its fields: the missing one among them.
		it, err := d.Fields()
		if err != nil {
			return d.IncompleteKind() == cue.StructKind // else an error that is no struct
		}
		n := 0
		for ; it.Next(); n++ {
			l.required(it.Value(), append(slices.Clip(path), it.Selector().String()), a, errs)
		}
		return n > 0 || d.IncompleteKind() == cue.StructKind
	case cue.ListKind:
		if d.IsConcrete() {
			it, _ := d.List() // a concrete list, which List takes without error
			for i := 0; it.Next(); i++ {
				l.required(it.Value(), append(slices.Clip(path), strconv.Itoa(i)), a, errs)
			}
			return true
		}
	}
	return false
}

// requiredLeaf reports v (d its default) when it has no concrete value.
func (l *loader) requiredLeaf(v, d cue.Value, path []string, up *anchor, errs *diag.List) {
	if d.IsConcrete() {
		return
	}
	if p := l.vpos(v); inSpec(p) {
		hint := ""
		defaults := 0
		if op, args := l.expr(v); op == cue.AndOp {
			for _, a := range args {
				if _, ok := a.Default(); ok {
					defaults++
				}
			}
		}
		if defaults > 1 {
			// *"a" | _ in a template and *"b" | _ for one mode: CUE
			// keeps neither default.
			hint = "; its defaults disagree, so CUE keeps none (a default does not override another): give it one default, and only the type elsewhere"
		}
		errs.Add(p, "schema", "%s: needs a concrete value, found %v%s", strings.Join(path, "."), d, hint)
		return
	}
	msg := fmt.Sprintf("%s is required but not set (want %v)", strings.Join(path, "."), d)
	// A field of the spec's beside it may be the same field misspelt
	// (exection:), which CUE does not refuse until this one is set.
	name := unquote(path[len(path)-1])
	if k := closest(name, fieldsBut(up.v, name)); k != "" {
		if p := l.vpos(lookup(up.v, cue.Str(k))); inSpec(p) {
			errs.Add(p, "schema", "%s; is %q a misspelling of it?", msg, k)
			return
		}
	}
	errs.Add(l.anchorPos(up), "schema", "%s", msg)
}

// schemaPath reports whether path (from the root) is a part of the spec that
// holds a schema or free-form JSON rather than metaschema fields.
func schemaPath(path []string) bool {
	switch {
	case len(path) == 3 && path[0] == "tools" && (path[2] == "args" || path[2] == "result"):
		return true
	case len(path) == 2 && path[0] == "opencode" && path[1] == "config":
		return true
	}
	return false
}

// schemaAbove reports whether path leads to a schema (see schemaPath)
// below it.
func schemaAbove(path []string) bool {
	switch {
	case len(path) == 0:
		return true
	case path[0] == "tools":
		return len(path) <= 2
	case path[0] == "opencode":
		return len(path) == 1
	}
	return false
}

// inSpec reports whether p is a position in the spec's own files, not in
// the metaschema.
func inSpec(p model.Pos) bool {
	return p.IsValid() && path.Base(p.File) != spec.SchemaFile
}

// cueErr is a CUE error on its way to becoming a finding.
type cueErr struct {
	path   []string
	format string
	args   []any
	pos    model.Pos
	// alt is the position of the error's first input in the metaschema, if
	// any (the alternative a disjunction offered).
	alt token.Pos
	// also holds the error's other positions in the spec's files.
	also []model.Pos
	// metaschemaOnly says that every position of the error is in the
	// metaschema: it is about a field the spec's files do not write.
	metaschemaOnly bool
}

// convertList turns CUE errors into positioned findings. Positions in the
// metaschema tell an author nothing (the file is not on their disk), so a
// finding is placed at the first position in the spec's own files, else at
// the value its path names, else at fallback. Disjunction failures against
// the metaschema's enums become one "is not one of" finding, and fields the
// closed metaschema does not allow get a did-you-mean.
func (l *loader) convertList(err error, fallback model.Pos) diag.List {
	var es []cueErr
	for _, e := range cueerrors.Errors(err) {
		format, args := e.Msg()
		pe := (*cueload.PackageError)(nil)
		isPkg := errors.As(e, &pe)
		full := strings.TrimPrefix(e.Error(), strings.Join(e.Path(), ".")+": ")
		if m := fmt.Sprintf(format, args...); strings.TrimSpace(m) == "" || strings.Contains(m, "%!") || !isPkg && strings.HasPrefix(full, m+": ") {
			// Some errors (cue/load's wrapped ones) carry their text, or
			// their cause (an imported package's syntax error: "import
			// failed: expected '}'"), only in Error.
			format, args = "%s", []any{full}
		}
		ce := cueErr{path: e.Path(), format: format, args: args}
		if isPkg {
			// An import cue/load could not resolve: the path is the
			// import stack, and what went wrong is in the cause alone
			// ("import failed" wraps it).
			f, a := pe.Msg()
			ce.path, ce.format, ce.args = nil, "%s: %s%s", []any{fmt.Sprintf(format, args...), fmt.Sprintf(f, a...), l.importAdvice()}
		} else if m := fmt.Sprint(args...); format == "builtin package %q undefined" || strings.Contains(m, "relative import paths not allowed") {
			// The two imports an author tries first for a package below
			// the spec directory: import "shared" and import "./shared".
			ce.format, ce.args = "%s%s", []any{fmt.Sprintf(format, args...), l.importAdvice()}
		}
		for _, p := range append([]token.Pos{e.Position()}, e.InputPositions()...) {
			mp := l.pos(p)
			if !mp.IsValid() {
				continue
			}
			if !inSpec(mp) {
				if !ce.alt.IsValid() {
					ce.alt = p
				}
				continue
			}
			if !ce.pos.IsValid() {
				ce.pos = mp
			} else if mp != ce.pos && !slices.Contains(ce.also, mp) {
				ce.also = append(ce.also, mp)
			}
		}
		if !ce.pos.IsValid() {
			ce.metaschemaOnly = ce.alt.IsValid()
			ce.pos = l.pathPos(ce.path, fallback)
		}
		if !ce.pos.IsValid() && strings.Contains(fmt.Sprint(ce.args...), "module.cue") {
			ce.pos.File = path.Join(l.src.Display, cmp.Or(l.src.moduleFile(), "cue.mod/module.cue"))
		}
		if format == "reference %q not found" && len(args) == 1 && (args[0] == "strings" || args[0] == "list") {
			// The package of the spec language's builtins, not imported
			// (a snippet pasted without its imports).
			ce.format, ce.args = "reference %q not found: add import %q to this file", []any{args[0], args[0]}
		}
		if errors.Is(e, modfile.ErrNoLanguageVersion) {
			// What cue's command adds to it.
			ce.format, ce.args = "%s; add `language: version: %q` to it (or run `cue mod fix`)", []any{fmt.Sprintf(ce.format, ce.args...), cueLanguage}
		}
		es = append(es, ce)
	}
	var out diag.List
	for i := 0; i < len(es); i++ {
		e := es[i]
		if f, used := l.notOneOf(es[i+1:], e); used > 0 {
			out = append(out, f)
			i += used
			continue
		}
		if e.format == "undefined field: %s" && len(e.path) == 1 && e.alt.IsValid() {
			// The metaschema's pattern on the top-level fields found no
			// field of #Spec by this name.
			e.format, e.args, e.metaschemaOnly = "field not allowed", nil, false
		}
		if e.format == "field not allowed" {
			if f := l.notAllowed(e); f != nil {
				out = append(out, f)
			}
			continue
		}
		msg := fmt.Sprintf(e.format, e.args...)
		if len(e.path) > 0 {
			msg = strings.Join(e.path, ".") + ": " + msg
		}
		if len(e.also) > 0 && (e.format == "conflicting values %s and %s" || strings.HasPrefix(msg, "import failed: ")) {
			// Say where the other value comes from, or the imported
			// package's error is, as cue vet does.
			msg += " (also at " + strings.Join(each(e.also, model.Pos.String), ", ") + ")"
		}
		out = append(out, &diag.Error{Pos: e.pos, Code: "cue", Msg: msg})
	}
	if len(out) == 0 && len(es) == 0 {
		out.Add(fallback, "cue", "%v", err)
	}
	return out
}

// pathPos returns the user-file position of the value at path in the spec,
// or fallback.
func (l *loader) pathPos(path []string, fallback model.Pos) model.Pos {
	if len(path) == 0 || !l.root.Exists() {
		return fallback
	}
	v := l.root.LookupPath(cue.ParsePath(strings.Join(path, ".")))
	for !v.Exists() && len(path) > 1 {
		path = path[:len(path)-1]
		v = l.root.LookupPath(cue.ParsePath(strings.Join(path, ".")))
	}
	if p := l.vpos(v); inSpec(p) {
		return p
	}
	// A root that is an error as a whole leads nowhere; the syntax still
	// says where the closest field on the path is declared.
	names := each(path, unquote)
	for n := len(names); n > 0; n-- {
		if p, ok := l.syn.declared(names[:n]); ok {
			return l.pos(p)
		}
	}
	return fallback
}

// notOneOf folds head, when it heads a disjunction failure, and the errors
// of rest that follow it into one finding when every alternative is a
// literal the same offending value conflicts with. It returns the finding
// and how many errors of rest it used.
func (l *loader) notOneOf(rest []cueErr, head cueErr) (*diag.Error, int) {
	if head.format != "%d errors in empty disjunction:" || len(head.args) != 1 {
		return nil, 0
	}
	n, _ := head.args[0].(int)
	if len(rest) < n || n == 0 {
		return nil, 0
	}
	type alt struct {
		lit string
		pos token.Pos
	}
	var alts []alt
	var bad string
	for _, e := range rest[:n] {
		if e.format != "conflicting values %s and %s" || len(e.args) != 2 || !slices.Equal(e.path, head.path) {
			return nil, 0
		}
		a, b := fmt.Sprint(e.args[0]), fmt.Sprint(e.args[1])
		if bad == "" {
			bad = b
		} else if b != bad {
			return nil, 0
		}
		alts = append(alts, alt{a, e.alt})
	}
	// At the offending value, which each conflict names (the same value,
	// so each has its position or none does): the position every conflict
	// holds, when the alternatives are the spec's too (a template's
	// *"text" | "json", and one tool's "xml"), which are then said.
	pos := head.pos
	if p := rest[0].pos; p.IsValid() {
		pos = p
	}
	var also []model.Pos
	if own := append([]model.Pos{rest[0].pos}, rest[0].also...); len(own) > 1 {
		// A position every conflict holds is the value's (or a reference
		// on the way to it); one that only some hold, an alternative's.
		in := map[model.Pos]int{}
		for _, e := range rest[:n] {
			for _, p := range append([]model.Pos{e.pos}, e.also...) {
				if in[p]++; in[p] == 1 && p.IsValid() {
					also = append(also, p)
				}
			}
		}
		if i := slices.IndexFunc(own, func(p model.Pos) bool { return in[p] == n }); i >= 0 {
			pos = own[i]
		}
		also = slices.DeleteFunc(also, func(p model.Pos) bool { return in[p] == n })
	}
	slices.SortStableFunc(alts, func(x, y alt) int {
		return cmp.Or(cmp.Compare(x.pos.Line(), y.pos.Line()), cmp.Compare(x.pos.Column(), y.pos.Column()))
	})
	lits := each(alts, func(a alt) string { return a.lit })
	plain := each(lits, unquote)
	hint := suggest(unquote(bad), plain)
	// A mode's tool standing has its own finding code.
	if p := head.path; len(p) == 4 && p[0] == "modes" && p[2] == "tools" {
		return &diag.Error{Pos: pos, Code: "unknown-standing", Msg: fmt.Sprintf("unknown standing %s for tool %q in mode %q (want one of %s)%s",
			bad, unquote(p[3]), unquote(p[1]), strings.Join(plain, ", "), hint)}, n
	}
	if len(also) > 0 {
		slices.SortFunc(also, model.Pos.Compare)
		hint += " (the alternatives are at " + strings.Join(each(also, model.Pos.String), ", ") + ")"
	}
	return &diag.Error{Pos: pos, Code: "schema", Msg: fmt.Sprintf("%s: %s is not one of %s%s",
		strings.Join(head.path, "."), bad, strings.Join(lits, ", "), hint)}, n
}

// keyRules are the metaschema's maps whose keys must be identifiers, with
// the noun for a key and the rule its pattern states. The loader reports a
// key the metaschema's #Spec does not allow (as CUE says) itself: CUE's
// "field not allowed" on the key's fields does not say why.
var keyRules = []struct {
	path       []string
	noun, rule string
}{
	{[]string{"modes"}, "mode name", identifierRule},
	{[]string{"agents"}, "agent name", identifierRule},
	{[]string{"selection", "inputs"}, "selection input name", identifierRule},
	{[]string{"prompt_params"}, "prompt parameter name", "start with an ASCII letter and hold only ASCII letters, digits and '_'"},
}

const identifierRule = "start with a lower-case ASCII letter and hold only lower-case ASCII letters, digits and '_'"

// notAllowed turns a closedness error into a finding: a bad key of an
// identifier-keyed map, or a field the metaschema does not have (with the
// closest field it does have).
func (l *loader) notAllowed(e cueErr) *diag.Error {
	for _, r := range keyRules {
		if len(e.path) <= len(r.path) || !slices.Equal(e.path[:len(r.path)], r.path) {
			continue
		}
		key := unquote(e.path[len(r.path)])
		if m := l.root.LookupPath(cue.ParsePath("#Spec." + strings.Join(r.path, "."))); !m.Exists() || m.Allows(cue.Str(key)) {
			break // a field below the key is not allowed
		}
		kp := e.path[:len(r.path)+1]
		return &diag.Error{Pos: l.pathPos(kp, e.pos), Code: "name", Msg: fmt.Sprintf("%s %q must %s", r.noun, key, r.rule)}
	}
	msg := strings.Join(e.path, ".") + ": field not allowed"
	if len(e.path) > 3 && schemaPath(e.path[:3]) {
		// The metaschema leaves both open: a closed struct of the spec's
		// (#Args & {x: …}) refuses the field. So does one that embeds a
		// definition ({#Args, y: T}) a field added from elsewhere: CUE
		// closes it as the definition is, unless it is open (...).
		return &diag.Error{Pos: e.pos, Code: "schema", Msg: msg + ": a closed struct of the spec's (a definition, or close({…})) does not declare it; " +
			"declare it there, or embed the definition in a struct that adds it ({#Args, x: T}) rather than unify with it (#Args & {x: T}); " +
			"a struct that embeds it takes a field added from elsewhere (a template's tools: [_]: args: x: T) only when it is open too ({#Args, ...})"}
	}
	if e.metaschemaOnly && len(e.path) > 1 {
		// A closed definition of the spec's stands where the metaschema
		// adds fields (tools: x: #T).
		return &diag.Error{Pos: e.pos, Code: "schema", Msg: fmt.Sprintf("%s: the closed definition the spec gives %s does not declare this field, "+
			"which agentc's metaschema adds; open the definition with ...", msg, strings.Join(e.path[:len(e.path)-1], "."))}
	}
	if len(e.path) > 0 && l.root.Exists() {
		// The field's siblings in the spec hold the metaschema's fields too.
		bad := unquote(e.path[len(e.path)-1])
		parent := l.root.LookupPath(cue.ParsePath(strings.Join(e.path[:len(e.path)-1], ".")))
		hint := suggest(bad, fieldsBut(parent, bad, cue.Optional(true)))
		if hint == "" && len(e.path) == 1 {
			// A value of the author's own (a shared schema, a table a
			// comprehension reads), where only #Spec's fields may stand.
			hint = ": the top level holds only the fields of the metaschema's #Spec; for a value of the spec's own (a shared schema, a table a comprehension reads), use a hidden field (_name: …) or a definition (#Name: …), which CUE leaves out of the spec's data"
		}
		msg += hint
	}
	return &diag.Error{Pos: e.pos, Code: "schema", Msg: msg}
}

// fieldsBut returns the names of the fields of v (as opts list them) but
// name.
func fieldsBut(v cue.Value, name string, opts ...cue.Option) []string {
	var out []string
	if it, err := v.Fields(opts...); err == nil {
		for it.Next() {
			if n := it.Selector().Unquoted(); n != name {
				out = append(out, n)
			}
		}
	}
	return out
}

// unquote returns a CUE label or string literal without its quotes.
func unquote(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s
}
