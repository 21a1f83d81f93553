package load

import (
	"cmp"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/token"

	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/names"
)

// build converts the evaluated root into the model, recording findings.
func (l *loader) build(root cue.Value) *model.Spec {
	s := &model.Spec{Dir: l.src.Display, Files: l.src.UserFiles()}

	l.contract(root, s)
	l.codegen(root, s)
	l.tools(root, s)
	params := l.promptParams(root, s) // the names, sorted, that prompts' placeholders may use
	l.modes(root, s, params)
	l.selection(root, s)
	l.models(root, s)
	l.callback(root, s)
	l.opencode(root, s)
	l.proxy(root, s, params)
	l.breaking(root, s)
	l.nameClashes(s)
	return s
}

// lookup returns the value at a dotted path (labels quoted as needed).
func lookup(v cue.Value, sels ...cue.Selector) cue.Value {
	return v.LookupPath(cue.MakePath(sels...))
}

// named returns the fields of v, a struct whose labels are names the spec
// chooses (tools, modes, models, prompt parameters …), by name, without
// the labels skipLabel skips. letterFirst says the names there start with
// a letter.
func (l *loader) named(v cue.Value, letterFirst bool) iter.Seq2[string, cue.Value] {
	return func(yield func(string, cue.Value) bool) {
		it, _ := v.Fields(cue.Hidden(true))
		for it.Next() {
			if !l.skipLabel(it.Selector(), it.Value(), letterFirst) && !yield(it.Selector().Unquoted(), it.Value()) {
				return
			}
		}
	}
}

// skipLabel reports whether sel, a label of a struct whose labels are
// names the spec chooses (tools, arguments, modes, models, prompt
// parameters …), declares no such name: a definition, or a hidden field,
// which it reports at v, the field's value. Such structs are read with
// cue.Hidden(true), which lists both: CUE leaves a hidden field (an
// unquoted label starting with '_') out of a struct's fields, so a name
// written so would vanish from the contract without a word. letterFirst
// says the names there start with a letter; elsewhere quoting the label
// keeps the name.
func (l *loader) skipLabel(sel cue.Selector, v cue.Value, letterFirst bool) bool {
	if sel.LabelType() != cue.HiddenLabel {
		return sel.IsDefinition()
	}
	sels := v.Path().Selectors() // sel.String() holds the field's ? or !
	hint := fmt.Sprintf("to declare a name starting with '_', quote the label (%q: …)", sels[len(sels)-1].String())
	if letterFirst {
		hint = "a name here starts with a letter"
	}
	l.errorf(v, "hidden", "%s is a hidden field: CUE leaves a label starting with '_' out of the spec, so it is not part of the contract; %s "+
		"(a helper value that names nothing in the contract belongs in a definition, #%s)", v.Path(), hint, strings.TrimRight(strings.TrimPrefix(sel.String(), "_"), "?!"))
	return true
}

func str(v cue.Value) string {
	s, _ := v.String()
	return s
}

// integer returns the int v; one that a 64-bit int cannot hold (CUE's int
// has no bound) is a finding at v.
func (l *loader) integer(v cue.Value) int {
	n, err := v.Int64()
	if err != nil {
		l.errorf(v, "integer", "%s: %v is beyond the range of a 64-bit integer", v.Path(), v)
	}
	return int(n)
}

func (l *loader) contract(root cue.Value, s *model.Spec) {
	c := lookup(root, cue.Str("contract"))
	rv := lookup(c, cue.Str("revision"))
	// Generated Go shows the revision on one comment line: no newline
	// either.
	rev := str(rv)
	if i := strings.IndexFunc(rev, func(r rune) bool { return r == '\uFEFF' || unicode.IsControl(r) }); i >= 0 {
		l.errorf(rv, "text", "contract.revision %q holds %s; a revision holds no control character and no U+FEFF", rev, runeName([]rune(rev[i:])[0]))
	}
	s.Contract = model.Contract{
		Name:     str(lookup(c, cue.Str("name"))),
		Revision: rev,
		Summary:  strings.TrimSpace(l.text(lookup(c, cue.Str("summary")))),
	}
}

func (l *loader) codegen(root cue.Value, s *model.Spec) {
	v := lookup(root, cue.Str("codegen"))
	at := func(field string) cue.Value { return v.LookupPath(cue.ParsePath(field)) }
	c := &s.Codegen
	*c = model.Codegen{Out: str(at("out")), GoDir: str(at("go.dir")), GoPackage: str(at("go.package")),
		GoImport: str(at("go.import")), GoRuntime: str(at("go.runtime")), OpenCodeDir: str(at("opencode.dir")),
		TSDir: str(at("ts.dir")), JSONSchemaDir: str(at("jsonschema.dir")), DocsDir: str(at("docs.dir"))}
	if c.GoImport != "" {
		c.GoImportPos = l.vpos(at("go.import"))
	}
	for _, field := range []string{"out", "go.dir", "opencode.dir", "ts.dir", "jsonschema.dir", "docs.dir"} {
		if dir := str(at(field)); !localPath(dir) {
			l.errorf(at(field), "codegen", "codegen.%s %q must be a relative path inside the output tree (no '..', no leading '/')", field, dir)
		}
	}
	l.goPackage(at("go.package"), "go.package", c.GoPackage)
	if mv := at("mcp"); mv.Exists() {
		m := &model.MCPCodegen{Dir: str(at("mcp.dir")), Package: str(at("mcp.package")), CoreImport: str(at("mcp.core_import")),
			Runtime: str(at("mcp.runtime")), Pos: l.vpos(mv)}
		// Each says the core package's import path when the other does not
		// (core_import alone is how specs said it before go.import).
		if m.CoreImport == "" {
			m.CoreImport = c.GoImport
		} else if c.GoImport == "" {
			c.GoImport = m.CoreImport
		}
		c.MCP = m
		switch {
		case !localPath(m.Dir):
			l.errorf(at("mcp.dir"), "codegen", "codegen.mcp.dir %q must be a relative path inside the output tree (no '..', no leading '/')", m.Dir)
		case strings.EqualFold(path.Clean(m.Dir), path.Clean(c.GoDir)):
			// Ignoring case, as a macOS or Windows checkout does.
			l.errorf(at("mcp.dir"), "codegen", "codegen.mcp.dir %q must differ from codegen.go.dir %q, even ignoring case: the MCP package is a package of its own", m.Dir, c.GoDir)
		}
		l.goPackage(at("mcp.package"), "mcp.package", m.Package)
	}
}

// goPackage reports a generated package's name (codegen.<field>, at v)
// that the gateway's code could not import.
func (l *loader) goPackage(v cue.Value, field, name string) {
	switch {
	case names.IsGoReserved(name):
		l.errorf(v, "codegen", "codegen.%s %q is a Go keyword or predeclared identifier", field, name)
	case name == "main":
		l.errorf(v, "codegen", "codegen.%s is \"main\": a package main is a program, and the gateway's code must import the generated package", field)
	}
}

// localPath reports whether p is a non-empty relative slash path with no
// ".." segment.
func localPath(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
		return false
	}
	return !slices.Contains(strings.Split(p, "/"), "..")
}

func (l *loader) tools(root cue.Value, s *model.Spec) {
	w := &typeWalker{l: l, checks: map[string]*model.Check{}, funcNames: map[string]string{}, shadows: map[string]bool{}}
	tsv := lookup(root, cue.Str("tools"))
	for name, tv := range l.named(tsv, true) {
		t := &model.Tool{
			Name:        name,
			Execution:   model.Execution(str(lookup(tv, cue.Str("execution")))),
			Description: strings.TrimSpace(l.text(lookup(tv, cue.Str("description")))),
			Deprecated:  strings.TrimSpace(l.text(lookup(tv, cue.Str("deprecated")))),
			Pos:         l.vpos(tv),
		}
		sm := lookup(tv, cue.Str("summary"))
		t.Summary = l.text(sm)
		// A list of strings that evaluate found concrete (an open list
		// decodes as its elements), which Decode takes without error; so
		// do the other lists of strings below.
		_ = lookup(tv, cue.Str("aliases")).Decode(&t.Aliases)
		t.FileName = names.FileName(t.Name)
		t.GoName = names.GoExported(t.Name)
		if !toolName.MatchString(t.Name) {
			l.errs.Add(t.Pos, "tool-name", "tool name %q must start with an ASCII letter and hold only ASCII letters, digits, '_', '-' and '.'", t.Name)
		}

		t.Args = w.object(lookup(tv, cue.Str("args")), t.GoName+"Args", t.GoName)
		t.Args.Doc = t.Description
		if r := lookup(tv, cue.Str("result")); r.Exists() {
			if !t.Execution.GatewayExecuted() {
				l.errorf(r, "result", "only gateway-executed tools return result data; %q runs in the %s", t.Name, t.Execution)
			}
			t.Result = w.object(r, t.GoName+"Result", t.GoName+"Result")
		}
		l.summary(sm, t)
		t.Fingerprint = fingerprint(t)
		s.Tools = append(s.Tools, t)
		// What Expr made for this tool's values is not asked for again:
		// kept, it would stay reachable to the end of Load.
		clear(l.exprMemo)
	}
	l.toolNameClashes(tsv, s.Tools) // in the order the spec declares them
	slices.SortFunc(s.Tools, func(a, b *model.Tool) int { return cmp.Compare(a.Name, b.Name) })
	s.Checks = slices.SortedFunc(maps.Values(w.checks), func(a, b *model.Check) int { return cmp.Compare(a.Name, b.Name) })
	if len(s.Tools) == 0 {
		l.errs.Add(model.Pos{File: l.src.Display}, "no-tools", "the spec declares no tools")
	}
}

// toolNameClashes checks that every alias of tools (declared at tsv) is
// spelt as a tool name is, that every tool name and alias names one tool, and
// that tool names stay distinct as file names (OpenCode's tool ids, and the
// files each tool is generated into, even ignoring case) and Go names. Tool
// names come first, so a clash with an alias is reported at the alias; a
// clashing alias is dropped. Tools whose names clash are marked clashed, so
// that the names derived from them (TypeScript names, type names) and
// prompt mentions do not repeat the finding.
func (l *loader) toolNameClashes(tsv cue.Value, tools []*model.Tool) {
	owner := map[string]*model.Tool{} // every name and alias
	ownerPos := map[string]model.Pos{}
	files := map[string]*model.Tool{}
	// A tool's files (<file name>.ts, .txt, .json) are one file on a
	// macOS or Windows checkout for file names that differ only in case;
	// file names are ASCII.
	folded := map[string]*model.Tool{}
	for _, t := range tools {
		owner[t.Name], ownerPos[t.Name] = t, t.Pos
		if prev := folded[strings.ToLower(t.FileName)]; prev != nil {
			if prev.FileName == t.FileName {
				l.errs.Add(t.Pos, "duplicate-tool", "tool %q has the same file name, %s.ts, as tool %q (%s); OpenCode would see one tool", t.Name, t.FileName, prev.Name, prev.Pos)
			} else {
				l.errs.Add(t.Pos, "duplicate-tool", "tool %q's file name, %s.ts, differs only in case from tool %q's, %s.ts (%s): "+
					"a macOS or Windows checkout would hold one file for both; rename one", t.Name, t.FileName, prev.Name, prev.FileName, prev.Pos)
			}
			l.clashed[t], l.clashed[prev] = true, true
			continue
		}
		files[t.FileName], folded[strings.ToLower(t.FileName)] = t, t
	}
	for _, t := range tools {
		var kept []string
		for i, a := range t.Aliases {
			pos := l.vpos(lookup(tsv, cue.Str(t.Name), cue.Str("aliases"), cue.Index(i)))
			if !toolName.MatchString(a) {
				l.errs.Add(pos, "tool-name", "alias %q must start with an ASCII letter and hold only ASCII letters, digits, '_', '-' and '.'", a)
			}
			if prev, taken := owner[a]; taken {
				switch {
				case prev == t && a == t.Name:
					l.errs.Add(pos, "duplicate-tool", "alias %q of tool %q repeats the tool's own name", a, t.Name)
				case prev == t:
					l.errs.Add(pos, "duplicate-tool", "alias %q of tool %q is listed twice", a, t.Name)
				case a == prev.Name:
					l.errs.Add(pos, "duplicate-tool", "alias %q of tool %q is already the name of tool %q (%s)", a, t.Name, prev.Name, ownerPos[a])
				default:
					l.errs.Add(pos, "duplicate-tool", "alias %q of tool %q is already an alias of tool %q (%s)", a, t.Name, prev.Name, ownerPos[a])
				}
				continue
			}
			if f := files[names.FileName(a)]; f != nil && f != t {
				l.errs.Add(pos, "duplicate-tool", "alias %q of tool %q is tool %q's file name, %s.ts (OpenCode's tool id) (%s)", a, t.Name, f.Name, names.FileName(a), f.Pos)
				continue
			}
			owner[a], ownerPos[a] = t, pos
			kept = append(kept, a)
		}
		t.Aliases = kept
	}
	goNames := map[string]*model.Tool{}
	for _, t := range tools {
		if l.clashed[t] {
			continue
		}
		if prev := goNames[t.GoName]; prev != nil {
			l.errs.Add(t.Pos, "name-clash", "tools %q and %q both become Go name %s", prev.Name, t.Name, t.GoName)
			l.clashed[t], l.clashed[prev] = true, true
			continue
		}
		goNames[t.GoName] = t
	}
}

var toolName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`)

// spacedPlaceholder reports, at pos, a placeholder written with spaces
// inside its braces ({{ name }}); what says whose text it is in.
func (l *loader) spacedPlaceholder(pos model.Pos, raw, what string) bool {
	name := strings.TrimSpace(raw)
	if name == raw {
		return false
	}
	l.errs.Add(pos, "placeholder", "%s uses {{%s}}: a placeholder has no spaces inside its braces; write {{%s}}", what, raw, name)
	return true
}

// summary checks a sandbox tool's result template.
func (l *loader) summary(v cue.Value, t *model.Tool) {
	for _, m := range model.Placeholder.FindAllStringSubmatch(t.Summary, -1) {
		pos := l.textPos(v, func(raw string) int { return strings.Index(raw, m[0]) })
		if l.spacedPlaceholder(pos, m[1], fmt.Sprintf("summary of %q", t.Name)) {
			continue
		}
		name, count := m[1], false
		if rest, ok := strings.CutPrefix(name, "count:"); ok {
			name, count = rest, true
		}
		i := slices.IndexFunc(t.Args.Fields, func(f *model.Field) bool { return f.Name == name })
		switch {
		case i < 0:
			var known []string
			for _, x := range t.Args.Fields {
				if !count || x.Type.Kind == model.Array {
					known = append(known, x.Name)
				}
			}
			hint := ""
			if k := closest(name, known); k != "" {
				hint = fmt.Sprintf("; did you mean {{%s}}?", strings.TrimSuffix(m[1], name)+k)
			}
			l.errs.Add(pos, "placeholder", "summary placeholder {{%s}} names no argument of %q%s", m[1], t.Name, hint)
		case count && t.Args.Fields[i].Type.Kind != model.Array:
			l.errs.Add(pos, "placeholder", "{{count:%s}} needs a list argument; %q is %s", name, name, t.Args.Fields[i].Type.Kind)
		}
	}
}

func (l *loader) modes(root cue.Value, s *model.Spec, params []string) {
	values := map[*model.Mode]cue.Value{} // each mode's, for its fields' positions
	at := func(m *model.Mode, field string) cue.Value { return lookup(values[m], cue.Str(field)) }
	// s.Tool, as a map: toolNameClashes left each name or alias one tool's.
	byName := map[string]*model.Tool{}
	var toolNames []string // every tool's names, for did-you-mean
	for _, t := range s.Tools {
		for _, n := range t.AllNames() {
			byName[n] = t
			toolNames = append(toolNames, n)
		}
	}
	for name, mv := range l.named(lookup(root, cue.Str("modes")), true) {
		m := &model.Mode{
			Name:        name,
			Goal:        l.text(lookup(mv, cue.Str("goal"))),
			SourceEdits: str(lookup(mv, cue.Str("source_edits"))),
			OwnPrompt:   strings.TrimSpace(l.text(lookup(mv, cue.Str("prompt")))),
			Critical:    strings.TrimSpace(l.text(lookup(mv, cue.Str("critical")))),
			Pos:         l.vpos(mv),
		}
		m.GoName = names.GoExported(m.Name)
		m.TSName = names.TSCamel(m.Name)
		given := map[string]bool{}
		for name, sv := range l.named(lookup(mv, cue.Str("tools")), true) {
			pos := l.vpos(sv)
			st := model.Standing(str(sv))
			t := byName[name]
			switch {
			case t == nil:
				l.errs.Add(pos, "unknown-tool", "mode %q names unknown tool %q%s", m.Name, name, suggest(name, toolNames))
				continue
			case t.Name != name:
				l.errs.Add(pos, "unknown-tool", "mode %q names tool %q by its alias %q; use its name", m.Name, t.Name, name)
			}
			if given[t.Name] {
				continue
			}
			given[t.Name] = true
			m.Standings = append(m.Standings, model.ToolStanding{Tool: t, Standing: st, Pos: pos})
		}
		for _, t := range s.Tools {
			if !given[t.Name] {
				m.Standings = append(m.Standings, model.ToolStanding{Tool: t, Standing: model.Unavailable, Pos: m.Pos})
			}
		}
		slices.SortFunc(m.Standings, func(a, b model.ToolStanding) int { return cmp.Compare(a.Tool.Name, b.Tool.Name) })
		values[m] = mv
		s.Modes = append(s.Modes, m)
	}
	slices.SortFunc(s.Modes, func(a, b *model.Mode) int { return cmp.Compare(a.Name, b.Name) })
	if len(s.Modes) == 0 {
		l.errs.Add(model.Pos{File: l.src.Display}, "no-modes", "the spec declares no modes")
	}

	// Resolve extends, then detect cycles.
	for _, m := range s.Modes {
		e := at(m, "extends")
		if !e.Exists() {
			continue
		}
		m.Extends = l.knownMode(s, e, str(e), fmt.Sprintf("mode %q extends", m.Name))
	}
	for _, m := range s.Modes {
		// The critical instructions follow even a custom prompt: the
		// model reads them as it reads the mode's prompt.
		l.checkText(at(m, "critical"), m.Critical, params, []*model.Mode{m}, fmt.Sprintf("critical text of mode %q", m.Name))
		// m and the modes it extends, up to the first mode it meets
		// again: x.
		lineage, x := lineageOf(m)
		if x == m {
			// One finding per cycle, at the first of its modes by name.
			chain := each(lineage, func(x *model.Mode) string { return x.Name })
			if slices.Min(chain) == m.Name {
				l.errorf(at(m, "extends"), "extends-cycle", "mode %q extends itself through %s", m.Name, strings.Join(append(chain, m.Name), " → "))
			}
			continue
		}
		if x != nil {
			lineage = lineage[:slices.Index(lineage, x)] // up to the cycle m leads into
		}
		parts := each(lineage, func(x *model.Mode) string { return x.OwnPrompt })
		slices.Reverse(parts) // their own prompts, farthest first
		m.Prompt = strings.Join(parts, "\n\n")
		l.checkPrompt(lineage, params, func(m *model.Mode) cue.Value { return at(m, "prompt") })
	}
}

// lineageOf returns m and the modes it extends, nearest first, however
// long the chain, up to the first mode the chain would meet again, which it
// returns too: nil when the chain ends, m when m is on a cycle, another
// mode when m leads into a cycle it is not on.
func lineageOf(m *model.Mode) (lineage []*model.Mode, again *model.Mode) {
	seen := map[*model.Mode]bool{}
	x := m
	for ; x != nil && !seen[x]; x = x.Extends {
		seen[x] = true
		lineage = append(lineage, x)
	}
	return lineage, x
}

// promptParams reads prompt_params. Each becomes a field of the generated
// PromptParams, in Go and in TypeScript: names that differ only in case or
// separators (repo_name, repoName) are reported at the second, as clashing
// names of tools, modes and fields are.
func (l *loader) promptParams(root cue.Value, s *model.Spec) []string {
	goNames, tsNames := map[string]*model.PromptParam{}, map[string]*model.PromptParam{}
	pos := map[*model.PromptParam]model.Pos{}
	for n, v := range l.named(lookup(root, cue.Str("prompt_params")), true) {
		p := &model.PromptParam{Name: n, GoName: names.GoExported(n), TSName: names.TSCamel(n), Doc: l.text(v)}
		// At its name: vpos says where the value is written.
		pos[p] = l.vpos(v)
		if dp, ok := l.syn.declPos(v); ok {
			pos[p] = l.pos(dp)
		}
		if prev := goNames[p.GoName]; prev != nil {
			shared := "Go field PromptParams." + p.GoName
			if tsNames[p.TSName] == prev {
				shared += " and TypeScript property " + p.TSName
			}
			l.errs.Add(pos[p], "name-clash", "prompt_params %q and %q both become %s (%q is at %s)", prev.Name, n, shared, prev.Name, pos[prev])
		} else {
			goNames[p.GoName] = p
		}
		if prev := tsNames[p.TSName]; prev != nil && prev != goNames[p.GoName] {
			l.errs.Add(pos[p], "name-clash", "prompt_params %q and %q both become TypeScript property %s (%q is at %s)", prev.Name, n, p.TSName, prev.Name, pos[prev])
		} else if prev == nil {
			tsNames[p.TSName] = p
		}
		s.PromptParams = append(s.PromptParams, p)
	}
	slices.SortFunc(s.PromptParams, func(a, b *model.PromptParam) int { return cmp.Compare(a.Name, b.Name) })
	return each(s.PromptParams, func(p *model.PromptParam) string { return p.Name })
}

// checkPrompt enforces the seed's acceptance gate on a mode's full prompt:
// it mentions only tools the mode makes mentionable, and every tool the
// mode makes emphasized or stronger; and its placeholders are known.
// lineage is the mode and the modes whose prompts it inherits, nearest
// first. prompt returns a mode's own prompt value, for positions: a
// finding about a mention is placed at the mention.
func (l *loader) checkPrompt(lineage []*model.Mode, params []string, prompt func(*model.Mode) cue.Value) {
	m := lineage[0]
	own := prompt(m)
	// Its mentions, which depend on the prompts it extends, are below.
	l.checkText(own, m.OwnPrompt, params, nil, fmt.Sprintf("prompt of mode %q", m.Name))
	for _, ts := range m.Standings {
		if l.clashed[ts.Tool] {
			continue // which tool a mention means is unclear; the clash is reported
		}
		// The mode of lineage whose own prompt mentions the tool by any of
		// its names, nearest first.
		var where *model.Mode
		if i := slices.IndexFunc(lineage, func(x *model.Mode) bool { return Mentions(x.OwnPrompt, ts.Tool) }); i >= 0 {
			where = lineage[i]
		}
		switch {
		case where != nil && !ts.Standing.Mentionable():
			via := ""
			if where != m {
				if !where.Standing(ts.Tool.Name).Mentionable() {
					continue // reported for the mode whose prompt it is
				}
				via = fmt.Sprintf(" (in the prompt it extends, of mode %q)", where.Name)
			}
			pos := l.textPos(prompt(where), func(raw string) int { return mentionIndex(raw, ts.Tool) })
			l.errs.Add(pos, "prompt-mentions-tool", "prompt of mode %q mentions tool %q%s, which is %s in that mode", m.Name, ts.Tool.Name, via, ts.Standing)
		case where == nil && ts.Standing.MustMention():
			l.errorf(own, "prompt-omits-tool", "prompt of mode %q never mentions tool %q, which is %s in that mode", m.Name, ts.Tool.Name, ts.Standing)
		}
	}
}

// Mentions reports whether text names tool t (its name, an alias or its file
// name) as a whole word, outside placeholders.
func Mentions(text string, t *model.Tool) bool {
	return mentionIndex(text, t) >= 0
}

// mentionIndex returns the byte offset of the first whole-word mention of
// tool t in text, or -1. A placeholder named like a tool
// ({{save_env_files}}) is no mention: the model reads the parameter's
// value there, not the name.
func mentionIndex(text string, t *model.Tool) int {
	var skip [][]int
	if strings.Contains(text, "{{") {
		skip = model.Placeholder.FindAllStringIndex(text, -1)
	}
	first := wordIndex(text, t.Name, skip)
	for _, n := range t.Aliases {
		first = earlier(first, wordIndex(text, n, skip))
	}
	return earlier(first, wordIndex(text, t.FileName, skip))
}

// wordIndex returns the byte offset of the first whole-word occurrence of
// n in text outside the spans skip, or -1.
func wordIndex(text, n string, skip [][]int) int {
	for i := 0; i < len(text); {
		j := strings.Index(text[i:], n)
		if j < 0 {
			break
		}
		j += i
		before := j == 0 || !isWordByte(text[j-1])
		after := j+len(n) >= len(text) || !isWordByte(text[j+len(n)])
		inside := slices.ContainsFunc(skip, func(sp []int) bool { return sp[0] <= j && j < sp[1] })
		if before && after && !inside {
			return j
		}
		i = j + 1
	}
	return -1
}

// earlier returns the smaller of two offsets, -1 meaning none.
func earlier(a, b int) int {
	if a < 0 || b >= 0 && b < a {
		return b
	}
	return a
}

// textPos returns the position, in the spec's source, of the first match of
// find in the string literals v is written with (the literal fragments of
// an interpolation included), or v's when no literal matches: a
// placeholder or mention inside a multi-line prompt is placed at its line
// and column.
func (l *loader) textPos(v cue.Value, find func(raw string) int) model.Pos {
	for _, b := range l.literals(v) {
		i := find(b.Value)
		if i < 0 {
			continue
		}
		p := l.pos(b.Pos())
		if !inSpec(p) {
			continue
		}
		pre := b.Value[:i]
		if nl := strings.LastIndexByte(pre, '\n'); nl >= 0 {
			p.Line += strings.Count(pre, "\n")
			p.Col = i - nl
		} else {
			p.Col += i
		}
		return p
	}
	return l.vpos(v)
}

// literals returns the string literals, as written, that make up v.
func (l *loader) literals(v cue.Value) []*ast.BasicLit {
	var out []*ast.BasicLit
	var add func(n ast.Node)
	add = func(n ast.Node) {
		switch x := n.(type) {
		case *ast.Field:
			add(x.Value)
		case *ast.BasicLit:
			if x.Kind == token.STRING && !slices.Contains(out, x) {
				out = append(out, x)
			}
		case *ast.Interpolation:
			for _, e := range x.Elts {
				add(e)
			}
		}
	}
	add(v.Source())
	if op, args := v.Expr(); op == cue.AndOp {
		for _, a := range args {
			add(a.Source())
		}
	}
	return out
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

func (l *loader) selection(root cue.Value, s *model.Spec) {
	sv := lookup(root, cue.Str("selection"))
	s.Selection.Pos = l.vpos(sv)
	inputs := map[string]*model.SelectionInput{}
	for name, v := range l.named(lookup(sv, cue.Str("inputs")), true) {
		in := &model.SelectionInput{Name: name, Doc: l.text(v)}
		in.GoName, in.TSName = names.GoExported(in.Name), names.TSCamel(in.Name)
		inputs[in.Name] = in
		s.Selection.Inputs = append(s.Selection.Inputs, in)
	}
	slices.SortFunc(s.Selection.Inputs, func(a, b *model.SelectionInput) int { return cmp.Compare(a.Name, b.Name) })
	rules, _ := lookup(sv, cue.Str("rules")).List()
	for rules.Next() {
		rv := rules.Value()
		r := &model.Rule{}
		mv := lookup(rv, cue.Str("mode"))
		r.Mode = l.knownMode(s, mv, str(mv), "selection rule picks")
		conds := 0
		for name, v := range l.named(lookup(rv, cue.Str("when")), true) {
			conds++
			in := inputs[name]
			if in == nil {
				l.errorf(v, "unknown-input", "selection rule reads %q, which is not in selection.inputs", name)
				continue
			}
			r.When = append(r.When, model.Condition{Input: in, Value: str(v)})
		}
		if conds == 0 {
			l.errorf(rv, "selection", "selection rule has no conditions; use selection.default instead")
		}
		slices.SortFunc(r.When, func(a, b model.Condition) int { return cmp.Compare(a.Input.Name, b.Input.Name) })
		s.Selection.Rules = append(s.Selection.Rules, r)
	}
	dv := lookup(sv, cue.Str("default"))
	s.Selection.Default = l.knownMode(s, dv, str(dv), "selection.default is")
}

func (l *loader) models(root cue.Value, s *model.Spec) {
	opencodeIDs, apiIDs, goNames := map[string]*model.Model{}, map[string]*model.Model{}, map[string]*model.Model{}
	for id, mv := range l.named(lookup(root, cue.Str("models")), false) {
		m := &model.Model{
			Canonical: id,
			Display:   l.text(lookup(mv, cue.Str("display"))),
			OpenCode:  str(lookup(mv, cue.Str("opencode"))),
			API:       str(lookup(mv, cue.Str("api"))),
			Pos:       l.vpos(mv),
		}
		m.GoName = names.GoExported(m.Canonical)
		l.nameText(m.Pos, m.Canonical, "model ID")
		if p := opencodeIDs[m.OpenCode]; p != nil {
			l.errorf(lookup(mv, cue.Str("opencode")), "duplicate-model-id", "OpenCode ID %q is also model %q's; ID transforms must be one-to-one", m.OpenCode, p.Canonical)
		}
		if p := apiIDs[m.API]; p != nil {
			l.errorf(lookup(mv, cue.Str("api")), "duplicate-model-id", "API ID %q is also model %q's; ID transforms must be one-to-one", m.API, p.Canonical)
		}
		if p := goNames[m.GoName]; p != nil {
			l.errs.Add(m.Pos, "name-clash", "models %q and %q both become Go name %s", p.Canonical, m.Canonical, m.GoName)
		}
		opencodeIDs[m.OpenCode], apiIDs[m.API], goNames[m.GoName] = m, m, m
		s.Models = append(s.Models, m)
	}
	slices.SortFunc(s.Models, func(a, b *model.Model) int { return cmp.Compare(a.Canonical, b.Canonical) })
	for name, av := range l.named(lookup(root, cue.Str("agents")), true) {
		a := &model.Agent{Name: name, Pos: l.vpos(av)}
		a.GoName = names.GoExported(a.Name)
		lit, _ := lookup(av, cue.Str("models")).List()
		for lit.Next() {
			id := str(lit.Value())
			if m := s.Model(id); m == nil {
				l.errorf(lit.Value(), "unknown-model", "agent %q lists model %q, which is not in the registry%s", a.Name, id, suggest(id, modelIDs(s)))
			} else if slices.Contains(a.Models, m) {
				l.errorf(lit.Value(), "duplicate-model", "agent %q lists model %q more than once", a.Name, m.Canonical)
			} else {
				a.Models = append(a.Models, m)
			}
		}
		dv := lookup(av, cue.Str("default"))
		switch m := s.Model(str(dv)); {
		case m == nil:
			l.errorf(dv, "unknown-model", "default model %q of agent %q is not in the registry%s", str(dv), a.Name, suggest(str(dv), modelIDs(s)))
		case !slices.Contains(a.Models, m):
			l.errorf(dv, "unknown-model", "default model %q of agent %q is not among its models", str(dv), a.Name)
		default:
			a.Default = m
		}
		s.Agents = append(s.Agents, a)
	}
	slices.SortFunc(s.Agents, func(a, b *model.Agent) int { return cmp.Compare(a.Name, b.Name) })
	if len(s.Agents) == 0 {
		l.errs.Add(model.Pos{File: l.src.Display}, "no-agents", "the spec declares no agents")
	}
}

func (l *loader) callback(root cue.Value, s *model.Spec) {
	v := lookup(root, cue.Str("callback"))
	at := func(field string) cue.Value { return v.LookupPath(cue.ParsePath(field)) }
	c := &s.Callback
	*c = model.Callback{Path: str(at("path")), MaxRetries: l.integer(at("max_retries")), BackoffBaseMS: l.integer(at("backoff_base_ms")),
		TimeoutMS: l.integer(at("timeout_ms")), RetentionMS: l.integer(at("retention_ms")),
		EnvGatewayURL: str(at("env.gateway_url")), EnvSessionID: str(at("env.session_id")), EnvAuthToken: str(at("env.auth_token")),
		Pos: l.vpos(at("path"))}
	if !inSpec(c.Pos) {
		c.Pos = l.vpos(v)
	}
	_ = at("retry_on").Decode(&c.RetryOn)
	for _, p := range []string{"{sessionId}", "{toolName}"} {
		if strings.Count(c.Path, p) != 1 {
			l.errorf(at("path"), "callback", "callback.path must contain %s exactly once", p)
		}
	}
	// The route compares the path as sent with its segments as written: a
	// character a client sends escaped (a space, é) never matches, and
	// clients and net/http drop . and .. segments.
	segs := strings.Split(c.Path, "/")
	for i, seg := range segs {
		if bad := strings.IndexFunc(seg, func(r rune) bool {
			return r > unicode.MaxASCII || !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("-._~!$&'()*+,;=:@{}", r)
		}); bad >= 0 {
			l.errorf(at("path"), "callback", "callback.path segment %q holds %q, which a URL carries only escaped, so no call would reach the route; "+
				"use ASCII letters, digits and - . _ ~", seg, []rune(seg[bad:])[0])
		} else if seg == "." || seg == ".." || seg == "" && i > 0 && i < len(segs)-1 {
			l.errorf(at("path"), "callback", "callback.path has an empty, . or .. segment, which clients and net/http remove from a URL's path, so no call would reach the route")
		}
	}
	l.envNames(v, "callback")
}

// envNames reports the environment variable names of the section's env
// (v is the section) that are no such name.
func (l *loader) envNames(v cue.Value, section string) {
	it, _ := lookup(v, cue.Str("env")).Fields()
	for it.Next() {
		if name := str(it.Value()); !envName.MatchString(name) {
			l.errorf(it.Value(), section, "%s.env.%s %q is not an environment variable name", section, it.Selector().Unquoted(), name)
		}
	}
}

func (l *loader) opencode(root cue.Value, s *model.Spec) {
	v := lookup(root, cue.Str("opencode"))
	o := &s.OpenCode
	*o = model.OpenCode{ToolDir: str(lookup(v, cue.Str("tool_dir"))), PluginPackage: str(lookup(v, cue.Str("plugin_package"))),
		PluginVersion: str(lookup(v, cue.Str("plugin_version")))}
	_ = lookup(v, cue.Str("config_paths")).Decode(&o.ConfigPaths)
	if !localPath(o.ToolDir) {
		l.errorf(lookup(v, cue.Str("tool_dir")), "opencode", "opencode.tool_dir %q must be relative to the repository root", o.ToolDir)
	}
	cv := lookup(v, cue.Str("config"))
	o.Config, _ = l.concreteJSON(cv, "opencode") // nil when it has none
	if lookup(cv, cue.Str("model")).Exists() {
		l.errorf(lookup(cv, cue.Str("model")), "opencode", "opencode.config must not set \"model\": it comes from the agent's default model")
	}
}

// concreteJSON returns v, free-form JSON in the spec, as JSON with its
// object keys sorted, or records why it has none.
func (l *loader) concreteJSON(v cue.Value, code string) ([]byte, bool) {
	if err := v.Validate(cue.Concrete(true)); err != nil {
		l.errs = append(l.errs, l.convertList(err, l.vpos(v))...)
		return nil, false
	}
	b, err := v.MarshalJSON()
	var x any
	if err == nil {
		err = json.Unmarshal(b, &x)
	}
	if err != nil {
		l.errorf(v, code, "%s: %v", v.Path(), err)
		return nil, false
	}
	b, _ = json.Marshal(x)
	return b, true
}

// nameClashes checks that generated Go type names are unique.
func (l *loader) nameClashes(s *model.Spec) {
	goTypes := map[string]model.Pos{}
	var visit func(t *model.Type)
	visit = func(t *model.Type) {
		if t == nil {
			return
		}
		if t.Kind == model.Object {
			if p, ok := goTypes[t.GoName]; ok {
				l.errs.Add(t.Pos, "name-clash", "Go type name %s is generated twice (also for %s): an object's Go type is named after the tool and the fields down to it "+
					"(a list's items after the list's name in the singular); rename a field (or tool) on the way to one of them", t.GoName, p)
			} else {
				goTypes[t.GoName] = t.Pos
			}
		}
		visit(t.Items)
		for _, f := range t.Fields {
			visit(f.Type)
		}
	}
	for _, t := range s.Tools {
		if l.clashed[t] {
			continue // its names clash already
		}
		visit(t.Args)
		visit(t.Result)
	}
	modes := map[string]*model.Mode{}
	for _, m := range s.Modes {
		if p := modes[m.GoName]; p != nil {
			l.errs.Add(m.Pos, "name-clash", "modes %q and %q both become Go name %s", p.Name, m.Name, m.GoName)
		}
		modes[m.GoName] = m
	}
}

// knownMode returns the mode named name, or nil after recording a finding
// at v: what, then "unknown mode" and the name.
func (l *loader) knownMode(s *model.Spec, v cue.Value, name, what string) *model.Mode {
	m := s.Mode(name)
	if m == nil {
		l.errorf(v, "unknown-mode", "%s unknown mode %q%s", what, name, suggest(name, each(s.Modes, func(m *model.Mode) string { return m.Name })))
	}
	return m
}

func modelIDs(s *model.Spec) []string {
	return each(s.Models, func(m *model.Model) string { return m.Canonical })
}

// each returns f of each of xs, in order (nil for none).
func each[T, U any](xs []T, f func(T) U) []U {
	var out []U
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

// suggest returns `; did you mean "x"?` for the closest known name, or "".
func suggest(name string, known []string) string {
	if k := closest(name, known); k != "" {
		return fmt.Sprintf("; did you mean %q?", k)
	}
	return ""
}

// closest returns the known name nearest to name — ignoring case, within a
// few edits for its length, or extending it — or "".
func closest(name string, known []string) string {
	best, bestD := "", 0
	ln := strings.ToLower(name)
	limit := max(1, min(2, len(name)/3))
	for _, k := range known {
		lk := strings.ToLower(k)
		d := editDistance(ln, lk)
		if len(ln) >= 3 && strings.HasPrefix(lk, ln) {
			d = min(d, 1)
		}
		if d <= limit && (best == "" || d < bestD) {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
