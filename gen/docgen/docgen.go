// Package docgen emits the Markdown contract reference: the tools with
// their arguments, the mode table, the selection rule, the models and the
// callback settings, all from the model.
package docgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/model"
)

// Emitter writes {codegen.docs.dir}/contract.md.
var Emitter = &emit.Emitter{
	Name: "docs",
	Doc:  "the Markdown contract reference: tools, modes, selection, models, callback",
	Run:  run,
}

// run renders the contract reference.
func run(p *emit.Pass) ([]emit.File, error) {
	s := p.Spec
	var b bytes.Buffer
	b.Grow(4096 + 2048*len(s.Tools))
	fmt.Fprintf(&b, "<!-- %s -->\n<!-- %s -->\n\n", emit.Header, emit.SourceLine(s))
	fmt.Fprintf(&b, "# Contract %s, revision %s\n\n%s\n\n", s.Contract.Name, s.Contract.Revision, oneLine(s.Contract.Summary))

	b.WriteString("## Tools\n\n| tool | execution | modes | status |\n| --- | --- | --- | --- |\n")
	for _, t := range s.Tools {
		var in []string
		for _, m := range s.Modes {
			if m.Standing(t.Name).Injected() {
				in = append(in, m.Name)
			}
		}
		status := "current"
		if t.Deprecated != "" {
			status = "**deprecated**"
		}
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s |\n", t.Name, anchor(t.Name), t.Execution, orDash(strings.Join(in, ", ")), status)
	}
	b.WriteString("\n")
	for _, t := range s.Tools {
		tool(&b, s, t)
	}

	modes(&b, s)
	selection(&b, s)
	models(&b, s)
	callback(&b, s)
	mcpSection(&b, s)
	return []emit.File{{Path: path.Join(s.Codegen.DocsDir, "contract.md"), Data: b.Bytes()}}, nil
}

func tool(b *bytes.Buffer, s *model.Spec, t *model.Tool) {
	fmt.Fprintf(b, "### `%s`\n\n", t.Name)
	if t.Deprecated != "" {
		fmt.Fprintf(b, "> **Deprecated.** %s\n\n", oneLine(t.Deprecated))
	}
	fmt.Fprintf(b, "%s\n\n", strings.TrimSpace(t.Description))
	how := map[model.Execution]string{
		model.Gateway:     "the sandbox module validates the arguments and calls the gateway, which runs the tool.",
		model.Sandbox:     "the tool runs in the sandbox and returns its summary.",
		model.Intercepted: "the sandbox module is a stub; the gateway intercepts the call from OpenCode's event stream and patches the result back.",
	}[t.Execution]
	fmt.Fprintf(b, "- **Execution:** %s — %s\n", t.Execution, how)
	fmt.Fprintf(b, "- **OpenCode tool id:** `%s` (`%s/%s.ts`)\n", t.FileName, s.OpenCode.ToolDir, t.FileName)
	if len(t.Aliases) > 0 {
		fmt.Fprintf(b, "- **Aliases** (accepted by the gateway): %s\n", codeList(t.Aliases))
	}
	if t.Summary != "" {
		fmt.Fprintf(b, "- **Returns** (in the sandbox): %s\n", oneLine(t.Summary))
	}
	// The file alone: a line number would change with every edit above
	// the tool, in the reference of every tool below it.
	fmt.Fprintf(b, "- **Defined in:** %s\n\n", specFile(s, t.Pos))

	fieldTable(b, "**Arguments**", "argument", t.Args)
	if t.Result != nil {
		fieldTable(b, "**Result data** (`data` of the gateway's answer)", "field", t.Result)
	}
}

// fieldTable writes a heading and the table of t's fields, named column,
// or "None.".
func fieldTable(b *bytes.Buffer, heading, column string, t *model.Type) {
	b.WriteString(heading + "\n\n")
	if len(t.Fields) == 0 {
		b.WriteString("None.\n\n")
		return
	}
	fmt.Fprintf(b, "| %s | type | presence | limits | description |\n| --- | --- | --- | --- | --- |\n", column)
	fieldRows(b, "", t)
	b.WriteString("\n")
}

// fieldRows writes one row per field, recursing into objects and lists of
// objects with dotted paths (list items as name[]).
func fieldRows(b *bytes.Buffer, prefix string, t *model.Type) {
	for _, f := range t.Fields {
		name := prefix + f.Name
		presence := string(f.Presence)
		if f.Presence == model.Defaulted {
			presence = "default `" + pipes(string(f.Default)) + "`"
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s |\n", pipes(name), typeName(f.Type), presence, cell(limits(f.Type)), cell(f.Type.Description()))
		switch {
		case f.Type.Kind == model.Object:
			fieldRows(b, name+".", f.Type)
		case f.Type.Kind == model.Array && f.Type.Items.Kind == model.Object:
			fieldRows(b, name+"[].", f.Type.Items)
		}
	}
}

func typeName(t *model.Type) string {
	switch t.Kind {
	case model.Enum:
		var q []string
		for _, v := range t.Enum {
			q = append(q, "`"+pipes(jsonString(v))+"`")
		}
		return strings.Join(q, " \\| ")
	case model.Literal:
		return "`" + pipes(jsonString(t.Literal)) + "`"
	case model.Array:
		return "list of " + typeName(t.Items)
	}
	return string(t.Kind)
}

func limits(t *model.Type) string {
	var l []string
	if t.MinLength != nil {
		l = append(l, fmt.Sprintf("≥ %d characters", *t.MinLength))
	}
	if t.MaxLength != nil {
		l = append(l, fmt.Sprintf("≤ %d characters", *t.MaxLength))
	}
	for _, p := range t.Patterns {
		l = append(l, "matches `"+p.Regexp+"`")
	}
	for _, c := range t.Checks {
		l = append(l, "check "+c.Name+": "+c.Message)
	}
	if m := t.Minimum; m != nil {
		l = append(l, map[bool]string{true: "> ", false: "≥ "}[m.Exclusive]+string(m.Value))
	}
	if m := t.Maximum; m != nil {
		l = append(l, map[bool]string{true: "< ", false: "≤ "}[m.Exclusive]+string(m.Value))
	}
	if t.MinItems != nil {
		l = append(l, fmt.Sprintf("≥ %d items", *t.MinItems))
	}
	if t.MaxItems != nil {
		l = append(l, fmt.Sprintf("≤ %d items", *t.MaxItems))
	}
	if t.Kind == model.Array {
		if il := limits(t.Items); il != "" {
			l = append(l, "each item: "+il)
		}
	}
	return strings.Join(l, "; ")
}

func modes(b *bytes.Buffer, s *model.Spec) {
	b.WriteString("## Modes\n")
	row := func(label string, f func(m *model.Mode) string) {
		fmt.Fprintf(b, "\n| %s |", label)
		for _, m := range s.Modes {
			fmt.Fprintf(b, " %s |", cell(f(m)))
		}
	}
	row("aspect", func(m *model.Mode) string { return m.Name })
	row("---", func(*model.Mode) string { return "---" })
	row("Base prompt", func(m *model.Mode) string {
		if m.Extends != nil {
			return "Extends " + m.Extends.Name
		}
		return "Unique"
	})
	row("Goal", func(m *model.Mode) string { return m.Goal })
	for _, t := range s.Tools {
		row("`"+t.Name+"`", func(m *model.Mode) string {
			st := m.Standing(t.Name)
			if st == model.Mandatory {
				return "**" + string(st) + "**"
			}
			return string(st)
		})
	}
	row("Source code edits", func(m *model.Mode) string { return m.SourceEdits })
	row("Critical instructions (kept with a custom prompt)", func(m *model.Mode) string {
		if m.Critical != "" {
			return "yes"
		}
		return "—"
	})
	var st []string
	for _, x := range model.Standings {
		st = append(st, string(x))
	}
	b.WriteString("\n\nStandings, strongest first: " + codeList(st))
	b.WriteString(". A tool is injected into a mode's sandbox unless it is `unavailable` there; its files are then removed and the gateway rejects it. An `unmentioned` tool is injected but the prompt must not mention it.\n\n")
}

func selection(b *bytes.Buffer, s *model.Spec) {
	b.WriteString("## Mode selection\n\nThe first rule whose every condition holds picks the mode; a custom system prompt replaces the mode's prompt but keeps its critical instructions.\n\n")
	for i, r := range s.Selection.Rules {
		var conds []string
		for _, c := range r.When {
			conds = append(conds, fmt.Sprintf("`%s` = `%s`", c.Input.Name, jsonString(c.Value)))
		}
		fmt.Fprintf(b, "%d. %s → **%s**\n", i+1, strings.Join(conds, " and "), r.Mode.Name)
	}
	fmt.Fprintf(b, "%d. otherwise → **%s**\n\n", len(s.Selection.Rules)+1, s.Selection.Default.Name)
	if len(s.Selection.Inputs) > 0 {
		b.WriteString("| input | meaning |\n| --- | --- |\n")
		for _, in := range s.Selection.Inputs {
			fmt.Fprintf(b, "| `%s` | %s |\n", in.Name, cell(in.Doc))
		}
		b.WriteString("\n")
	}
	if len(s.PromptParams) > 0 {
		b.WriteString("Prompt parameters:\n\n| placeholder | meaning |\n| --- | --- |\n")
		for _, p := range s.PromptParams {
			fmt.Fprintf(b, "| `{{%s}}` | %s |\n", p.Name, cell(p.Doc))
		}
		b.WriteString("\n")
	}
}

func models(b *bytes.Buffer, s *model.Spec) {
	b.WriteString("## Models\n\n| canonical | display | OpenCode | API | agents |\n| --- | --- | --- | --- | --- |\n")
	for _, m := range s.Models {
		var as []string
		for _, a := range s.Agents {
			if slices.Contains(a.Models, m) {
				n := a.Name
				if a.Default == m {
					n += " (default)"
				}
				as = append(as, n)
			}
		}
		fmt.Fprintf(b, "| `%s` | %s | `%s` | `%s` | %s |\n", pipes(m.Canonical), cell(m.Display), m.OpenCode, pipes(m.API), orDash(strings.Join(as, ", ")))
	}
	b.WriteString("\n")
}

func callback(b *bytes.Buffer, s *model.Spec) {
	c := s.Callback
	b.WriteString("## Gateway callback\n\nA gateway-executed tool's sandbox module calls the gateway synchronously:\n\n")
	fmt.Fprintf(b, "- `POST {%s}%s` with `Authorization: Bearer {%s}`; `{sessionId}` comes from `%s`.\n", c.EnvGatewayURL, c.Path, c.EnvAuthToken, c.EnvSessionID)
	b.WriteString("- Body `{\"tool_call_id\": string, \"args\": object}` (arguments validated, defaults applied); answer `{\"success\": boolean, \"result\": string, \"data\"?: object}`. `result` is the tool's output; `success: false` makes it an error.\n")
	b.WriteString("- `tool_call_id` is computed once per execution (the assistant message id and the model's tool call id) and reused on every retry; the gateway returns the stored result for a repeated id.\n")
	fmt.Fprintf(b, "- Retries: up to %d after the first attempt, on %s, waiting %d ms × 2^n before retry n; each attempt times out after %d ms; OpenCode's abort ends the call.\n",
		c.MaxRetries, codeList(c.RetryOn), c.BackoffBaseMS, c.TimeoutMS)
	fmt.Fprintf(b, "- The gateway keeps a completed result for %d ms.\n", c.RetentionMS)
}

func anchor(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		case r == ' ':
			return '-'
		}
		return -1 // dropped
	}, strings.ToLower(name))
}

func codeList(vs []string) string {
	var q []string
	for _, v := range vs {
		q = append(q, "`"+v+"`")
	}
	return strings.Join(q, ", ")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cell makes text safe inside a table cell.
func cell(s string) string {
	return pipes(oneLine(s))
}

// pipes escapes '|', which ends a table cell even in a code span (a name,
// an enum value or a default that holds one).
func pipes(s string) string {
	return strings.ReplaceAll(s, "|", "\\|")
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}

// specFile names a position's file relative to the spec directory, so the
// reference does not depend on how the directory was named on the command
// line (the same rule as the Source header).
func specFile(s *model.Spec, p model.Pos) string {
	if rel, ok := strings.CutPrefix(p.File, s.Dir+"/"); ok && s.Dir != "" && s.Dir != "." {
		return rel
	}
	return p.File
}
