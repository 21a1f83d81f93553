// Package tsgen emits the TypeScript side of a contract.
//
// Emitter "opencode" writes what a sandbox needs, under codegen.opencode.dir:
// one tool module per tool (tool/<id>.ts, all in one style: tool() from
// @opencode-ai/plugin, zod through tool.schema, arguments parsed inside
// execute()), its description (tool/<id>.txt), the tool folder's
// package.json, the shared runtime (agentc/runtime.ts: argument parsing
// and the gateway callback helper; outside the tool folder because OpenCode
// loads every .ts file there as a tool, and imported relatively as
// "../agentc/runtime.ts"), opencode.json, and one injection manifest per
// mode (inject/<mode>.json: the files to write where, and the files to
// remove).
//
// Emitter "ts" writes modules for TypeScript consumers under
// codegen.ts.dir: modes.ts (selection, standings, tool sets), models.ts
// (ID transforms) and prompts.ts (prompt builders).
package tsgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/jsonwrite"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/proxygen"
	"github.com/agentc-dev/agentc/gen/tslayout"
	"github.com/agentc-dev/agentc/gen/zodgen"
)

func init() {
	emit.Register("opencode", "OpenCode tool files, descriptions, runtime, package.json, opencode.json and per-mode injection manifests", EmitOpenCode)
	emit.Register("ts", "TypeScript modules for TS consumers: modes, models, prompts", EmitTS)
}

// Paths of the OpenCode files, relative to codegen.opencode.dir.
const (
	// ToolSubdir holds the tool modules, descriptions and package.json; it
	// is installed as opencode.tool_dir.
	ToolSubdir = "tool"
	// RuntimeFile is the shared runtime; it is installed beside the tool
	// folder (agentc/runtime.ts next to tool/), where OpenCode does not
	// load it as a tool and the tools' relative import finds it.
	RuntimeFile = "agentc/runtime.ts"
	// ConfigFile is opencode.json.
	ConfigFile = "opencode.json"
	// InjectSubdir holds one injection manifest per mode.
	InjectSubdir = "inject"
)

// runtimeImport is how a tool module imports the runtime.
const runtimeImport = "../agentc/runtime.ts"

// Injection is a mode's injection manifest: what a sandbox provider writes
// and removes so that the sandbox holds exactly the mode's tools.
type Injection struct {
	// Mode is the mode's name.
	Mode string `json:"mode"`
	// Tools are the names of the tools the mode injects, sorted.
	Tools []string `json:"tools"`
	// Write lists the files to write: Source is relative to the OpenCode
	// output directory, Path relative to the repository (or absolute).
	Write []InjectFile `json:"write"`
	// Remove lists files to delete if present (relative to the
	// repository): the files of the tools the mode does not inject, which
	// a snapshot taken in another mode may hold.
	Remove []string `json:"remove"`
	// Env lists the environment variables the provider sets for OpenCode
	// in this mode: the prompt proxy plugin reads the session's mode from
	// the spec's proxy.env.mode.
	Env map[string]string `json:"env"`
}

// InjectFile is one file to write.
type InjectFile struct {
	Path   string `json:"path"`
	Source string `json:"source"`
}

// WriteJSON writes the manifest as encoding/json encodes it (the fields in
// order, under their tags), for jsonwrite.Marshal, without reflection: a manifest
// lists two files per tool.
func (inj Injection) WriteJSON(w *jsonwrite.Writer) error {
	w.BeginObject()
	w.Key("mode")
	w.String(inj.Mode)
	w.Key("tools")
	_ = w.Value(inj.Tools)
	w.Key("write")
	if inj.Write == nil {
		w.Null()
	} else {
		w.BeginArray()
		for _, f := range inj.Write {
			w.BeginObject()
			w.Key("path")
			w.String(f.Path)
			w.Key("source")
			w.String(f.Source)
			w.EndObject()
		}
		w.EndArray()
	}
	w.Key("remove")
	_ = w.Value(inj.Remove)
	w.Key("env")
	_ = w.Value(inj.Env)
	w.EndObject()
	return nil
}

// EmitOpenCode returns the OpenCode files of s.
func EmitOpenCode(s *model.Spec) ([]emit.File, error) {
	dir := s.Codegen.OpenCodeDir
	files := make([]emit.File, 0, 2*len(s.Tools)+3+len(s.Modes))
	add := func(p string, data []byte) { files = append(files, emit.File{Path: path.Join(dir, p), Data: data}) }
	for _, t := range s.Tools {
		src, err := ToolModule(s, t)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		add(path.Join(ToolSubdir, t.FileName+".ts"), src)
		add(path.Join(ToolSubdir, t.FileName+".txt"), []byte(ToolDescription(t)+"\n"))
	}
	pkg, err := jsonwrite.Marshal(map[string]any{
		"private":      true,
		"dependencies": map[string]string{s.OpenCode.PluginPackage: s.OpenCode.PluginVersion},
	})
	if err != nil {
		return nil, err
	}
	add(path.Join(ToolSubdir, "package.json"), pkg)
	add(RuntimeFile, runtimeModule(s))
	cfg, err := Config(s)
	if err != nil {
		return nil, err
	}
	add(ConfigFile, cfg)
	for _, m := range s.Modes {
		data, err := jsonwrite.Marshal(Inject(s, m))
		if err != nil {
			return nil, err
		}
		add(path.Join(InjectSubdir, m.Name+".json"), data)
	}
	return files, nil
}

// Inject returns mode m's injection manifest.
func Inject(s *model.Spec, m *model.Mode) Injection {
	toolDir := s.OpenCode.ToolDir
	inj := Injection{Mode: m.Name, Tools: []string{}, Write: []InjectFile{}, Remove: []string{}}
	for _, ts := range m.Standings {
		t := ts.Tool
		for _, ext := range []string{".ts", ".txt"} {
			src := path.Join(ToolSubdir, t.FileName+ext)
			dst := path.Join(toolDir, t.FileName+ext)
			if ts.Standing.Injected() {
				inj.Write = append(inj.Write, InjectFile{Path: dst, Source: src})
			} else {
				inj.Remove = append(inj.Remove, dst)
			}
		}
		if ts.Standing.Injected() {
			inj.Tools = append(inj.Tools, t.Name)
		}
	}
	inj.Write = append(inj.Write,
		InjectFile{Path: path.Join(toolDir, "package.json"), Source: path.Join(ToolSubdir, "package.json")},
		InjectFile{Path: path.Join(path.Dir(toolDir), RuntimeFile), Source: RuntimeFile},
		// The prompt proxy plugin (emitter "proxy"); OpenCode loads every
		// file in .opencode/plugin/.
		InjectFile{Path: path.Join(path.Dir(toolDir), proxygen.PluginFile), Source: proxygen.PluginFile},
	)
	inj.Env = map[string]string{s.Proxy.EnvMode: m.Name}
	for _, p := range s.OpenCode.ConfigPaths {
		inj.Write = append(inj.Write, InjectFile{Path: p, Source: ConfigFile})
	}
	return inj
}

// DefaultAgent is the agent whose default model opencode.json names: the
// agent called "opencode", or the only agent.
func DefaultAgent(s *model.Spec) (*model.Agent, error) {
	for _, a := range s.Agents {
		if a.Name == "opencode" {
			return a, nil
		}
	}
	if len(s.Agents) == 1 {
		return s.Agents[0], nil
	}
	return nil, fmt.Errorf("opencode.json needs a model: the spec has %d agents and none is called \"opencode\"", len(s.Agents))
}

// Config returns opencode.json: the spec's opencode.config plus "model",
// the OpenCode ID of the default agent's default model.
func Config(s *model.Spec) ([]byte, error) {
	var cfg map[string]any
	d := json.NewDecoder(bytes.NewReader(s.OpenCode.Config))
	d.UseNumber()
	if err := d.Decode(&cfg); err != nil {
		return nil, fmt.Errorf("opencode.config: %w", err)
	}
	if cfg == nil {
		cfg = map[string]any{}
	}
	a, err := DefaultAgent(s)
	if err != nil {
		return nil, err
	}
	if a.Default == nil {
		return nil, fmt.Errorf("agent %s has no default model", a.Name)
	}
	if _, ok := cfg["model"]; ok {
		return nil, fmt.Errorf("opencode.config sets \"model\"; it comes from agent %s's default model", a.Name)
	}
	cfg["model"] = a.Default.OpenCode
	return jsonwrite.Marshal(cfg)
}

// ToolDescription is what the model reads about t: its description, after
// a deprecation notice when t is deprecated.
func ToolDescription(t *model.Tool) string {
	d := strings.TrimRight(t.Description, "\n")
	if t.Deprecated != "" {
		d = "Deprecated: " + t.Deprecated + "\n\n" + d
	}
	return d
}

// ToolModule returns the .ts module of t.
func ToolModule(s *model.Spec, t *model.Tool) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(3072 + 2*len(t.Description))
	zf := zodgen.NewFile("z")
	shape := zf.Shape(t.Args, "")
	checks := zf.Decls()
	imports := append([]string{"parseArgs"}, zf.Helpers()...)
	if t.Execution == model.Gateway {
		imports = append(imports, "callGatewayTool", "toolCallId")
	}
	sort.Strings(imports)
	writeLines(&b, header(s), "\n",
		"import { tool } from ", jsString(s.OpenCode.PluginPackage), "\n",
		tslayout.Call("", "import { ", imports, " } from "+jsString(runtimeImport)), "\n\n",
		"/** zod, as the plugin exports it to tools (the runtime's helpers use the same instance). */\n",
		"const z = tool.schema\n\n",
		checks,
		"/** The arguments as the model sees them (OpenCode renders their JSON Schema). */\n",
		"const args = ", shape, "\n\n",
		tslayout.Concat("", "const description = ", []string{jsString(ToolDescription(t))}, ""), "\n\n")
	if t.Execution == model.Gateway {
		writeLines(&b, "/** The schema fingerprint of this tool file, sent with every callback. */\n",
			"const fingerprint = ", jsString(t.Fingerprint), "\n\n")
	}

	// Doc comment on the default export.
	doc := jsdoc(firstParagraph(t.Description)) + "\n\nTool " + jsdoc(t.Name) + " (" + executionDoc(t.Execution) + ")."
	if len(t.Aliases) > 0 {
		doc += " The gateway also accepts: " + jsdoc(strings.Join(t.Aliases, ", ")) + "."
	}
	if t.Deprecated != "" {
		doc += "\n@deprecated " + jsdoc(t.Deprecated)
	}
	writeLines(&b, "/**\n", tslayout.Comment("", " * ", doc), " */\n",
		"export default tool({\n  description,\n  args,\n")
	name := jsString(t.Name)
	parse := "parseArgs(" + name + ", z.object(args), input)"
	switch t.Execution {
	case model.Gateway:
		writeLines(&b, "  async execute(input, ctx) {\n",
			"    const parsed = ", parse, "\n",
			"    const res = await callGatewayTool(", name, ", toolCallId(ctx), parsed, ctx.abort, fingerprint)\n",
			"    if (!res.success) {\n      throw new Error(res.result)\n    }\n",
			"    return res.result\n")
	case model.Sandbox:
		expr, uses, err := summaryExpr(t)
		if err != nil {
			return nil, err
		}
		b.WriteString("  async execute(input) {\n")
		if uses {
			writeLines(&b, "    const parsed = ", parse, "\n")
		} else {
			writeLines(&b, "    ", parse, "\n")
		}
		writeLines(&b, "    ", tslayout.Concat("    ", "return ", expr, ""), "\n")
	case model.Intercepted:
		writeLines(&b, "  async execute(input) {\n",
			"    ", parse, "\n",
			"    // The gateway intercepts this call from OpenCode's event stream and\n",
			"    // replaces this output with the real result.\n",
			"    return ", jsString(t.Name+" was submitted to the platform."), "\n")
	default:
		return nil, fmt.Errorf("unknown execution %q", t.Execution)
	}
	b.WriteString("  },\n})\n")
	return b.Bytes(), nil
}

// writeLines writes the pieces of some lines of code in turn.
func writeLines(b *bytes.Buffer, pieces ...string) {
	for _, p := range pieces {
		b.WriteString(p)
	}
}

func executionDoc(e model.Execution) string {
	switch e {
	case model.Gateway:
		return "executed by the gateway through a synchronous callback"
	case model.Sandbox:
		return "runs in the sandbox"
	case model.Intercepted:
		return "a stub: the gateway intercepts the call"
	}
	return string(e)
}

var placeholder = regexp.MustCompile(`\{\{(count:)?([^{}]*)\}\}`)

// summaryExpr turns a sandbox tool's summary template into a TypeScript
// expression over `parsed`: {{field}} is the argument's value and
// {{count:field}} the length of a list argument (0 when absent).
func summaryExpr(t *model.Tool) ([]string, bool, error) {
	var parts []string
	uses := false
	rest := t.Summary
	for {
		loc := placeholder.FindStringSubmatchIndex(rest)
		if loc == nil {
			break
		}
		if loc[0] > 0 {
			parts = append(parts, jsString(rest[:loc[0]]))
		}
		count := loc[2] >= 0
		name := rest[loc[4]:loc[5]]
		var f *model.Field
		for _, x := range t.Args.Fields {
			if x.Name == name {
				f = x
			}
		}
		if f == nil {
			return nil, false, fmt.Errorf("summary: %s names no top-level argument", rest[loc[0]:loc[1]])
		}
		var access string
		switch {
		case count && f.Type.Kind != model.Array:
			return nil, false, fmt.Errorf("summary: {{count:%s}} needs a list argument, %s is %s", name, name, f.Type.Kind)
		case count && f.Presence == model.Optional:
			access = "String((" + accessOf(f) + " ?? []).length)"
		case count:
			access = "String(" + accessOf(f) + ".length)"
		case f.Presence == model.Optional:
			access = "String(" + accessOf(f) + " ?? \"\")"
		default:
			access = "String(" + accessOf(f) + ")"
		}
		parts = append(parts, access)
		uses = true
		rest = rest[loc[1]:]
	}
	if rest != "" || len(parts) == 0 {
		parts = append(parts, jsString(rest))
	}
	return parts, uses, nil
}

func accessOf(f *model.Field) string {
	if strings.HasPrefix(f.TSName, `"`) {
		return "parsed[" + f.TSName + "]"
	}
	return "parsed." + f.TSName
}

func firstParagraph(s string) string {
	p, _, _ := strings.Cut(strings.TrimSpace(s), "\n\n")
	return p
}

// jsdoc keeps text from closing a /** */ comment.
func jsdoc(s string) string { return strings.ReplaceAll(s, "*/", "*\\/") }

// header is the two comment lines every generated TypeScript file starts with.
func header(s *model.Spec) string {
	return "// " + emit.Header + "\n// " + emit.SourceLine(s) + "\n"
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string { return tslayout.String(s) }
