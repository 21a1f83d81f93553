package gogen

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/names"
)

// tools writes tools.go: the Tool enumeration, its table, and every
// argument and result type. No stringer-style guard checks the constants:
// they and every table indexed by them are written in one run, and
// agentc check reports a hand-edited file.
func (g *generator) tools(src *goSource) {
	s := g.s
	// The tables below take some 360 bytes a tool: room made once, not
	// by doubling as they are written.
	src.Grow(400 * len(s.Tools))
	src.doc("ContractName and ContractRevision identify the spec this package was generated from.")
	src.text("const (\n\tContractName     = %s\n\tContractRevision = %s\n)\n\n",
		strconv.Quote(s.Contract.Name), strconv.Quote(s.Contract.Revision))

	src.doc("Tool identifies one of the contract's tools.")
	src.WriteString("type Tool int\n\nconst (\n")
	for i, t := range s.Tools {
		text := fmt.Sprintf("Tool%s is %q", t.GoName, t.Name)
		if len(t.Aliases) > 0 {
			text += fmt.Sprintf(" (also called %s)", quoteJoin(t.Aliases))
		}
		text += fmt.Sprintf(", executed by the %s.", map[bool]string{true: "gateway", false: "sandbox"}[t.Execution.GatewayExecuted()])
		if t.Deprecated != "" {
			text += "\n\nDeprecated: " + t.Deprecated
		}
		src.comment(1, text)
		if i == 0 {
			src.text("\tTool%s Tool = iota\n", t.GoName)
		} else {
			src.text("\tTool%s\n", t.GoName)
		}
	}
	src.WriteString(")\n\n")
	src.doc("numTools is the number of tools.")
	src.text("const numTools = %d\n\n", len(s.Tools))

	// The runtime's version guard, in the manner of protobuf's.
	rt := src.use(g.runtime)
	src.text(`// An "overflows" compiler error here means that the runtime (package agentrt) does
// not serve the API this package was generated against: generate the package and
// its runtime with the same agentc.
const (
	_ = %[1]s.EnforceVersion(%[2]d - %[1]s.MinVersion)
	_ = %[1]s.EnforceVersion(%[1]s.MaxVersion - %[2]d)
)

`, rt, RuntimeVersion)

	src.doc("toolTable holds each tool's facts, indexed by Tool.")
	src.text("var toolTable = [...]%s.ToolDesc{\n", rt)
	for _, t := range s.Tools {
		src.text("\tTool%s: {\n\t\tName:        %s,\n", t.GoName, strconv.Quote(t.Name))
		if len(t.Aliases) > 0 {
			src.text("\t\tAliases:     []string{%s},\n", quoteJoin(t.Aliases))
		}
		src.text("\t\tFileName:    %s,\n\t\tGateway:     %s,\n\t\tFingerprint: %s,\n\t},\n",
			strconv.Quote(t.FileName), strconv.FormatBool(t.Execution.GatewayExecuted()), strconv.Quote(t.Fingerprint))
	}
	src.WriteString("}\n\n")
	src.doc(`desc returns the tool's facts. A Tool outside the contract's, which a gateway gets from bad ` +
		`data, has none but a name, "Tool(N)": every method answers for it without panicking.`)
	src.text(`func (t Tool) desc() %[1]s.ToolDesc {
	if t < 0 || t >= numTools {
		return %[1]s.ToolDesc{Name: "Tool(" + %[2]s.Itoa(int(t)) + ")"}
	}
	return toolTable[t]
}

`, rt, src.use("strconv"))
	src.doc(`Name returns the tool's name, as the model calls it ("Tool(N)" for a Tool outside the contract's).`)
	src.WriteString("func (t Tool) Name() string {\n\treturn t.desc().Name\n}\n\n")
	src.doc("String returns the tool's name (Name).")
	src.WriteString("func (t Tool) String() string {\n\treturn t.Name()\n}\n\n")
	src.doc("Aliases returns the other names the gateway accepts for the tool.")
	src.text("func (t Tool) Aliases() []string {\n\treturn %s.Clone(t.desc().Aliases)\n}\n\n", src.use("slices"))
	src.doc("FileName returns the base name of the tool's OpenCode files (OpenCode's tool id).")
	src.WriteString("func (t Tool) FileName() string {\n\treturn t.desc().FileName\n}\n\n")
	src.doc("GatewayExecuted reports whether the gateway runs the tool (Handler has a method for it).")
	src.WriteString("func (t Tool) GatewayExecuted() bool {\n\treturn t.desc().Gateway\n}\n\n")
	src.doc("Fingerprint returns a stable hash of the tool's wire contract (name and arguments).")
	src.WriteString("func (t Tool) Fingerprint() string {\n\treturn t.desc().Fingerprint\n}\n\n")
	src.doc("Tools returns every tool, sorted by name.")
	src.WriteString(`func Tools() []Tool {
	out := make([]Tool, numTools)
	for i := range out {
		out[i] = Tool(i)
	}
	return out
}

`)
	src.doc("LookupTool resolves a tool name or alias (case-sensitive).")
	src.WriteString("func LookupTool(name string) (Tool, bool) {\n\tswitch name {\n")
	for _, t := range s.Tools {
		src.text("\tcase %s:\n\t\treturn Tool%s, true\n", quoteJoin(t.AllNames()), t.GoName)
	}
	src.WriteString("\t}\n\treturn -1, false\n}\n\n")
	src.doc("Opt is a value that may be absent: the Go form of an optional field (see agentrt.Opt).")
	src.text("type Opt[T any] = %s.Opt[T]\n\n", rt)
	src.doc("Some returns a present Opt holding v.")
	src.text("func Some[T any](v T) Opt[T] {\n\treturn %s.Some(v)\n}\n", rt)
	src.add()

	// Types.
	for _, t := range s.Tools {
		g.typesUnit(src, t.Args, fmt.Sprintf("%s are the arguments of tool %q.", t.Args.GoName, t.Name))
		if t.Result != nil {
			g.typesUnit(src, t.Result, fmt.Sprintf("%s is the result data of tool %q.", t.Result.GoName, t.Name))
		}
	}
}

// typesUnit is objectTypes as a unit (see unit): its text is a function
// of t and where. No type is reached twice (a tree of types whose names
// Check claims once each), so none was declared by another unit.
func (g *generator) typesUnit(src *goSource, t *model.Type, where string) {
	g.unit(src, func(h *unitHash) { h.str("types"); h.str(where); h.of(t) }, func() {
		g.objectTypes(src, t, where)
		src.add()
	})
}

// objectTypes writes t's struct and the types below it, each declaration
// after a blank line but the first; where is the first sentence of its doc
// comment, saying where the object appears.
func (g *generator) objectTypes(src *goSource, t *model.Type, where string) {
	if src.Len() > src.start {
		src.WriteByte('\n')
	}
	text := where
	if t.Doc != "" {
		text += "\n\n" + t.Doc
	}
	src.doc(text)
	src.typeDecl(t.GoName, "struct", len(t.Fields), func() {
		for _, fd := range t.Fields {
			text := fd.Type.Doc
			if text == "" {
				text = fd.GoName + " is the " + strconv.Quote(fd.Name) + " field of " + t.GoName + "."
			}
			typ, options := g.goTypeText(fd.Type), ""
			switch fd.Presence {
			case model.Optional:
				text += "\n\nOptional: Set is false when the key is absent."
				typ, options = "Opt["+typ+"]", ",omitzero"
			case model.Defaulted:
				text += "\n\nDefault: " + string(fd.Default) + " (when the key is absent)."
			}
			if l := limits(fd.Type); len(l) > 0 {
				text += "\n\nConstraints: " + strings.Join(l, "; ") + "."
			}
			// Each field follows its doc comment: gofmt aligns no columns.
			src.comment(1, text)
			src.text("\t%s %s ", fd.GoName, typ)
			src.Write(appendStructTag(src.AvailableBuffer(), fd.Name, options))
			src.WriteByte('\n')
		}
	})
	var walk func(x *model.Type, where string)
	walk = func(x *model.Type, where string) {
		switch x.Kind {
		case model.Object:
			g.objectTypes(src, x, x.GoName+" is "+where+".")
		case model.Array:
			walk(x.Items, "one item of "+strings.TrimPrefix(where, "the value of "))
		case model.Enum:
			name := g.enumNames[x]
			src.WriteByte('\n')
			src.doc(name + " is one of: " + quoteJoin(x.Enum) + ".")
			src.text("type %s string\n\nconst (\n", name)
			for _, v := range x.Enum {
				c := name + names.GoEnumValue(v)
				src.lines(1, "// "+c+" is "+strconv.Quote(v)+".")
				src.text("\t%s %s = %q\n", c, name, v)
			}
			src.WriteString(")\n")
		}
	}
	for _, fd := range t.Fields {
		walk(fd.Type, "the value of "+t.GoName+"."+fd.GoName)
	}
}

// limits states a type's constraints for a doc comment, one part each.
func limits(t *model.Type) []string {
	var parts []string
	switch t.Kind {
	case model.String:
		if t.MinLength != nil {
			parts = append(parts, fmt.Sprintf("at least %d code points", *t.MinLength))
		}
		if t.MaxLength != nil {
			parts = append(parts, fmt.Sprintf("at most %d code points", *t.MaxLength))
		}
		for _, p := range t.Patterns {
			parts = append(parts, fmt.Sprintf("matches %s", p.Regexp))
		}
		for _, c := range t.Checks {
			parts = append(parts, fmt.Sprintf("passes check %s (%q)", c.Name, c.Message))
		}
	case model.Literal:
		parts = append(parts, fmt.Sprintf("always %q", t.Literal))
	case model.Array:
		if t.MinItems != nil {
			parts = append(parts, fmt.Sprintf("at least %d items", *t.MinItems))
		}
		if t.MaxItems != nil {
			parts = append(parts, fmt.Sprintf("at most %d items", *t.MaxItems))
		}
		if sub := limits(t.Items); len(sub) > 0 {
			parts = append(parts, "each item: "+strings.Join(sub, "; "))
		}
	case model.Number, model.Integer:
		if m := t.Minimum; m != nil {
			parts = append(parts, fmt.Sprintf("%s %s", map[bool]string{true: ">", false: ">="}[m.Exclusive], m.Value))
		}
		if m := t.Maximum; m != nil {
			parts = append(parts, fmt.Sprintf("%s %s", map[bool]string{true: "<", false: "<="}[m.Exclusive], m.Value))
		}
	}
	return parts
}

// goTypeText returns the Go type of t.
func (g *generator) goTypeText(t *model.Type) string {
	switch t.Kind {
	case model.String, model.Literal:
		return "string"
	case model.Enum:
		return g.enumNames[t]
	case model.Number:
		return "float64"
	case model.Integer:
		return "int64"
	case model.Boolean:
		return "bool"
	case model.Object:
		return t.GoName
	case model.Array:
		return "[]" + g.goTypeText(t.Items)
	}
	panic("gogen: unknown kind " + string(t.Kind)) // the loader admits no other kind
}

// appendStructTag appends the struct tag `json:"name<options>"`, in
// backquotes, as a tag that strconv.CanBackquote allows is written: Check
// refuses a field name that jsonTagName does not admit, so a name holds no
// backquote, quote, backslash or control character, and strconv.Quote
// writes it as it is. The options ("" or ",omitzero") need no escaping.
// The name "-" takes a comma after it, which keeps encoding/json from
// skipping the field.
func appendStructTag(b []byte, name, options string) []byte {
	if name == "-" && options == "" {
		options = ","
	}
	b = strconv.AppendQuote(append(b, "`json:"...), name)
	b = append(b[:len(b)-1], options...)
	return append(b, "\"`"...)
}

// jsonTagName reports whether encoding/json marshals a field tagged with
// appendStructTag(name) under the key name: its tag names admit letters,
// digits, spaces and the punctuation below, and no empty name; for any
// other name it writes the Go field name, or what precedes a comma.
func jsonTagName(name string) bool {
	other := func(c rune) bool {
		return !strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) && !unicode.IsLetter(c) && !unicode.IsDigit(c)
	}
	return name != "" && !strings.ContainsFunc(name, other)
}
