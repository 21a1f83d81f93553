package gogen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/names"
)

// alias is a type alias of a runtime type, with its doc comment: type
// name = runtime.target (each with its type parameters or arguments).
type alias struct{ doc, name, target string }

// aliases writes type aliases of the runtime's types, as one run of
// declarations.
func (g *generator) aliases(src *goSource, as ...alias) {
	for i, a := range as {
		if i > 0 {
			src.WriteByte('\n')
		}
		src.doc(a.doc)
		src.text("type %s = %s.%s\n", a.name, src.use(g.runtime), a.target)
	}
	src.add()
}

// dispatch writes dispatch.go: the runtime's call types for this
// contract, the handler interface and Dispatch.
func (g *generator) dispatch(src *goSource) {
	g.aliases(src,
		alias{"Call identifies one tool call the gateway received (see agentrt.Call).", "Call", "Call[Mode]"},
		alias{"Output is what a handler returns on success: the text the model reads and the\n" +
			"typed data the gateway returns with it.", "Output[D any]", "Output[D]"},
		alias{"NoData is the data of a tool whose spec declares no result.", "NoData", "NoData"},
		alias{"Result is the tool-call response body: {success, result, data?}.", "Result", "Result"},
	)

	var gateway []*model.Tool
	for _, t := range g.s.Tools {
		if t.Execution.GatewayExecuted() {
			gateway = append(gateway, t)
		}
	}
	src.Grow(256 * len(gateway)) // a method of some 200 bytes a tool, made room for once
	src.doc("Handler executes the gateway's tools: one method per gateway-executed tool.\n\n" +
		"A method's ctx carries the request's values but is detached from the request: it is\n" +
		"not cancelled when the caller leaves (the sandbox's retry of the call waits for this\n" +
		"execution's result) and has no deadline, so a method bounds its own work. Its error,\n" +
		"or its panic, is the tool's failed result, which names the tool.")
	src.typeDecl("Handler", "interface", len(gateway), func() {
		for _, t := range gateway {
			text := fmt.Sprintf("%s executes %q with validated arguments.", t.GoName, t.Name)
			if t.Deprecated != "" {
				text += "\n\nDeprecated: " + t.Deprecated
			}
			src.comment(1, text)
			result := "NoData"
			if t.Result != nil {
				result = t.Result.GoName
			}
			// The method on one line is 57 characters besides these names; past
			// the line limit, one parameter per line.
			open, sep, end := "(", ", ", ""
			if 1+57+len(t.GoName)+len(t.Args.GoName)+len(result) > maxLine {
				open, sep, end = "(\n\t\t", ",\n\t\t", ",\n\t"
			}
			src.text("\t%s%sctx %s.Context%scall Call%[4]sargs %s%s) (Output[%s], error)\n",
				t.GoName, open, src.use("context"), sep, t.Args.GoName, end, result)
		}
	})
	src.add()

	src.Grow(256 * len(gateway)) // a case of some 240 bytes a tool
	src.doc("Dispatch runs one tool call: it resolves the name (aliases included), rejects a\n" +
		"tool the session's mode does not inject or the gateway does not execute, decodes and\n" +
		"validates the JSON arguments (on failure \"Invalid arguments: \" and zod's issues as\n" +
		"\"<path>: <message>\" joined by \", \", the text the OpenCode stub gives), calls the\n" +
		"handler, and turns its error or panic into a failed result that names the tool.")
	rt := src.use(g.runtime)
	src.text(`func Dispatch(ctx %s.Context, h Handler, call Call, args []byte) (res Result) {
	tool, ok := LookupTool(call.Tool)
	if !ok {
		return %[2]s.Failed("Unknown tool: " + call.Tool)
	}
	if !call.Mode.Has(tool) {
		return %[2]s.NotInMode(tool.Name(), call.Mode)
	}
	defer %[2]s.Recover(tool.Name(), &res)
	switch tool {
`, src.use("context"), rt)
	for _, t := range gateway {
		src.text(`	case Tool%[1]s:
		a, err := Decode%[2]s(args)
		if err != nil {
			return %[3]s.InvalidArguments(tool.Name(), tool.Fingerprint(), call.Fingerprint, err)
		}
		out, err := h.%[1]s(ctx, call, a)
		return %[3]s.Reply(tool.Name(), out, err)
`, t.GoName, t.Args.GoName, rt)
	}
	src.text(`	default:
		return %s.Failed("Tool " + tool.Name() + " runs in the sandbox, not on the gateway")
	}
}
`, rt)
	src.add()
}

// modes writes modes.go: modes, standings, selection.
func (g *generator) modes(src *goSource) {
	s := g.s
	src.Grow(64 * len(s.Tools) * len(s.Modes)) // a standing of some 48 bytes a tool and mode, made room for once
	src.doc("Mode is a session mode.")
	src.WriteString("type Mode string\n\nconst (\n")
	for _, m := range s.Modes {
		src.comment(1, fmt.Sprintf("Mode%s is the %q mode: %s.", m.GoName, m.Name, strings.TrimSuffix(m.Goal, ".")))
		src.text("\tMode%s Mode = %s\n", m.GoName, strconv.Quote(m.Name))
	}
	src.WriteString(")\n\n")

	src.doc("Standing is a tool's standing in a mode, strongest first.")
	src.WriteString("type Standing string\n\n")
	src.doc("The standings, strongest first.")
	var standings [][2]string
	for _, st := range model.Standings {
		standings = append(standings, [2]string{"Standing" + names.GoEnumValue(string(st)), "Standing = " + strconv.Quote(string(st))})
	}
	src.specs("const", standings)
	src.WriteByte('\n')
	src.doc("Injected reports whether a tool with this standing is present in the mode.")
	src.WriteString(`func (s Standing) Injected() bool {
	return s != "" && s != StandingUnavailable
}

`)
	src.doc("modeInfo is what the package knows about a mode.")
	src.WriteString(`type modeInfo struct {
	mode        Mode
	goal        string
	extends     Mode
	sourceEdits string
	standings   [numTools]Standing
}

`)
	src.doc("modeTable holds each mode's facts and its standing of each tool, sorted by name.")
	src.WriteString("var modeTable = [...]modeInfo{\n")
	// The standings table of a mode: Tool<Name>: Standing<Standing>, the
	// tools' constants named once for every mode.
	sts := make([][2]string, len(s.Tools))
	for i, t := range s.Tools {
		sts[i][0] = "Tool" + t.GoName
	}
	standingConst := map[model.Standing]string{}
	for _, m := range s.Modes {
		src.text("\t{\n\t\tmode:        Mode%s,\n\t\tgoal:        %s,\n", m.GoName, strconv.Quote(m.Goal))
		if m.Extends != nil {
			src.text("\t\textends:     Mode%s,\n", m.Extends.GoName)
		}
		src.text("\t\tsourceEdits: %s,\n\t\tstandings: [numTools]Standing{\n", strconv.Quote(m.SourceEdits))
		// m.Standings has one entry per tool, sorted by name as s.Tools is.
		for i, ts := range m.Standings {
			st := ts.Standing
			if standingConst[st] == "" {
				standingConst[st] = "Standing" + names.GoEnumValue(string(st))
			}
			sts[i][1] = standingConst[st]
		}
		keyedRows(&src.Buffer, 3, sts, ",")
		src.WriteString("\t\t},\n\t},\n")
	}
	src.WriteString(`}

// info returns the mode's facts; a Mode outside the contract's has none (its mode is "").
func (m Mode) info() *modeInfo {
	for i := range modeTable {
		if modeTable[i].mode == m {
			return &modeTable[i]
		}
	}
	return &modeInfo{}
}

`)
	src.doc("Modes returns every mode, sorted by name.")
	var ms []string
	for _, m := range s.Modes {
		ms = append(ms, "Mode"+m.GoName)
	}
	src.text("func Modes() []Mode {\n\treturn []Mode{%s}\n}\n\n", strings.Join(ms, ", "))
	src.doc("ParseMode returns the named mode, or an error for an unknown name.")
	src.text(`func ParseMode(name string) (Mode, error) {
	if m := Mode(name); m.Valid() {
		return m, nil
	}
	return "", %s.Errorf("unknown mode %%q", name)
}

`, src.use("fmt"))
	src.doc("Valid reports whether m is one of the contract's modes.")
	src.WriteString("func (m Mode) Valid() bool {\n\treturn m.info().mode != \"\"\n}\n\n")
	src.doc("Goal returns the mode's one-line purpose.")
	src.WriteString("func (m Mode) Goal() string {\n\treturn m.info().goal\n}\n\n")
	src.doc("SourceEdits says whether the mode forbids, encourages or allows source-code edits.")
	src.WriteString("func (m Mode) SourceEdits() string {\n\treturn m.info().sourceEdits\n}\n\n")
	src.doc("Extends returns the mode whose prompt this mode's prompt extends, if any.")
	src.WriteString(`func (m Mode) Extends() (Mode, bool) {
	e := m.info().extends
	return e, e != ""
}

`)
	src.doc("Standing returns the tool's standing in the mode (unavailable for an unknown mode).")
	src.WriteString(`func (m Mode) Standing(t Tool) Standing {
	if i := m.info(); i.mode != "" && t >= 0 && t < numTools {
		return i.standings[t]
	}
	return StandingUnavailable
}

`)
	src.doc("Has reports whether the mode injects the tool (the gateway rejects other tools).")
	src.WriteString("func (m Mode) Has(t Tool) bool {\n\treturn m.Standing(t).Injected()\n}\n\n")
	src.doc("Tools returns the tools the mode injects, sorted by name.")
	src.text(`func (m Mode) Tools() []Tool {
	return %s.DeleteFunc(Tools(), func(t Tool) bool { return !m.Has(t) })
}

`, src.use("slices"))

	// Selection.
	src.doc("Session holds the session attributes that select its mode.")
	src.typeDecl("Session", "struct", len(s.Selection.Inputs), func() {
		for _, in := range s.Selection.Inputs {
			src.comment(1, fmt.Sprintf("%s is %q: %s", in.GoName, in.Name, in.Doc))
			src.text("\t%s string `json:%q`\n", in.GoName, in.Name) // the name is an identifier
		}
	})
	src.WriteByte('\n')
	// Each rule, as the doc comment states it and as the code tests it.
	var rules, tests []string
	for _, r := range s.Selection.Rules {
		var cs, ts []string
		for _, c := range r.When {
			cs = append(cs, fmt.Sprintf("%s == %q", c.Input.Name, c.Value))
			ts = append(ts, fmt.Sprintf("s.%s == %q", c.Input.GoName, c.Value))
		}
		rules = append(rules, fmt.Sprintf("%s → %s", strings.Join(cs, " && "), r.Mode.Name))
		tests = append(tests, fmt.Sprintf("\tif %s {\n\t\treturn Mode%s\n\t}\n", strings.Join(ts, " && "), r.Mode.GoName))
	}
	src.doc(fmt.Sprintf("SelectMode picks the session's mode: the first matching rule (%s), else %s.", strings.Join(rules, "; "), s.Selection.Default.Name))
	src.text("func SelectMode(s Session) Mode {\n%s\treturn Mode%s\n}\n", strings.Join(tests, ""), s.Selection.Default.GoName)
	src.add()
}

// models writes models.go: the model registry, ID transforms and agents.
func (g *generator) models(src *goSource) {
	s := g.s
	src.doc("ModelID is a canonical model ID (as stored in the database).")
	src.WriteString("type ModelID string\n\n")
	// The loader admits no spec without a model or an agent, nor an agent
	// without a default model: the lists below are never empty.
	src.WriteString("const (\n")
	for _, m := range s.Models {
		src.comment(1, fmt.Sprintf("Model%s is %s.", m.GoName, m.Display))
		src.text("\tModel%s ModelID = %q\n", m.GoName, m.Canonical)
	}
	src.WriteString(")\n\n")
	src.doc("Model is a model with its ID forms.")
	src.WriteString(`type Model struct {
	// ID is the canonical ID.
	ID ModelID
	// Display is the human-readable name.
	Display string
	// OpenCode is the ID in OpenCode's config (provider/model).
	OpenCode string
	// API is the ID sent to the provider's API.
	API string
}

`)
	src.doc("modelTable holds every model, sorted by canonical ID.")
	src.WriteString("var modelTable = [...]Model{\n")
	for _, m := range s.Models {
		src.WriteString("\t{\n")
		keyedRows(&src.Buffer, 2, [][2]string{
			{"ID", "Model" + m.GoName},
			{"Display", strconv.Quote(m.Display)},
			{"OpenCode", strconv.Quote(m.OpenCode)},
			{"API", strconv.Quote(m.API)},
		}, ",")
		src.WriteString("\t},\n")
	}
	src.WriteString("}\n\n")
	src.doc("Models returns every model, sorted by canonical ID.")
	src.text("func Models() []Model {\n\treturn %s.Clone(modelTable[:])\n}\n\n", src.use("slices"))
	src.doc("UnknownModelError reports an ID that names no model in the given form.")
	src.WriteString(`type UnknownModelError struct {
	// Form is "canonical", "opencode" or "api".
	Form string
	// ID is the unknown ID.
	ID string
}

`)
	src.doc("Error names the form and the ID.")
	src.text(`func (e *UnknownModelError) Error() string {
	return %s.Sprintf("unknown %%s model ID %%q", e.Form, e.ID)
}
`, src.use("fmt"))
	// Each form's ID as a string, m's field (only the canonical ID has a
	// type of its own).
	for _, l := range []struct{ name, form, id, doc string }{
		{"LookupModel", "canonical", "string(m.ID)", "LookupModel returns the model with the canonical ID."},
		{"ModelFromOpenCode", "opencode", "m.OpenCode", "ModelFromOpenCode returns the model with the OpenCode ID."},
		{"ModelFromAPI", "api", "m.API", "ModelFromAPI returns the model with the API ID."},
	} {
		src.WriteByte('\n')
		src.doc(l.doc)
		src.text(`func %s(id string) (Model, error) {
	for _, m := range modelTable {
		if %s == id {
			return m, nil
		}
	}
	return Model{}, &UnknownModelError{Form: %q, ID: id}
}
`, l.name, l.id, l.form)
	}
	for _, t := range []struct{ name, from, to, doc string }{
		{"ToOpenCodeModelID", "LookupModel", "m.OpenCode", "ToOpenCodeModelID maps a canonical ID to OpenCode's."},
		{"ToAPIModelID", "LookupModel", "m.API", "ToAPIModelID maps a canonical ID to the provider API's."},
		{"OpenCodeToCanonicalModelID", "ModelFromOpenCode", "string(m.ID)", "OpenCodeToCanonicalModelID maps an OpenCode ID to the canonical one."},
		{"OpenCodeToAPIModelID", "ModelFromOpenCode", "m.API", "OpenCodeToAPIModelID maps an OpenCode ID to the provider API's."},
		{"APIToCanonicalModelID", "ModelFromAPI", "string(m.ID)", "APIToCanonicalModelID maps a provider API ID to the canonical one."},
		{"APIToOpenCodeModelID", "ModelFromAPI", "m.OpenCode", "APIToOpenCodeModelID maps a provider API ID to OpenCode's."},
	} {
		src.WriteByte('\n')
		src.doc(t.doc)
		src.text(`func %s(id string) (string, error) {
	m, err := %s(id)
	if err != nil {
		return "", err
	}
	return %s, nil
}
`, t.name, t.from, t.to)
	}
	src.WriteByte('\n')

	src.doc("AgentType is an agent type.")
	src.WriteString("type AgentType string\n\nconst (\n")
	var all []string
	for _, a := range s.Agents {
		src.lines(1, fmt.Sprintf("// Agent%s is the %q agent type.", a.GoName, a.Name))
		src.text("\tAgent%s AgentType = %q\n", a.GoName, a.Name)
		all = append(all, "Agent"+a.GoName)
	}
	src.WriteString(")\n\n")
	src.doc("Agents returns every agent type, sorted by name.")
	src.text("func Agents() []AgentType {\n\treturn []AgentType{%s}\n}\n\n", strings.Join(all, ", "))
	src.doc("Models returns the models the agent type supports (none for an unknown type).")
	src.WriteString("func (a AgentType) Models() []ModelID {\n\tswitch a {\n")
	for _, a := range s.Agents {
		var ids []string
		for _, m := range a.Models {
			ids = append(ids, "Model"+m.GoName)
		}
		src.text("\tcase Agent%s:\n\t\treturn []ModelID{%s}\n", a.GoName, strings.Join(ids, ", "))
	}
	src.WriteString("\t}\n\treturn nil\n}\n\n")
	src.doc("DefaultModel returns the model a session of the agent type uses when it names none.")
	src.WriteString("func (a AgentType) DefaultModel() (ModelID, error) {\n\tswitch a {\n")
	for _, a := range s.Agents {
		src.text("\tcase Agent%s:\n\t\treturn Model%s, nil\n", a.GoName, a.Default.GoName)
	}
	src.text("\t}\n\treturn \"\", %s.Errorf(\"unknown agent type %%q\", a)\n}\n", src.use("fmt"))
	src.add()
}

// template is a prompt template as a Go string expression over p: string
// literals, one per line of the text, and p's fields, joined by +, one
// part a line, the lines after the first indented by indent tabs.
func (g *generator) template(text string, indent int) string {
	var parts []string
	for _, p := range g.s.Template(text) {
		if p.Param != nil {
			parts = append(parts, "p."+p.Param.GoName)
			continue
		}
		// A literal is split after each newline, so that a prompt reads
		// line by line as the spec writes it.
		for line := range strings.Lines(p.Text) {
			parts = append(parts, strconv.Quote(line))
		}
	}
	if len(parts) == 0 {
		return `""`
	}
	return strings.Join(parts, " +\n"+strings.Repeat("\t", indent))
}

// prompts writes prompts.go: the prompt builders.
func (g *generator) prompts(src *goSource) {
	s := g.s
	src.doc("PromptParams fills the prompts' {{placeholders}}.")
	src.typeDecl("PromptParams", "struct", len(s.PromptParams), func() {
		for _, p := range s.PromptParams {
			src.comment(1, fmt.Sprintf("%s fills {{%s}}: %s", p.GoName, p.Name, p.Doc))
			src.text("\t%s string\n", p.GoName)
		}
	})
	src.add()
	for _, m := range s.Modes {
		text := fmt.Sprintf("%sPrompt returns the %s mode's system prompt.", m.GoName, m.Name)
		body := g.template(m.Prompt, 2)
		if m.Extends != nil {
			// The parent's builder, called: its text is written once.
			text += fmt.Sprintf(" It is the %s prompt followed by the %s mode's own text.", m.Extends.Name, m.Name)
			body = m.Extends.GoName + "Prompt(p) +\n\t\t\"\\n\\n\" +\n\t\t" + g.template(m.OwnPrompt, 2)
		}
		src.doc(text)
		src.text("func %sPrompt(p PromptParams) string {\n\treturn %s\n}\n", m.GoName, body)
		src.add()
	}
	fmtName, stringsName := src.use("fmt"), src.use("strings")
	src.doc("SystemPrompt returns the mode's system prompt, or an error for an unknown mode.")
	src.WriteString("func SystemPrompt(m Mode, p PromptParams) (string, error) {\n\tswitch m {\n")
	for _, m := range s.Modes {
		src.text("\tcase Mode%s:\n\t\treturn %sPrompt(p), nil\n", m.GoName, m.GoName)
	}
	src.text("\t}\n\treturn \"\", %s.Errorf(\"unknown mode %%q\", m)\n}\n\n", fmtName)
	src.doc("CriticalInstructions returns what the mode appends even to a custom prompt (\"\" if nothing).")
	src.WriteString("func CriticalInstructions(m Mode, p PromptParams) string {\n\tswitch m {\n")
	for _, m := range s.Modes {
		if m.Critical != "" {
			src.text("\tcase Mode%s:\n\t\treturn %s\n", m.GoName, g.template(m.Critical, 3))
		}
	}
	src.WriteString("\t}\n\treturn \"\"\n}\n\n")
	src.doc("BuildSystemPrompt returns the session's system prompt: the mode's prompt, or a\n" +
		"non-empty custom prompt (session.system_prompt) followed by a blank line and the mode's\n" +
		"critical instructions, so an override cannot drop what the mode depends on.")
	src.text(`func BuildSystemPrompt(m Mode, p PromptParams, custom string) (string, error) {
	if %[2]s.TrimSpace(custom) == "" {
		return SystemPrompt(m, p)
	}
	if !m.Valid() {
		return "", %[1]s.Errorf("unknown mode %%q", m)
	}
	if c := CriticalInstructions(m, p); c != "" {
		return %[2]s.TrimRight(custom, "\n") + "\n\n" + c, nil
	}
	return custom, nil
}
`, fmtName, stringsName)
	src.add()
}
