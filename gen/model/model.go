// Package model is the single resolved description of an agent contract.
//
// The loader (package load) builds a Spec from CUE once; every emitter reads
// only this package. Nothing here refers to cue.Value: names for every target
// are computed, cross-references are resolved to pointers, doc comments are
// plain text, and every element keeps the source position it came from.
package model

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/big"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Pos is a source position in a spec file. Line and Col are 1-based; a zero
// Pos means "no position".
type Pos struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

// IsValid reports whether p names a place in a file.
func (p Pos) IsValid() bool { return p.File != "" && p.Line > 0 }

// Compare orders positions by file, then line, then column: -1 when p
// comes before q, 0 when they are the same, +1 when p comes after.
func (p Pos) Compare(q Pos) int {
	return cmp.Or(cmp.Compare(p.File, q.File), cmp.Compare(p.Line, q.Line), cmp.Compare(p.Col, q.Col))
}

// String formats p as file:line:col (or file, or "-").
func (p Pos) String() string {
	switch {
	case p.File == "":
		return "-"
	case p.Line == 0:
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Spec is a whole agent contract.
type Spec struct {
	// Dir is the directory the spec was loaded from, as given (for messages).
	Dir      string
	Contract Contract
	Codegen  Codegen
	// Tools sorted by Name.
	Tools []*Tool
	// Checks are the named checks used by any tool, sorted by Name.
	Checks []*Check
	// Modes sorted by Name.
	Modes        []*Mode
	Selection    Selection
	PromptParams []*PromptParam
	// Agents sorted by Name.
	Agents []*Agent
	// Models sorted by Canonical ID.
	Models   []*Model
	Callback Callback
	OpenCode OpenCode
	// Files lists the spec's source file names, relative to the spec
	// directory (so generated headers do not depend on how the directory
	// was named on the command line), sorted.
	Files []string
	// ModelParams are the layered model parameters.
	ModelParams ModelParams
	// Experiments sorted by Name.
	Experiments []*Experiment
	// Proxy configures the prompt proxy.
	Proxy Proxy
	// Breaking is the spec's section breaking: the breaking changes it
	// makes on purpose.
	Breaking Breaking
}

// Breaking holds what agentc breaking lets this revision of the spec break.
type Breaking struct {
	// Accept in declaration order.
	Accept []*Acceptance
}

// Acceptance accepts the findings of one breaking rule on one subject. The
// subject's keys are those the rule takes (package breaking says which);
// the others are "".
type Acceptance struct {
	// Rule is a breaking rule's id, e.g. "ARG_REMOVED".
	Rule string
	// Tool, Field (a path below the tool: "commands[].name"), Mode, Model
	// (a canonical ID) and Agent name the subject.
	Tool, Field, Mode, Model, Agent string
	// Reason says why the break is acceptable.
	Reason string
	Pos    Pos
}

// Contract identifies the contract.
type Contract struct {
	Name     string
	Revision string
	Summary  string
}

// Codegen holds output locations, each relative to Out.
type Codegen struct {
	Out           string
	GoDir         string
	GoPackage     string
	OpenCodeDir   string
	TSDir         string
	JSONSchemaDir string
	DocsDir       string
	// GoImport is the import path of the package in GoDir, "" when the
	// spec does not say it.
	GoImport string
	// GoImportPos is where the spec says GoImport.
	GoImportPos Pos
	// GoRuntime is the import path of the runtime package (agentrt) the
	// Go package imports; "" means the copy written beside it, in
	// GoDir/agentrt.
	GoRuntime string
	// MCP is the MCP server package's settings, or nil when the spec asks
	// for none.
	MCP *MCPCodegen
}

// MCPCodegen locates the MCP server package (emitter "mcp").
type MCPCodegen struct {
	// Dir is relative to Out; Package is its name.
	Dir, Package string
	// CoreImport is the import path of the package in GoDir.
	CoreImport string
	// Runtime is the import path of the MCP server's runtime package
	// (agentmcp); "" means the copy written beside the package, in
	// Dir/agentmcp.
	Runtime string
	Pos     Pos
}

// RuntimeImport is the import path of the runtime package (agentrt) that
// the Go package imports: GoRuntime, or else the copy written beside the
// package (GoImport/agentrt); "" when the spec sets neither.
func (c *Codegen) RuntimeImport() string {
	if c.GoRuntime != "" || c.GoImport == "" {
		return c.GoRuntime
	}
	return c.GoImport + "/agentrt"
}

// MCPRuntimeImport is the import path of the MCP server's runtime package
// (agentmcp) that the MCP package imports: MCP.Runtime, or else the copy
// written beside the MCP package (MCP.Dir/agentmcp); "" without
// codegen.mcp or a core import.
func (c *Codegen) MCPRuntimeImport() string {
	m := c.MCP
	switch {
	case m == nil:
		return ""
	case m.Runtime != "" || m.CoreImport == "":
		return m.Runtime
	}
	// The MCP package's import path: the core package's, up to the
	// directory both lie in, then down to MCP.Dir.
	dir, imp, rest := path.Clean(c.GoDir), m.CoreImport, path.Clean(m.Dir)
	for dir != "." {
		if r, ok := strings.CutPrefix(rest, dir+"/"); ok {
			rest = r
			break
		}
		dir, imp = path.Dir(dir), path.Dir(imp)
	}
	return path.Join(imp, rest, "agentmcp")
}

// Execution says where a tool runs.
type Execution string

// The execution kinds.
const (
	// Gateway tools' sandbox stubs call the gateway back over HTTP.
	Gateway Execution = "gateway"
	// Sandbox tools run in the sandbox.
	Sandbox Execution = "sandbox"
	// Intercepted tools are stubs whose calls the gateway intercepts from
	// OpenCode's event stream (the first contract version).
	Intercepted Execution = "intercepted"
)

// GatewayExecuted reports whether the gateway runs the tool (and so the
// generated Go handler interface has a method for it).
func (e Execution) GatewayExecuted() bool { return e == Gateway || e == Intercepted }

// Tool is one agent tool.
type Tool struct {
	// Name is what the model calls (e.g. "automation.complete").
	Name string
	// Aliases are other names the gateway accepts.
	Aliases []string
	// FileName is the OpenCode tool file's base name and thus OpenCode's tool
	// id (e.g. "automation_complete"); OpenCode ids are file names.
	FileName string
	// GoName is the exported Go identifier stem (e.g. "AutomationComplete").
	GoName      string
	Execution   Execution
	Description string
	// Deprecated is the reason the tool is deprecated, or "".
	Deprecated string
	// Args is the argument schema; always an object.
	Args *Type
	// Result is the schema of the gateway's `data`, or nil.
	Result *Type
	// Summary is a sandbox tool's result template, or "".
	Summary string
	// Fingerprint is a stable hash of the tool's wire contract (name, args).
	Fingerprint string
	Pos         Pos
}

// AllNames returns the tool's name followed by its aliases.
func (t *Tool) AllNames() []string { return append([]string{t.Name}, t.Aliases...) }

// Kind is the JSON kind of an argument type.
type Kind string

// The kinds of argument types.
const (
	String  Kind = "string"
	Number  Kind = "number"
	Integer Kind = "integer"
	Boolean Kind = "boolean"
	Object  Kind = "object"
	Array   Kind = "array"
	// Enum is a string that must be one of Enum (two or more values).
	Enum Kind = "enum"
	// Literal is a string that must equal Literal.
	Literal Kind = "literal"
)

// Type is an argument (or result) type: a node of the schema tree.
type Type struct {
	Kind Kind
	// Doc is the description of the value (from the field's doc comment).
	Doc string

	// String constraints. Lengths count Unicode code points (see README).
	MinLength *int
	MaxLength *int
	// Patterns must all match (CUE =~, RE2 syntax).
	Patterns []Pattern
	// Checks are named checks the value must pass.
	Checks []*Check

	// Number constraints.
	Minimum *Bound
	Maximum *Bound

	// Enum values (Kind Enum), in declaration order.
	Enum []string
	// Literal value (Kind Literal).
	Literal string

	// Items is the element type (Kind Array).
	Items    *Type
	MinItems *int
	MaxItems *int

	// Fields of an object, in declaration order.
	Fields []*Field
	// GoName is the Go type name of an object type (e.g.
	// "SaveServiceCommandsCommand").
	GoName string

	Pos Pos
}

// Description is the value's description wherever the model reads it (zod's
// .describe, JSON Schema's description, the docs): its doc, followed by the
// doc of each named check, because the schema the model is shown drops the
// checks themselves, so their rules must be stated in words. A list's items
// are described nowhere of their own, so the checks of its items (of
// [...#RelativePath]) are the list's.
func (t *Type) Description() string {
	checks := t.Checks
	for it := t.Items; it != nil; it = it.Items {
		checks = append(slices.Clip(checks), it.Checks...)
	}
	parts := []string{}
	if t.Doc != "" {
		parts = append(parts, t.Doc)
	}
	for _, c := range checks {
		parts = append(parts, c.Doc)
	}
	return strings.Join(parts, " ")
}

// Disjunction writes string values as CUE writes a disjunction of them:
// "a" | "b".
func Disjunction(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, " | ")
}

// Pattern is a regular expression a string must match.
type Pattern struct {
	// Regexp in RE2 syntax as written in the spec.
	Regexp string
	Pos    Pos
}

// Bound is a numeric bound.
type Bound struct {
	// Value as written (a JSON number).
	Value json.Number
	// Exclusive is true for < and >.
	Exclusive bool
}

// Tighter reports whether b admits fewer numbers than c, both lower bounds
// (lower) or both upper: a larger lower bound (a smaller upper one), or the
// same value, b exclusive and c not. Values are number literals as the
// loader has CUE write them in JSON, which big.ParseFloat always reads.
func (b *Bound) Tighter(c *Bound, lower bool) bool {
	x, _, _ := big.ParseFloat(string(b.Value), 10, 256, big.ToNearestEven)
	y, _, _ := big.ParseFloat(string(c.Value), 10, 256, big.ToNearestEven)
	d := x.Cmp(y)
	if !lower {
		d = -d
	}
	return d > 0 || d == 0 && b.Exclusive && !c.Exclusive
}

// Check is a named check: a rule with its own message, expressed in CUE as a
// definition carrying @check("message").
type Check struct {
	// Name is the definition's name without '#' (e.g. "RelativePath").
	Name string
	// Message is the error message when the value fails the check.
	Message string
	// Doc states the rule for the model (from the definition's doc comment).
	Doc string
	// Reject lists RE2 patterns none of which may match.
	Reject []Pattern
	// Match lists RE2 patterns all of which must match.
	Match []Pattern
	// GoName is the identifier stem for generated helpers.
	GoName string
	Pos    Pos
}

// Presence says how a field may be absent.
type Presence string

// The presences.
const (
	// Required fields must be present.
	Required Presence = "required"
	// Optional fields may be absent and then stay absent.
	Optional Presence = "optional"
	// Defaulted fields may be absent and then take Default.
	Defaulted Presence = "default"
)

// Field is a field of an object type.
type Field struct {
	// Name is the JSON key (case-sensitive).
	Name     string
	Presence Presence
	// Default is the JSON encoding of the default (Presence Defaulted).
	Default json.RawMessage
	Type    *Type
	// GoName is the exported Go field name; TSName the TS property name
	// (quoted when it is not an identifier).
	GoName string
	TSName string
	Pos    Pos
}

// Standing is a tool's standing in a mode.
type Standing string

// The standings, strongest first.
const (
	Mandatory   Standing = "mandatory"
	Require     Standing = "required"
	Emphasized  Standing = "emphasized"
	Encouraged  Standing = "encouraged"
	Available   Standing = "available"
	Unmentioned Standing = "unmentioned"
	Unavailable Standing = "unavailable"
)

// Standings lists every standing, strongest first.
var Standings = []Standing{Mandatory, Require, Emphasized, Encouraged, Available, Unmentioned, Unavailable}

// Rank orders standings: higher is stronger; -1 for an unknown standing.
func (s Standing) Rank() int {
	if i := slices.Index(Standings, s); i >= 0 {
		return len(Standings) - 1 - i
	}
	return -1
}

// Injected reports whether a tool with this standing is present in the mode.
func (s Standing) Injected() bool { return s != Unavailable && s.Rank() >= 0 }

// Mentionable reports whether the mode's prompt may mention the tool.
func (s Standing) Mentionable() bool { return s.Injected() && s != Unmentioned }

// MustMention reports whether the mode's prompt has to mention the tool.
func (s Standing) MustMention() bool { return s.Rank() >= Emphasized.Rank() }

// Mode is a session mode.
type Mode struct {
	Name   string
	GoName string
	TSName string
	Goal   string
	// Extends is the mode whose prompt this one's extends, or nil.
	Extends *Mode
	// Standings has one entry per tool of the spec, sorted by tool name
	// (tools the mode leaves out are Unavailable).
	Standings   []ToolStanding
	SourceEdits string
	// OwnPrompt is this mode's prompt template as written; Prompt is the
	// full template (the parent's, a blank line, then OwnPrompt).
	OwnPrompt string
	Prompt    string
	// Critical is appended even to custom prompts; "" if none.
	Critical string
	Pos      Pos
	// AgentPrompts are the texts appended to the prompt for particular
	// OpenCode agents, inherited ones included, sorted by Agent.
	AgentPrompts []*AgentPrompt
}

// ToolStanding is a tool's standing in a mode.
type ToolStanding struct {
	Tool     *Tool
	Standing Standing
	Pos      Pos
}

// Standing returns the standing of the named tool (by name) in m.
func (m *Mode) Standing(tool string) Standing {
	ts := find(m.Standings, func(ts ToolStanding) bool { return ts.Tool.Name == tool })
	return cmp.Or(ts.Standing, Unavailable)
}

// Selection chooses a session's mode.
type Selection struct {
	// Inputs are the session attributes the rules read, sorted by Name.
	Inputs  []*SelectionInput
	Rules   []*Rule
	Default *Mode
	Pos     Pos
}

// SelectionInput is a session attribute read by the selection rules.
type SelectionInput struct {
	Name   string
	GoName string
	TSName string
	Doc    string
}

// Rule picks Mode when every condition holds.
type Rule struct {
	// When lists conditions sorted by input name.
	When []Condition
	Mode *Mode
}

// Condition requires a session attribute to equal Value.
type Condition struct {
	Input *SelectionInput
	Value string
}

// PromptParam is a {{name}} placeholder usable in prompts.
type PromptParam struct {
	Name string
	// GoName and TSName are its field of the generated PromptParams, in
	// Go and in TypeScript.
	GoName string
	TSName string
	Doc    string
}

// TemplatePart is a piece of a prompt template: literal Text, or the
// prompt parameter Param that a {{name}} placeholder names.
type TemplatePart struct {
	Text  string
	Param *PromptParam
}

// Placeholder is a {{…}} of a prompt or a summary, as the emitters read
// them: what stands between the braces, exactly, must name a prompt
// parameter (an argument), so `{{ name }}`, with spaces, names nothing.
var Placeholder = regexp.MustCompile(`\{\{([^{}]*)\}\}`)

// Template splits a prompt template (a mode's prompt or critical text, a
// mode's text for an agent, a variant's prompt) into its literal text and
// the prompt parameters its placeholders name, in order. A literal part
// is never empty but for the one part of an empty template. The loader
// reports a placeholder that names no prompt parameter; were one left, it
// would stay literal text.
func (s *Spec) Template(text string) []TemplatePart {
	var parts []TemplatePart
	last := 0
	for _, m := range Placeholder.FindAllStringSubmatchIndex(text, -1) {
		i := slices.IndexFunc(s.PromptParams, func(p *PromptParam) bool { return p.Name == text[m[2]:m[3]] })
		if i < 0 {
			continue
		}
		if m[0] > last {
			parts = append(parts, TemplatePart{Text: text[last:m[0]]})
		}
		parts = append(parts, TemplatePart{Param: s.PromptParams[i]})
		last = m[1]
	}
	if last < len(text) || len(parts) == 0 {
		parts = append(parts, TemplatePart{Text: text[last:]})
	}
	return parts
}

// Agent is an agent type and the models it supports.
type Agent struct {
	Name    string
	GoName  string
	Models  []*Model
	Default *Model
	Pos     Pos
}

// Model is a model with its ID forms.
type Model struct {
	// Canonical ID (DB, internal).
	Canonical string
	Display   string
	// OpenCode is the ID in OpenCode's config (provider/model).
	OpenCode string
	// API is the ID sent to the provider's API.
	API    string
	GoName string
	Pos    Pos
}

// Callback configures the sandbox→gateway callback.
type Callback struct {
	Path          string
	MaxRetries    int
	BackoffBaseMS int
	TimeoutMS     int
	RetentionMS   int
	RetryOn       []string
	EnvGatewayURL string
	EnvSessionID  string
	EnvAuthToken  string
	// Pos is the spec's path, or its callback section when the path is
	// the metaschema's default.
	Pos Pos
}

// OpenCode configures OpenCode's files.
type OpenCode struct {
	ToolDir       string
	ConfigPaths   []string
	PluginPackage string
	PluginVersion string
	// Config is opencode.json without "model", as canonical JSON (keys
	// sorted, as encoding/json writes maps).
	Config json.RawMessage
}

// Tool returns the tool with the given name or alias, or nil.
func (s *Spec) Tool(name string) *Tool {
	return find(s.Tools, func(t *Tool) bool { return slices.Contains(t.AllNames(), name) })
}

// Mode returns the named mode, or nil.
func (s *Spec) Mode(name string) *Mode {
	return find(s.Modes, func(m *Mode) bool { return m.Name == name })
}

// Model returns the model with the given canonical ID, or nil.
func (s *Spec) Model(id string) *Model {
	return find(s.Models, func(m *Model) bool { return m.Canonical == id })
}

// find returns the first element of xs that ok accepts, or the zero value
// (nil, for the lookups above) when none does.
func find[T any](xs []T, ok func(T) bool) (x T) {
	if i := slices.IndexFunc(xs, ok); i >= 0 {
		x = xs[i]
	}
	return x
}

// AgentPrompt is the text a mode appends to its prompt for one OpenCode
// agent.
type AgentPrompt struct {
	// Agent is the OpenCode agent's name (build, plan, …).
	Agent string
	// Prompt is the full template: the parent's text for the agent, a blank
	// line, then the mode's own text.
	Prompt string
}

// Params is one layer of model parameters; nil fields are not set by it.
type Params struct {
	// Temperature is chat.params' temperature.
	Temperature *float64
	// TopP is chat.params' topP.
	TopP *float64
	// Options are provider options as JSON values by key, merged key by key
	// over earlier layers; nil when the layer sets none.
	Options map[string]json.RawMessage
}

// IsZero reports whether the layer sets nothing.
func (p Params) IsZero() bool { return p.Temperature == nil && p.TopP == nil && len(p.Options) == 0 }

// ModelParams are the model parameters by layer; a session's parameters
// are Default, then its model's layer, then its mode's, then its model's
// layer for its mode, then the variants of its experiments.
type ModelParams struct {
	Default Params
	// Models sorted by model ID.
	Models []*ModelLayer
	// Modes sorted by mode name.
	Modes []*ModeLayer
}

// ModelLayer is one model's parameters, and its per-mode parameters.
type ModelLayer struct {
	Model  *Model
	Params Params
	// Modes sorted by mode name.
	Modes []*ModeLayer
}

// ModeLayer is one mode's parameters.
type ModeLayer struct {
	Mode   *Mode
	Params Params
}

// Experiment is a named set of weighted variants; each session is
// allocated to one variant by a stable hash of its ID.
type Experiment struct {
	Name string
	// Modes it runs in, sorted by name; empty means every mode.
	Modes []*Mode
	// Agents it runs for, sorted; empty means every agent.
	Agents []string
	// Variants sorted by Name, the order allocation walks.
	Variants []*Variant
	// TotalWeight is the sum of the variants' weights (> 0).
	TotalWeight int
	Pos         Pos
}

// Variant is one arm of an experiment.
type Variant struct {
	Name   string
	Weight int
	// Prompt is a template appended to the system prompt; "" if none.
	Prompt string
	Params Params
}

// Proxy configures the prompt proxy (seed 002).
type Proxy struct {
	// Path is the service's route, like /prompt.
	Path string
	// TimeoutMS bounds the plugin's wait for the service.
	TimeoutMS int
	// EnvURL, EnvMode and EnvParams name the environment variables the
	// plugin reads: the service's base URL, the session's mode and the
	// prompt_params values (a JSON object).
	EnvURL    string
	EnvMode   string
	EnvParams string
	// Agents are the OpenCode agents the spec may name, sorted.
	Agents []string
}
