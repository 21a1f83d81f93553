package tsgen

import (
	"bytes"
	_ "embed"
	"fmt"
	"path"
	"strings"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/js"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/tslayout"
)

// emitTS returns the TypeScript modules for TS consumers: modes.ts,
// models.ts and prompts.ts under codegen.ts.dir.
func emitTS(p *emit.Pass) ([]emit.File, error) {
	s := p.Spec
	dir := s.Codegen.TSDir
	return []emit.File{
		{Path: path.Join(dir, "models.ts"), Data: modelsModule(s)},
		{Path: path.Join(dir, "modes.ts"), Data: modesModule(s)},
		{Path: path.Join(dir, "prompts.ts"), Data: promptsModule(s)},
	}, nil
}

// union declares a string-literal union type of vs, never empty (the
// loader admits no spec without a tool, a mode, a model or an agent), one
// member per line when it does not fit on one.
func union(name string, vs []string) string {
	return tslayout.Union("", "export type "+name+" = ", tslayout.Strings(vs))
}

// list renders an array of string literals after head (which ends before
// the "["), one item per line when it does not fit on one.
func list(indent, head string, vs []string) string {
	return tslayout.Call(indent, head+"[", tslayout.Strings(vs), "]")
}

// entry renders `key: { a: x, b: y },` at indent, one field per line when
// it does not fit on one.
func entry(indent, key string, fields ...string) string {
	return indent + tslayout.Call(indent, key+": { ", fields, " },") + "\n"
}

// doc writes a /** */ comment with the given indentation.
func doc(b *bytes.Buffer, indent, text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	lines := strings.Split(text, "\n")
	if len(lines) == 1 {
		fmt.Fprintf(b, "%s/** %s */\n", indent, tslayout.JSDoc(lines[0]))
		return
	}
	fmt.Fprintf(b, "%s/**\n", indent)
	for _, l := range lines {
		fmt.Fprintf(b, "%s\n", strings.TrimRight(indent+" * "+tslayout.JSDoc(l), " "))
	}
	fmt.Fprintf(b, "%s */\n", indent)
}

func modesModule(s *model.Spec) []byte {
	var b bytes.Buffer
	b.WriteString(header(s))
	b.WriteString("\n// Session modes: how a session's mode is chosen, and each tool's standing\n// in each mode.\n\n")

	var standings []string
	for _, st := range model.Standings {
		standings = append(standings, string(st))
	}
	doc(&b, "", "A tool's standing in a mode, strongest first.")
	b.WriteString(union("Standing", standings) + "\n\n")
	doc(&b, "", "Every standing, strongest first.")
	b.WriteString(list("", "export const STANDINGS: readonly Standing[] = ", standings) + "\n\n")

	var tools, modes []string
	for _, t := range s.Tools {
		tools = append(tools, t.Name)
	}
	for _, m := range s.Modes {
		modes = append(modes, m.Name)
	}
	doc(&b, "", "A tool, by its name in the contract (the model calls it by its fileName, OpenCode's tool id).")
	b.WriteString(union("ToolName", tools) + "\n\n")
	doc(&b, "", "Every tool, sorted.")
	b.WriteString(list("", "export const TOOL_NAMES: readonly ToolName[] = ", tools) + "\n\n")
	doc(&b, "", "Where a tool runs.")
	b.WriteString("export type Execution = \"gateway\" | \"sandbox\" | \"intercepted\"\n\n")
	doc(&b, "", "What a consumer needs to know about a tool.")
	b.WriteString("export interface ToolInfo {\n  readonly name: ToolName\n  /** Other names the gateway accepts. */\n  readonly aliases: readonly string[]\n  /** OpenCode's tool id: the tool file's base name. */\n  readonly fileName: string\n  readonly execution: Execution\n  /** Why the tool is deprecated, or \"\". */\n  readonly deprecated: string\n}\n\n")
	doc(&b, "", "Every tool by name.")
	b.WriteString("export const TOOLS: Readonly<Record<ToolName, ToolInfo>> = {\n")
	for _, t := range s.Tools {
		b.WriteString(entry("  ", tslayout.String(t.Name), "name: "+tslayout.String(t.Name), list("    ", "aliases: ", t.Aliases),
			"fileName: "+tslayout.String(t.FileName), "execution: "+tslayout.String(string(t.Execution)), "deprecated: "+tslayout.String(t.Deprecated)))
	}
	b.WriteString("}\n\n")

	doc(&b, "", "A session mode.")
	b.WriteString(union("ModeName", modes) + "\n\n")
	doc(&b, "", "Every mode, sorted.")
	b.WriteString(list("", "export const MODE_NAMES: readonly ModeName[] = ", modes) + "\n\n")
	doc(&b, "", "A mode's settings.")
	b.WriteString("export interface ModeInfo {\n  readonly name: ModeName\n  /** One-line purpose of the mode. */\n  readonly goal: string\n  /** The mode whose prompt this mode's prompt extends, or null. */\n  readonly extends: ModeName | null\n  /** Source-code edits in this mode. */\n  readonly sourceEdits: string\n  /** Every tool's standing in this mode. */\n  readonly standings: Readonly<Record<ToolName, Standing>>\n}\n\n")
	doc(&b, "", "Every mode by name.")
	b.WriteString("export const MODES: Readonly<Record<ModeName, ModeInfo>> = {\n")
	for _, m := range s.Modes {
		ext := "null"
		if m.Extends != nil {
			ext = tslayout.String(m.Extends.Name)
		}
		fmt.Fprintf(&b, "  %s: {\n    name: %s,\n    goal: %s,\n    extends: %s,\n    sourceEdits: %s,\n    standings: {\n", tslayout.String(m.Name), tslayout.String(m.Name), tslayout.String(m.Goal), ext, tslayout.String(m.SourceEdits))
		for _, ts := range m.Standings {
			fmt.Fprintf(&b, "      %s: %s,\n", tslayout.String(ts.Tool.Name), tslayout.String(string(ts.Standing)))
		}
		b.WriteString("    },\n  },\n")
	}
	b.WriteString("}\n\n")

	doc(&b, "", "The session attributes the mode selection reads.")
	b.WriteString("export interface SessionAttributes {\n")
	for _, in := range s.Selection.Inputs {
		doc(&b, "  ", in.Doc)
		fmt.Fprintf(&b, "  readonly %s?: string | null\n", in.TSName)
	}
	b.WriteString("}\n\n")
	// Each rule, as the doc comment states it and as the code tests it.
	var rule, tests strings.Builder
	for _, r := range s.Selection.Rules {
		var conds, ts []string
		for _, c := range r.When {
			conds = append(conds, fmt.Sprintf("%s = %q", c.Input.Name, c.Value))
			// An unset input (undefined, null) reads as "", as it does in
			// Go, where it is the zero string.
			in := "session." + c.Input.TSName
			if c.Value == "" {
				in = "(" + in + " ?? \"\")"
			}
			ts = append(ts, fmt.Sprintf("%s === %s", in, tslayout.String(c.Value)))
		}
		fmt.Fprintf(&rule, "\n  - %s → %s", strings.Join(conds, " and "), r.Mode.Name)
		fmt.Fprintf(&tests, "  if (%s) {\n    return %s\n  }\n", strings.Join(ts, " && "), tslayout.String(r.Mode.Name))
	}
	fmt.Fprintf(&rule, "\n  - otherwise → %s", s.Selection.Default.Name)
	doc(&b, "", "selectMode returns a session's mode: the first rule whose every condition\nholds, else the default."+rule.String())
	session := "session"
	if len(s.Selection.Rules) == 0 {
		session = "_session" // no rule reads the session (tsc --noUnusedParameters)
	}
	fmt.Fprintf(&b, "export function selectMode(%s: SessionAttributes): ModeName {\n%s", session, tests.String())
	fmt.Fprintf(&b, "  return %s\n}\n\n", tslayout.String(s.Selection.Default.Name))

	doc(&b, "", "resolveTool returns the tool a name or alias names, or undefined.")
	b.WriteString("export function resolveTool(name: string): ToolName | undefined {\n  switch (name) {\n")
	for _, t := range s.Tools {
		for _, n := range t.AllNames() {
			fmt.Fprintf(&b, "    case %s:\n", tslayout.String(n))
		}
		fmt.Fprintf(&b, "      return %s\n", tslayout.String(t.Name))
	}
	b.WriteString("  }\n  return undefined\n}\n\n")

	doc(&b, "", "toolStanding returns a tool's (name or alias) standing in a mode;\nan unknown tool is \"unavailable\".")
	b.WriteString("export function toolStanding(mode: ModeName, tool: string): Standing {\n  const t = resolveTool(tool)\n  return t === undefined ? \"unavailable\" : MODES[mode].standings[t]\n}\n\n")
	doc(&b, "", "isInjected reports whether a mode's sandbox holds the tool.")
	b.WriteString("export function isInjected(mode: ModeName, tool: string): boolean {\n  return toolStanding(mode, tool) !== \"unavailable\"\n}\n\n")
	doc(&b, "", "injectedTools lists the tools a mode injects, sorted.")
	b.WriteString("export function injectedTools(mode: ModeName): readonly ToolName[] {\n  return TOOL_NAMES.filter((t) => isInjected(mode, t))\n}\n")
	return b.Bytes()
}

// modelsCode is the code of the models module (modelsModule) that does not
// depend on the spec: lookups in its tables.
//
//go:embed models.ts
var modelsCode []byte

func modelsModule(s *model.Spec) []byte {
	var b bytes.Buffer
	b.WriteString(header(s))
	b.WriteString("\n// The model registry and its ID transforms. Every transform throws on an ID\n// it does not know.\n\n")
	var ids, agents []string
	for _, m := range s.Models {
		ids = append(ids, m.Canonical)
	}
	for _, a := range s.Agents {
		agents = append(agents, a.Name)
	}
	doc(&b, "", "A canonical model ID (database, internal).")
	b.WriteString(union("ModelId", ids) + "\n\n")
	doc(&b, "", "An agent type.")
	b.WriteString(union("AgentType", agents) + "\n\n")
	doc(&b, "", "A model's ID forms.")
	b.WriteString("export interface ModelInfo {\n  /** Canonical ID (database, internal). */\n  readonly canonical: ModelId\n  readonly display: string\n  /** ID in OpenCode's config (provider/model). */\n  readonly opencode: string\n  /** ID sent to the provider's API. */\n  readonly api: string\n}\n\n")
	doc(&b, "", "Every model by canonical ID.")
	b.WriteString("export const MODELS: Readonly<Record<ModelId, ModelInfo>> = {\n")
	for _, m := range s.Models {
		// A model ID may be __proto__, which a plain key would not make a
		// property.
		b.WriteString(entry("  ", js.Key(m.Canonical), "canonical: "+tslayout.String(m.Canonical), "display: "+tslayout.String(m.Display),
			"opencode: "+tslayout.String(m.OpenCode), "api: "+tslayout.String(m.API)))
	}
	b.WriteString("}\n\n")
	doc(&b, "", "An agent type's models and default model.")
	b.WriteString("export interface AgentInfo {\n  readonly models: readonly ModelId[]\n  readonly defaultModel: ModelId\n}\n\n")
	doc(&b, "", "Each agent type's models and default model.")
	b.WriteString("export const AGENTS: Readonly<Record<AgentType, AgentInfo>> = {\n")
	for _, a := range s.Agents {
		var ms []string
		for _, m := range a.Models {
			ms = append(ms, m.Canonical)
		}
		b.WriteString(entry("  ", tslayout.String(a.Name), list("    ", "models: ", ms), "defaultModel: "+tslayout.String(a.Default.Canonical)))
	}
	b.WriteString("}\n\n")
	b.Write(modelsCode)
	return b.Bytes()
}

// templateExpr renders a prompt template as a TypeScript expression over
// `params`: literal text and {{param}} placeholders joined with +.
func templateExpr(s *model.Spec, tmpl string) string {
	var parts []string
	for _, p := range s.Template(tmpl) {
		if p.Param != nil {
			parts = append(parts, "params."+p.Param.TSName)
		} else {
			parts = append(parts, tslayout.Pieces(p.Text)...)
		}
	}
	return strings.Join(parts, " +\n    ")
}

func promptFunc(m *model.Mode) string { return m.TSName + "Prompt" }

func promptsModule(s *model.Spec) []byte {
	var b bytes.Buffer
	b.WriteString(header(s))
	b.WriteString("\n// System prompt builders, one per mode. A mode that extends another appends\n// its own text to the parent's prompt.\n\n")
	b.WriteString("import type { ModeName } from \"./modes.js\"\n\n")
	doc(&b, "", "The parameters every prompt may use.")
	b.WriteString("export interface PromptParams {\n")
	for _, p := range s.PromptParams {
		doc(&b, "  ", p.Doc)
		fmt.Fprintf(&b, "  readonly %s: string\n", p.TSName)
	}
	b.WriteString("}\n\n")
	for _, m := range s.Modes {
		var body string
		if m.Extends != nil {
			body = fmt.Sprintf("%s(params) +\n    \"\\n\\n\" +\n    %s", promptFunc(m.Extends), templateExpr(s, m.OwnPrompt))
			doc(&b, "", fmt.Sprintf("%s returns the %s mode's system prompt: the %s prompt followed by\nthe %s mode's own text. Goal: %s.", promptFunc(m), m.Name, m.Extends.Name, m.Name, m.Goal))
		} else {
			body = templateExpr(s, m.Prompt)
			doc(&b, "", fmt.Sprintf("%s returns the %s mode's system prompt. Goal: %s.", promptFunc(m), m.Name, m.Goal))
		}
		param := "params"
		if !strings.Contains(body, "params") {
			param = "_params" // a prompt without placeholders
		}
		fmt.Fprintf(&b, "export function %s(%s: PromptParams): string {\n  return (\n    %s\n  )\n}\n\n", promptFunc(m), param, body)
	}
	doc(&b, "", "criticalInstructions returns what a mode appends even to a custom\nsystem prompt, or \"\".")
	// A case for each mode that has critical instructions, as in Go: a mode
	// added without them leaves the function as it was.
	var cases strings.Builder
	for _, m := range s.Modes {
		if m.Critical != "" {
			fmt.Fprintf(&cases, "    case %s:\n      return (\n        %s\n      )\n", tslayout.String(m.Name),
				strings.ReplaceAll(templateExpr(s, m.Critical), "\n    ", "\n        "))
		}
	}
	mode, param, body := "_mode", "params", "" // no mode has any (tsc --noUnusedParameters)
	if cases.Len() > 0 {
		mode, body = "mode", "  switch (mode) {\n"+cases.String()+"  }\n"
	}
	if !strings.Contains(cases.String(), "params.") {
		param = "_params" // no critical instructions use a parameter
	}
	fmt.Fprintf(&b, "export function criticalInstructions(%s: ModeName, %s: PromptParams): string {\n%s  return \"\"\n}\n\n", mode, param, body)
	doc(&b, "", "isBlank reports whether s is empty or white space only, as Go's\nstrings.TrimSpace sees white space (trim() also takes U+FEFF, and not U+0085).")
	fmt.Fprintf(&b, "function isBlank(s: string): boolean {\n  return %s.test(s)\n}\n\n", js.Blank())
	doc(&b, "", "buildSystemPrompt returns a session's system prompt: the mode's prompt, or\nthe custom prompt when one is set and not blank, followed then (without its\ntrailing line breaks) by a blank line and the mode's critical instructions,\nso that an override cannot drop what the mode depends on.")
	b.WriteString("export function buildSystemPrompt(mode: ModeName, params: PromptParams, customPrompt?: string | null): string {\n")
	b.WriteString("  if (customPrompt != null && !isBlank(customPrompt)) {\n    const critical = criticalInstructions(mode, params)\n" +
		"    return critical === \"\" ? customPrompt : customPrompt.replace(/\\n+$/, \"\") + \"\\n\\n\" + critical\n  }\n")
	b.WriteString("  switch (mode) {\n")
	for _, m := range s.Modes {
		fmt.Fprintf(&b, "    case %s:\n      return %s(params)\n", tslayout.String(m.Name), promptFunc(m))
	}
	b.WriteString("  }\n}\n")
	return b.Bytes()
}
