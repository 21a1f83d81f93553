// Package tsgen emits the TypeScript side of a contract.
//
// Emitter "opencode" writes what a sandbox needs, under codegen.opencode.dir:
// one tool module per tool (tool/<id>.ts, all in one style: tool() from
// @opencode-ai/plugin, zod through tool.schema, arguments parsed inside
// execute()), its description (tool/<id>.txt), the tool folder's
// package.json, the shared runtime (tool/agentc/runtime.ts: argument
// parsing and the gateway callback helper; in a subfolder because OpenCode
// loads every .ts file of the tool folder as a tool, and imported as
// "./agentc/runtime.ts"), opencode.json, and one injection manifest per
// mode (inject/<mode>.json: the files to write where, and the files to
// remove).
//
// Emitter "ts" writes modules for TypeScript consumers under
// codegen.ts.dir: modes.ts (selection, standings, tool sets), models.ts
// (ID transforms) and prompts.ts (prompt builders).
package tsgen

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/js"
	"github.com/agentc-dev/agentc/gen/jsonwrite"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/opencodelayout"
	"github.com/agentc-dev/agentc/gen/tslayout"
	"github.com/agentc-dev/agentc/gen/zod"
)

// OpenCodeEmitter is emitter "opencode". Its check finds what the zod
// schemas could not say as Go and CUE do (js.Check).
var OpenCodeEmitter = &emit.Emitter{
	Name:  "opencode",
	Doc:   "OpenCode tool files, descriptions, runtime, package.json, opencode.json and per-mode injection manifests",
	Check: js.Check,
	Run:   emitOpenCode,
}

// TSEmitter is emitter "ts".
var TSEmitter = &emit.Emitter{
	Name: "ts",
	Doc:  "TypeScript modules for TS consumers: modes, models, prompts",
	Run:  emitTS,
}

// runtimeImport is how a tool module imports the runtime.
const runtimeImport = "./agentc/runtime.ts"

// emitOpenCode returns the OpenCode files of the pass's spec.
func emitOpenCode(p *emit.Pass) ([]emit.File, error) {
	s := p.Spec
	dir := s.Codegen.OpenCodeDir
	files := make([]emit.File, 0, 2*len(s.Tools)+3+len(s.Modes))
	add := func(p string, data []byte) { files = append(files, emit.File{Path: path.Join(dir, p), Data: data}) }
	for _, t := range s.Tools {
		add(path.Join(opencodelayout.ToolSubdir, t.FileName+".ts"), toolModule(s, t))
		add(path.Join(opencodelayout.ToolSubdir, t.FileName+".txt"), []byte(opencodelayout.ToolDescription(t)+"\n"))
	}
	// package.json and the manifests hold strings and booleans only, and
	// opencode.json decoded JSON: they always encode.
	pkg, _ := jsonwrite.Marshal(map[string]any{
		"private":      true,
		"dependencies": map[string]string{s.OpenCode.PluginPackage: s.OpenCode.PluginVersion},
	})
	add(path.Join(opencodelayout.ToolSubdir, "package.json"), pkg)
	add(path.Join(opencodelayout.ToolSubdir, opencodelayout.RuntimeFile), runtimeModule(s))
	cfg, err := opencodelayout.Config(s)
	if err != nil {
		return nil, err
	}
	data, _ := jsonwrite.Marshal(cfg)
	add(opencodelayout.ConfigFile, data)
	for _, m := range s.Modes {
		data, _ := jsonwrite.Marshal(opencodelayout.Inject(s, m, false))
		add(path.Join(opencodelayout.InjectSubdir, m.Name+".json"), data)
	}
	return files, nil
}

// toolModule returns the .ts module of t.
func toolModule(s *model.Spec, t *model.Tool) []byte {
	var b bytes.Buffer
	b.Grow(3072 + 2*len(t.Description))
	zf := zod.NewFile()
	shape := zf.Shape(t.Args, "")
	checks := zf.Decls()
	imports := append([]string{"parseArgs"}, zf.Helpers()...)
	if t.Execution == model.Gateway {
		imports = append(imports, "callGatewayTool", "toolCallId")
	}
	sort.Strings(imports)
	b.WriteString(header(s) + "\n")
	b.WriteString("import { tool } from " + tslayout.String(s.OpenCode.PluginPackage) + "\n")
	b.WriteString(tslayout.Call("", "import { ", imports, " } from "+tslayout.String(runtimeImport)) + "\n\n")
	b.WriteString("/** zod, as the plugin exports it to tools (the runtime's helpers use the same instance). */\n")
	b.WriteString("const z = tool.schema\n\n")
	b.WriteString(checks)
	b.WriteString("/** The arguments as the model sees them (OpenCode renders their JSON Schema). */\n")
	fmt.Fprintf(&b, "const args = %s\n\n", shape)
	b.WriteString(tslayout.Concat("", "const description = ", []string{tslayout.String(opencodelayout.ToolDescription(t))}, "") + "\n\n")
	if t.Execution == model.Gateway {
		b.WriteString("/** The schema fingerprint of this tool file, sent with every callback. */\n")
		fmt.Fprintf(&b, "const fingerprint = %s\n\n", tslayout.String(t.Fingerprint))
	}

	// Doc comment on the default export.
	first, _, _ := strings.Cut(strings.TrimSpace(t.Description), "\n\n") // its first paragraph
	doc := tslayout.JSDoc(first) + "\n\n"
	how := map[model.Execution]string{
		model.Gateway:     "executed by the gateway through a synchronous callback",
		model.Sandbox:     "runs in the sandbox",
		model.Intercepted: "a stub: the gateway intercepts the call",
	}[t.Execution]
	doc += fmt.Sprintf("Tool %s (%s).", tslayout.JSDoc(t.Name), how)
	if len(t.Aliases) > 0 {
		doc += fmt.Sprintf(" The gateway also accepts: %s.", tslayout.JSDoc(strings.Join(t.Aliases, ", ")))
	}
	if t.Deprecated != "" {
		doc += "\n@deprecated " + tslayout.JSDoc(t.Deprecated)
	}
	b.WriteString("/**\n" + tslayout.Comment("", " * ", doc) + " */\n")

	b.WriteString("export default tool({\n  description,\n  args,\n")
	name := tslayout.String(t.Name)
	parse := "parseArgs(z.object(args), input)"
	switch t.Execution {
	case model.Gateway:
		b.WriteString("  async execute(input, ctx) {\n")
		fmt.Fprintf(&b, "    const parsed = %s\n", parse)
		fmt.Fprintf(&b, "    const res = await callGatewayTool(%s, toolCallId(ctx), parsed, ctx.abort, fingerprint)\n", name)
		b.WriteString("    if (!res.success) {\n      throw new Error(res.result)\n    }\n")
		b.WriteString("    return res.result\n")
	case model.Sandbox:
		expr, uses := summaryExpr(t)
		b.WriteString("  async execute(input) {\n")
		if uses {
			fmt.Fprintf(&b, "    const parsed = %s\n", parse)
		} else {
			fmt.Fprintf(&b, "    %s\n", parse)
		}
		b.WriteString("    " + tslayout.Concat("    ", "return ", expr, "") + "\n")
	case model.Intercepted:
		b.WriteString("  async execute(input) {\n")
		fmt.Fprintf(&b, "    %s\n", parse)
		b.WriteString("    // The gateway intercepts this call from OpenCode's event stream and\n")
		b.WriteString("    // replaces this output with the real result.\n")
		fmt.Fprintf(&b, "    return %s\n", tslayout.String(t.Name+" was submitted to the platform."))
	default:
		panic("tsgen: unknown execution " + string(t.Execution)) // the loader admits no other
	}
	b.WriteString("  },\n})\n")
	return b.Bytes()
}

// summaryExpr turns a sandbox tool's summary template into the parts of a
// TypeScript concatenation over `parsed`: {{field}} is the argument's
// value and {{count:field}} the length of a list argument (0 when
// absent); uses reports whether a part reads `parsed`. The loader checked
// that each placeholder names a top-level argument, a list for count;
// were one left that does not, it would stay literal text.
func summaryExpr(t *model.Tool) (parts []string, uses bool) {
	last := 0
	for _, m := range model.Placeholder.FindAllStringSubmatchIndex(t.Summary, -1) {
		name, count := strings.CutPrefix(t.Summary[m[2]:m[3]], "count:")
		i := slices.IndexFunc(t.Args.Fields, func(f *model.Field) bool { return f.Name == name })
		if i < 0 {
			continue
		}
		if m[0] > last {
			parts = append(parts, tslayout.String(t.Summary[last:m[0]]))
		}
		f := t.Args.Fields[i]
		switch {
		case count && f.Presence == model.Optional:
			parts = append(parts, "String(("+accessOf(f)+" ?? []).length)")
		case count:
			parts = append(parts, "String("+accessOf(f)+".length)")
		case f.Presence == model.Optional:
			parts = append(parts, "String("+accessOf(f)+" ?? \"\")")
		default:
			parts = append(parts, "String("+accessOf(f)+")")
		}
		last, uses = m[1], true
	}
	if last < len(t.Summary) || len(parts) == 0 {
		parts = append(parts, tslayout.String(t.Summary[last:]))
	}
	return parts, uses
}

func accessOf(f *model.Field) string {
	if strings.HasPrefix(f.TSName, `"`) {
		return "parsed[" + f.TSName + "]"
	}
	return "parsed." + f.TSName
}

// header is the two comment lines every generated TypeScript file starts with.
func header(s *model.Spec) string {
	return "// " + emit.Header + "\n// " + emit.SourceLine(s) + "\n"
}
