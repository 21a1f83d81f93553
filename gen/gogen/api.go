package gogen

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/names"
)

// dispatch renders dispatch.go: the runtime's call types for this
// contract, the handler interface and Dispatch.
func (g *generator) dispatch(f *jen.File) {
	g.comment(f, "Call identifies one tool call the gateway received (see agentrt.Call).")
	f.Type().Id("Call").Op("=").Qual(g.runtime, "Call").Types(jen.Id("Mode"))
	g.comment(f, "Output is what a handler returns on success: the text the model reads and the\ntyped data the gateway returns with it.")
	f.Type().Id("Output").Types(jen.Id("D").Any()).Op("=").Qual(g.runtime, "Output").Types(jen.Id("D"))
	g.comment(f, "NoData is the data of a tool whose spec declares no result.")
	f.Type().Id("NoData").Op("=").Qual(g.runtime, "NoData")
	g.comment(f, "Result is the tool-call response body: {success, result, data?}.")
	f.Type().Id("Result").Op("=").Qual(g.runtime, "Result")

	var gateway []*model.Tool
	for _, t := range g.s.Tools {
		if t.Execution.GatewayExecuted() {
			gateway = append(gateway, t)
		}
	}
	src := g.source(f)
	src.Grow(256 * len(gateway)) // a method of some 200 bytes a tool, made room for once
	src.doc("Handler executes the gateway's tools: one method per gateway-executed tool.")
	if len(gateway) == 0 {
		src.WriteString("type Handler interface{}\n")
	} else {
		src.WriteString("type Handler interface {\n")
	}
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
		src.text("\t%s%sctx ", t.GoName, open)
		src.qual("context", "Context")
		src.text("%scall Call%sargs %s%s) (Output[%s], error)\n", sep, sep, t.Args.GoName, end, result)
	}
	if len(gateway) > 0 {
		src.WriteString("}\n")
	}
	g.add(f, src)

	src = g.source(f)
	src.Grow(256 * len(gateway)) // a case of some 240 bytes a tool
	src.doc("Dispatch runs one tool call: it resolves the name (aliases included), rejects a\n" +
		"tool the session's mode does not inject or the gateway does not execute, decodes and\n" +
		"validates the JSON arguments (on failure \"Invalid arguments: \" and zod's issues as\n" +
		"\"<path>: <message>\" joined by \", \", the text the OpenCode stub gives), calls the\n" +
		"handler, and turns its error or panic into a failed result that names the tool.")
	src.WriteString("func Dispatch(ctx ")
	src.qual("context", "Context")
	src.WriteString(`, h Handler, call Call, args []byte) (res Result) {
	tool, ok := LookupTool(call.Tool)
	if !ok {
		return `)
	src.qual(g.runtime, "Failed")
	src.WriteString(`("Unknown tool: " + call.Tool)
	}
	if !call.Mode.Has(tool) {
		return `)
	src.qual(g.runtime, "NotInMode")
	src.WriteString(`(tool.Name(), call.Mode)
	}
	defer `)
	src.qual(g.runtime, "Recover")
	src.WriteString(`(tool.Name(), &res)
	switch tool {
`)
	for _, t := range gateway {
		src.text(`	case Tool%s:
		a, err := Decode%s(args)
		if err != nil {
			return `, t.GoName, t.Args.GoName)
		src.qual(g.runtime, "InvalidArguments")
		src.text(`(tool.Name(), tool.Fingerprint(), call.Fingerprint, err)
		}
		out, err := h.%s(ctx, call, a)
		return `, t.GoName)
		src.qual(g.runtime, "Reply")
		src.WriteString("(tool.Name(), out, err)\n")
	}
	src.WriteString(`	default:
		return `)
	src.qual(g.runtime, "Failed")
	src.WriteString(`("Tool " + tool.Name() + " runs in the sandbox, not on the gateway")
	}
}
`)
	g.add(f, src)
}

// modes writes modes.go: modes, standings, selection, already formatted
// (see add).
func (g *generator) modes(f *jen.File) {
	s := g.s
	src := g.source(f)
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
	src.WriteString("const (\n")
	// The constants' types aligned, as gofmt aligns them (the names are
	// ASCII: the standings are model's).
	width := 0
	for _, st := range model.Standings {
		width = max(width, len(names.GoEnumValue(string(st))))
	}
	for _, st := range model.Standings {
		v := names.GoEnumValue(string(st))
		src.text("\tStanding%s", v)
		pad(&src.Buffer, width+1-len(v))
		src.text("Standing = %q\n", string(st))
	}
	src.WriteString(")\n\n")
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
		standing := make(map[string]model.Standing, len(m.Standings))
		for _, ts := range slices.Backward(m.Standings) {
			standing[ts.Tool.Name] = ts.Standing // the first, as m.Standing finds it
		}
		for i, t := range s.Tools {
			st, ok := standing[t.Name]
			if !ok {
				st = model.Unavailable
			}
			if standingConst[st] == "" {
				standingConst[st] = "Standing" + names.GoEnumValue(string(st))
			}
			sts[i][1] = standingConst[st]
		}
		keyedRows(&src.Buffer, 3, sts, ",")
		src.WriteString("\t\t},\n\t},\n")
	}
	src.text(`}

func _() {
	// An "invalid array index" compiler error here means the modes changed: run agentc gen again.
	var x [1]struct{}
	_ = x[len(modeTable)-%d]
}
func (m Mode) info() *modeInfo {
	for i := range modeTable {
		if modeTable[i].mode == m {
			return &modeTable[i]
		}
	}
	return nil
}

`, len(s.Modes))
	src.doc("Modes returns every mode, sorted by name.")
	var ms []string
	for _, m := range s.Modes {
		ms = append(ms, "Mode"+m.GoName)
	}
	src.text("func Modes() []Mode {\n\treturn []Mode{%s}\n}\n\n", strings.Join(ms, ", "))
	src.doc("ParseMode returns the named mode, or an error for an unknown name.")
	src.WriteString(`func ParseMode(name string) (Mode, error) {
	if m := Mode(name); m.info() != nil {
		return m, nil
	}
	return "", `)
	src.qual("fmt", "Errorf")
	src.WriteString(`("unknown mode %q", name)
}

`)
	src.doc("Valid reports whether m is one of the contract's modes.")
	src.WriteString("func (m Mode) Valid() bool {\n\treturn m.info() != nil\n}\n\n")
	src.doc("Goal returns the mode's one-line purpose.")
	src.WriteString(`func (m Mode) Goal() string {
	if i := m.info(); i != nil {
		return i.goal
	}
	return ""
}

`)
	src.doc("SourceEdits says whether the mode forbids, encourages or allows source-code edits.")
	src.WriteString(`func (m Mode) SourceEdits() string {
	if i := m.info(); i != nil {
		return i.sourceEdits
	}
	return ""
}

`)
	src.doc("Extends returns the mode whose prompt this mode's prompt extends, if any.")
	src.WriteString(`func (m Mode) Extends() (Mode, bool) {
	if i := m.info(); i != nil && i.extends != "" {
		return i.extends, true
	}
	return "", false
}

`)
	src.doc("Standing returns the tool's standing in the mode (unavailable for an unknown mode).")
	src.WriteString(`func (m Mode) Standing(t Tool) Standing {
	if i := m.info(); i != nil && t >= 0 && t < numTools {
		return i.standings[t]
	}
	return StandingUnavailable
}

`)
	src.doc("Has reports whether the mode injects the tool (the gateway rejects other tools).")
	src.WriteString("func (m Mode) Has(t Tool) bool {\n\treturn m.Standing(t).Injected()\n}\n\n")
	src.doc("Tools returns the tools the mode injects, sorted by name.")
	src.WriteString(`func (m Mode) Tools() []Tool {
	var out []Tool
	for _, t := range Tools() {
		if m.Has(t) {
			out = append(out, t)
		}
	}
	return out
}

`)

	// Selection.
	src.doc("Session holds the session attributes that select its mode.")
	if len(s.Selection.Inputs) == 0 {
		src.WriteString("type Session struct{}\n\n")
	} else {
		src.WriteString("type Session struct {\n")
		for _, in := range s.Selection.Inputs {
			src.comment(1, fmt.Sprintf("%s is %q: %s", in.GoName, in.Name, in.Doc))
			src.text("\t%s string `json:%q`\n", in.GoName, in.Name) // the name is an identifier
		}
		src.WriteString("}\n\n")
	}
	var rules []string
	for _, r := range s.Selection.Rules {
		var cs []string
		for _, c := range r.When {
			cs = append(cs, fmt.Sprintf("%s == %q", c.Input.Name, c.Value))
		}
		rules = append(rules, fmt.Sprintf("%s → %s", strings.Join(cs, " && "), r.Mode.Name))
	}
	src.doc(fmt.Sprintf("SelectMode picks the session's mode: the first matching rule (%s), else %s.", strings.Join(rules, "; "), s.Selection.Default.Name))
	src.WriteString("func SelectMode(s Session) Mode {\n")
	for _, r := range s.Selection.Rules {
		var cs []string
		for _, c := range r.When {
			cs = append(cs, fmt.Sprintf("s.%s == %s", c.Input.GoName, strconv.Quote(c.Value)))
		}
		src.text("\tif %s {\n\t\treturn Mode%s\n\t}\n", strings.Join(cs, " && "), r.Mode.GoName)
	}
	src.text("\treturn Mode%s\n}\n", s.Selection.Default.GoName)
	g.add(f, src)
}

// models renders models.go: the model registry, ID transforms and agents.
func (g *generator) models(f *jen.File) {
	s := g.s
	g.comment(f, "ModelID is a canonical model ID (as stored in the database).")
	f.Type().Id("ModelID").String()
	var consts []jen.Code
	for _, m := range s.Models {
		consts = append(consts, doc(fmt.Sprintf("Model%s is %s.", m.GoName, m.Display)), jen.Id("Model"+m.GoName).Id("ModelID").Op("=").Lit(m.Canonical))
	}
	f.Const().Defs(consts...)
	g.comment(f, "Model is a model with its ID forms.")
	f.Type().Id("Model").Struct(
		jen.Comment("ID is the canonical ID."), jen.Id("ID").Id("ModelID"),
		jen.Comment("Display is the human-readable name."), jen.Id("Display").String(),
		jen.Comment("OpenCode is the ID in OpenCode's config (provider/model)."), jen.Id("OpenCode").String(),
		jen.Comment("API is the ID sent to the provider's API."), jen.Id("API").String(),
	)
	var rows []jen.Code
	for _, m := range s.Models {
		rows = append(rows, keyed(
			"ID", jen.Id("Model"+m.GoName),
			"Display", jen.Lit(m.Display),
			"OpenCode", jen.Lit(m.OpenCode),
			"API", jen.Lit(m.API)))
	}
	g.comment(f, "modelTable holds every model, sorted by canonical ID.")
	f.Var().Id("modelTable").Op("=").Index(jen.Op("...")).Id("Model").Add(lines(rows))
	g.comment(f, "Models returns every model, sorted by canonical ID.")
	f.Func().Id("Models").Params().Index().Id("Model").Block(jen.Return(jen.Qual("slices", "Clone").Call(jen.Id("modelTable").Index(jen.Empty(), jen.Empty()))))
	g.comment(f, "UnknownModelError reports an ID that names no model in the given form.")
	f.Type().Id("UnknownModelError").Struct(
		jen.Comment("Form is \"canonical\", \"opencode\" or \"api\"."), jen.Id("Form").String(),
		jen.Comment("ID is the unknown ID."), jen.Id("ID").String())
	g.comment(f, "Error names the form and the ID.")
	f.Func().Params(jen.Id("e").Op("*").Id("UnknownModelError")).Id("Error").Params().String().Block(
		jen.Return(jen.Qual("fmt", "Sprintf").Call(jen.Lit("unknown %s model ID %q"), jen.Id("e").Dot("Form"), jen.Id("e").Dot("ID"))))
	// str is a Model field as a string (only the canonical ID has a type
	// of its own).
	str := func(field string) *jen.Statement {
		if field == "ID" {
			return jen.String().Call(jen.Id("m").Dot(field))
		}
		return jen.Id("m").Dot(field)
	}
	lookup := func(name, form, field, docText string) {
		g.comment(f, docText)
		f.Func().Id(name).Params(jen.Id("id").String()).Params(jen.Id("Model"), jen.Error()).Block(
			jen.For(jen.Id("_").Op(",").Id("m").Op(":=").Range().Id("modelTable")).Block(
				jen.If(str(field).Op("==").Id("id")).Block(jen.Return(jen.Id("m"), jen.Nil()))),
			jen.Return(jen.Id("Model").Values(), jen.Op("&").Id("UnknownModelError").Values(jen.Dict{jen.Id("Form"): jen.Lit(form), jen.Id("ID"): jen.Id("id")})))
	}
	lookup("LookupModel", "canonical", "ID", "LookupModel returns the model with the canonical ID.")
	lookup("ModelFromOpenCode", "opencode", "OpenCode", "ModelFromOpenCode returns the model with the OpenCode ID.")
	lookup("ModelFromAPI", "api", "API", "ModelFromAPI returns the model with the API ID.")
	transform := func(name, from, to, docText string) {
		g.comment(f, docText)
		f.Func().Id(name).Params(jen.Id("id").String()).Params(jen.String(), jen.Error()).Block(
			jen.List(jen.Id("m"), jen.Err()).Op(":=").Id(from).Call(jen.Id("id")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Lit(""), jen.Err())),
			jen.Return(str(to), jen.Nil()))
	}
	transform("ToOpenCodeModelID", "LookupModel", "OpenCode", "ToOpenCodeModelID maps a canonical ID to OpenCode's.")
	transform("ToAPIModelID", "LookupModel", "API", "ToAPIModelID maps a canonical ID to the provider API's.")
	transform("OpenCodeToCanonicalModelID", "ModelFromOpenCode", "ID", "OpenCodeToCanonicalModelID maps an OpenCode ID to the canonical one.")
	transform("OpenCodeToAPIModelID", "ModelFromOpenCode", "API", "OpenCodeToAPIModelID maps an OpenCode ID to the provider API's.")
	transform("APIToCanonicalModelID", "ModelFromAPI", "ID", "APIToCanonicalModelID maps a provider API ID to the canonical one.")
	transform("APIToOpenCodeModelID", "ModelFromAPI", "OpenCode", "APIToOpenCodeModelID maps a provider API ID to OpenCode's.")

	g.comment(f, "AgentType is an agent type.")
	f.Type().Id("AgentType").String()
	var ac []jen.Code
	for _, a := range s.Agents {
		ac = append(ac, jen.Comment(fmt.Sprintf("Agent%s is the %q agent type.", a.GoName, a.Name)), jen.Id("Agent"+a.GoName).Id("AgentType").Op("=").Lit(a.Name))
	}
	f.Const().Defs(ac...)
	var mcases, dcases []jen.Code
	var all []jen.Code
	for _, a := range s.Agents {
		var ids []jen.Code
		for _, m := range a.Models {
			ids = append(ids, jen.Id("Model"+m.GoName))
		}
		all = append(all, jen.Id("Agent"+a.GoName))
		mcases = append(mcases, jen.Case(jen.Id("Agent"+a.GoName)).Block(jen.Return(jen.Index().Id("ModelID").Values(ids...))))
		def := jen.Lit("")
		if a.Default != nil {
			def = jen.Id("Model" + a.Default.GoName)
		}
		dcases = append(dcases, jen.Case(jen.Id("Agent"+a.GoName)).Block(jen.Return(def, jen.Nil())))
	}
	g.comment(f, "Agents returns every agent type, sorted by name.")
	f.Func().Id("Agents").Params().Index().Id("AgentType").Block(jen.Return(jen.Index().Id("AgentType").Values(all...)))
	g.comment(f, "Models returns the models the agent type supports (none for an unknown type).")
	f.Func().Params(jen.Id("a").Id("AgentType")).Id("Models").Params().Index().Id("ModelID").Block(jen.Switch(jen.Id("a")).Block(mcases...), jen.Return(jen.Nil()))
	g.comment(f, "DefaultModel returns the model a session of the agent type uses when it names none.")
	f.Func().Params(jen.Id("a").Id("AgentType")).Id("DefaultModel").Params().Params(jen.Id("ModelID"), jen.Error()).Block(
		jen.Switch(jen.Id("a")).Block(dcases...),
		jen.Return(jen.Lit(""), jen.Qual("fmt", "Errorf").Call(jen.Lit("unknown agent type %q"), jen.Id("a"))))
}

var placeholder = regexp.MustCompile(`\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}`)

// template renders a prompt template as a Go string expression over p.
func (g *generator) template(text string) jen.Code {
	params := map[string]*model.PromptParam{}
	for _, p := range g.s.PromptParams {
		params[p.Name] = p
	}
	var parts []jen.Code
	last := 0
	for _, m := range placeholder.FindAllStringSubmatchIndex(text, -1) {
		p := params[text[m[2]:m[3]]]
		if p == nil {
			continue // the loader reports unknown placeholders
		}
		parts = append(parts, textLines(text[last:m[0]])...)
		parts = append(parts, jen.Id("p").Dot(p.GoName))
		last = m[1]
	}
	if last < len(text) || len(parts) == 0 {
		parts = append(parts, textLines(text[last:])...)
	}
	return concat(parts)
}

// textLines splits text after each newline into string literals, so that
// a prompt reads line by line as the spec writes it.
func textLines(text string) []jen.Code {
	var out []jen.Code
	for text != "" {
		i := strings.IndexByte(text, '\n') + 1
		if i == 0 {
			i = len(text)
		}
		out = append(out, jen.Lit(text[:i]))
		text = text[i:]
	}
	return out
}

// concat joins parts with +, one part per line when there are several.
func concat(parts []jen.Code) *jen.Statement {
	e := jen.Add(parts[0])
	for _, p := range parts[1:] {
		e = e.Op("+").Line().Add(p)
	}
	return e
}

// prompts renders prompts.go: the prompt builders.
func (g *generator) prompts(f *jen.File) {
	s := g.s
	var fields []jen.Code
	for _, p := range s.PromptParams {
		fields = append(fields, doc(fmt.Sprintf("%s fills {{%s}}: %s", p.GoName, p.Name, p.Doc)), jen.Id(p.GoName).String())
	}
	g.comment(f, "PromptParams fills the prompts' {{placeholders}}.")
	f.Type().Id("PromptParams").Struct(fields...)
	var cases, ccases []jen.Code
	for _, m := range s.Modes {
		text := fmt.Sprintf("%sPrompt returns the %s mode's system prompt.", m.GoName, m.Name)
		if m.Extends != nil {
			text += fmt.Sprintf(" It is the %s prompt followed by the %s mode's own text.", m.Extends.Name, m.Name)
		}
		g.comment(f, text)
		f.Func().Id(m.GoName + "Prompt").Params(jen.Id("p").Id("PromptParams")).String().Block(jen.Return(g.template(m.Prompt)))
		cases = append(cases, jen.Case(jen.Id("Mode"+m.GoName)).Block(jen.Return(jen.Id(m.GoName+"Prompt").Call(jen.Id("p")), jen.Nil())))
		if m.Critical != "" {
			ccases = append(ccases, jen.Case(jen.Id("Mode"+m.GoName)).Block(jen.Return(g.template(m.Critical))))
		}
	}
	g.comment(f, "SystemPrompt returns the mode's system prompt, or an error for an unknown mode.")
	f.Func().Id("SystemPrompt").Params(jen.Id("m").Id("Mode"), jen.Id("p").Id("PromptParams")).Params(jen.String(), jen.Error()).Block(
		jen.Switch(jen.Id("m")).Block(cases...),
		jen.Return(jen.Lit(""), jen.Qual("fmt", "Errorf").Call(jen.Lit("unknown mode %q"), jen.Id("m"))))
	g.comment(f, "CriticalInstructions returns what the mode appends even to a custom prompt (\"\" if nothing).")
	f.Func().Id("CriticalInstructions").Params(jen.Id("m").Id("Mode"), jen.Id("p").Id("PromptParams")).String().Block(
		jen.Switch(jen.Id("m")).Block(ccases...),
		jen.Return(jen.Lit("")))
	g.comment(f, "BuildSystemPrompt returns the session's system prompt: the mode's prompt, or a\n"+
		"non-empty custom prompt (session.system_prompt) followed by a blank line and the mode's\n"+
		"critical instructions, so an override cannot drop what the mode depends on.")
	f.Func().Id("BuildSystemPrompt").Params(jen.Id("m").Id("Mode"), jen.Id("p").Id("PromptParams"), jen.Id("custom").String()).Params(jen.String(), jen.Error()).Block(
		jen.If(jen.Qual("strings", "TrimSpace").Call(jen.Id("custom")).Op("==").Lit("")).Block(jen.Return(jen.Id("SystemPrompt").Call(jen.Id("m"), jen.Id("p")))),
		jen.If(jen.Op("!").Id("m").Dot("Valid").Call()).Block(jen.Return(jen.Lit(""), jen.Qual("fmt", "Errorf").Call(jen.Lit("unknown mode %q"), jen.Id("m")))),
		jen.If(jen.Id("c").Op(":=").Id("CriticalInstructions").Call(jen.Id("m"), jen.Id("p")), jen.Id("c").Op("!=").Lit("")).Block(
			jen.Return(jen.Qual("strings", "TrimRight").Call(jen.Id("custom"), jen.Lit("\n")).Op("+").Lit("\n\n").Op("+").Id("c"), jen.Nil())),
		jen.Return(jen.Id("custom"), jen.Nil()))
}
