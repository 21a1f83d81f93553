// Package gogen emits the gateway's Go package from the model: per tool,
// argument and result types and a generated one-pass decoder that validates
// as the generated zod schema does (package zodgen) and reports zod 4's
// issues; the handler interface and dispatch; modes, models and system
// prompt builders. The output uses the standard library only.
//
// The package consists of runtime.go, a verbatim copy of package rt (the
// JSON scanner, Issue and Opt, compiled and tested where it lives), and
// files rendered with jennifer from the spec, plus route.go, envelope.go,
// store.go and sqlstore.go, verbatim copies of package serve (the callback
// http.Handler, its request checks and its idempotency stores; see route.go
// in this package).
//
// Representation choices:
//   - an optional field is Opt[T] (Value, Set), so present-and-zero differs
//     from absent without a pointer allocation; a defaulted field is a plain
//     T holding the default when the key was absent;
//   - string enums are named string types with a constant per value;
//   - number is float64 and int is int64 (zod admits only safe integers);
//   - strings hold UTF-8: a lone surrogate escape decodes to U+FFFD, which
//     the regex translation treats as JavaScript treats the surrogate.
package gogen

import (
	_ "embed"
	"fmt"
	"go/format"
	"path"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/zodgen"
)

func init() {
	emit.Register("go", "Go package for the gateway: types, zod-exact decoders, handler interface, dispatch, modes, models, prompts", Emit)
}

//go:embed rt/rt.go
var runtimeSource []byte

// RuntimeVersion changes whenever rt's API used by generated code changes;
// the generated files check it at compile time.
const RuntimeVersion = 1

// Emit returns the Go package's files under codegen.go.dir.
func Emit(s *model.Spec) ([]emit.File, error) {
	if err := zodgen.Validate(s); err != nil {
		return nil, err
	}
	if err := checkCallbackPath(s.Callback.Path); err != nil {
		return nil, err
	}
	g, err := newGenerator(s)
	if err != nil {
		return nil, err
	}
	var files []emit.File
	rt, err := g.runtime()
	if err != nil {
		return nil, err
	}
	files = append(files, emit.File{Path: path.Join(s.Codegen.GoDir, "runtime.go"), Data: rt})
	parts := g.parts()
	// The parts are built in order (they name helpers as they go), then
	// rendered and formatted concurrently.
	jfs := make([]*jen.File, len(parts))
	for i, part := range parts {
		jfs[i] = g.newFile(part.name == "tools.go")
		part.fn(jfs[i])
	}
	datas, errs := g.render(jfs)
	for i, part := range parts {
		if errs[i] != nil {
			return nil, fmt.Errorf("go: rendering %s: %w", part.name, errs[i])
		}
		files = append(files, emit.File{Path: path.Join(s.Codegen.GoDir, part.name), Data: datas[i]})
	}
	for _, sf := range serveFiles {
		data, err := g.verbatim(sf.name, *sf.src)
		if err != nil {
			return nil, err
		}
		files = append(files, emit.File{Path: path.Join(s.Codegen.GoDir, sf.name), Data: data})
	}
	return files, nil
}

// part is one file rendered with jennifer.
type part struct {
	name string
	fn   func(f *jen.File)
}

// parts lists the files rendered with jennifer, in order.
func (g *generator) parts() []part {
	return []part{
		{"tools.go", g.tools},
		{"decode.go", g.decoders},
		{"dispatch.go", g.dispatch},
		{"modes.go", g.modes},
		{"models.go", g.models},
		{"prompts.go", g.prompts},
		{"callback.go", g.callback},
	}
}

// generator holds the names resolved for one spec.
type generator struct {
	s *model.Spec
	// enumNames names enum types; objects carry their own GoName.
	enumNames map[*model.Type]string
	// decoded lists the object types reachable from arguments, in order.
	decoded []*model.Type
	// strChecks and numChecks name the helper methods of constrained
	// strings and numbers, by constraint signature.
	strChecks  map[string]string
	numChecks  map[string]string
	checkOrder []*model.Type
	// patterns names compiled regexps by RE2 source.
	patterns     map[string]string
	patternOrder []string
	// values names the slices of enum and literal values.
	values      map[string]string
	valuesOrder []string
	maxDepth    int
	used        map[string]string
	// mark is the comment line that precedes each documented top-level
	// declaration in the unformatted files (see render).
	mark string
}

func newGenerator(s *model.Spec) (*generator, error) {
	g := &generator{s: s, enumNames: map[*model.Type]string{}, strChecks: map[string]string{}, numChecks: map[string]string{}, patterns: map[string]string{}, values: map[string]string{}, used: map[string]string{}, mark: newMark()}
	for _, id := range fixedNames {
		g.used[id] = "the package API"
	}
	for _, id := range serveNames {
		g.used[id] = "the callback route's API"
	}
	var errs []string
	claim := func(id, what string) {
		if prev, ok := g.used[id]; ok {
			errs = append(errs, fmt.Sprintf("Go name %s of %s clashes with %s", id, what, prev))
			return
		}
		g.used[id] = what
	}
	var walk func(t *model.Type, owner, field string, args bool, depth int)
	walk = func(t *model.Type, owner, field string, args bool, depth int) {
		if depth > g.maxDepth {
			g.maxDepth = depth
		}
		switch t.Kind {
		case model.Object:
			claim(t.GoName, "an object type")
			if args {
				claim("decode"+t.GoName, "a decoder")
				g.decoded = append(g.decoded, t)
			}
			if len(t.Fields) > 64 {
				errs = append(errs, fmt.Sprintf("%s: object %s has %d fields; the Go decoder supports at most 64", t.Pos, t.GoName, len(t.Fields)))
			}
			for _, f := range t.Fields {
				walk(f.Type, t.GoName, f.GoName, args, depth+1)
			}
		case model.Array:
			walk(t.Items, owner, field+"Item", args, depth+1)
		case model.Enum:
			name := owner + field
			claim(name, "an enum type")
			for _, v := range t.Enum {
				claim(name+goValueName(v), "an enum constant")
			}
			g.enumNames[t] = name
		case model.String:
			if args && (t.MinLength != nil || t.MaxLength != nil || len(t.Patterns) > 0 || len(t.Checks) > 0) {
				sig := strSig(t)
				if _, ok := g.strChecks[sig]; !ok {
					g.strChecks[sig] = fmt.Sprintf("checkString%d", len(g.strChecks))
					g.checkOrder = append(g.checkOrder, t)
				}
				for _, p := range t.Patterns {
					g.pattern(p.Regexp)
				}
				for _, c := range t.Checks {
					for _, p := range c.Reject {
						g.pattern(p.Regexp)
					}
					for _, p := range c.Match {
						g.pattern(p.Regexp)
					}
				}
			}
		case model.Number, model.Integer:
			if args && (t.Kind == model.Integer || t.Minimum != nil || t.Maximum != nil) {
				sig := numSig(t)
				if _, ok := g.numChecks[sig]; !ok {
					g.numChecks[sig] = fmt.Sprintf("checkNumber%d", len(g.numChecks))
					g.checkOrder = append(g.checkOrder, t)
				}
			}
		}
	}
	for _, t := range s.Tools {
		claim("Tool"+t.GoName, "a tool constant")
		claim("Decode"+t.Args.GoName, "a decoder")
		walk(t.Args, t.GoName, "", true, 0)
		if t.Result != nil {
			walk(t.Result, t.GoName+"Result", "", false, 0)
		}
	}
	for _, m := range s.Modes {
		claim("Mode"+m.GoName, "a mode constant")
		claim(m.GoName+"Prompt", "a prompt builder")
	}
	for _, m := range s.Models {
		claim("Model"+m.GoName, "a model constant")
	}
	for _, a := range s.Agents {
		claim("Agent"+a.GoName, "an agent constant")
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("go: %s", strings.Join(errs, "; "))
	}
	return g, nil
}

// fixedNames are the identifiers the package always declares.
var fixedNames = []string{
	"Opt", "Some", "Issue", "Issues", "SyntaxError", "AppendJSString", "Tool", "Tools", "LookupTool",
	"Handler", "Call", "Output", "NoData", "Result", "Dispatch", "Mode", "Modes", "ParseMode", "Standing",
	"Session", "SelectMode", "ModelID", "Model", "Models", "LookupModel", "UnknownModelError",
	"ModelFromOpenCode", "ModelFromAPI", "ToOpenCodeModelID", "ToAPIModelID", "OpenCodeToAPIModelID",
	"APIToOpenCodeModelID", "AgentType", "Agents", "PromptParams", "SystemPrompt", "CriticalInstructions",
	"BuildSystemPrompt", "ContractName", "ContractRevision",
}

func (g *generator) pattern(re string) {
	if _, ok := g.patterns[re]; !ok {
		g.patterns[re] = fmt.Sprintf("pattern%d", len(g.patterns))
		g.patternOrder = append(g.patternOrder, re)
	}
}

func strSig(t *model.Type) string {
	var b strings.Builder
	if t.MinLength != nil {
		fmt.Fprintf(&b, "min%d;", *t.MinLength)
	}
	if t.MaxLength != nil {
		fmt.Fprintf(&b, "max%d;", *t.MaxLength)
	}
	for _, p := range t.Patterns {
		fmt.Fprintf(&b, "re%q;", p.Regexp)
	}
	for _, c := range t.Checks {
		fmt.Fprintf(&b, "check%s;", c.Name)
	}
	return b.String()
}

func numSig(t *model.Type) string {
	sig := string(t.Kind)
	if m := t.Minimum; m != nil {
		sig += fmt.Sprintf(";min%v%s", m.Exclusive, m.Value)
	}
	if m := t.Maximum; m != nil {
		sig += fmt.Sprintf(";max%v%s", m.Exclusive, m.Value)
	}
	return sig
}

// goValueName makes an identifier suffix of an enum value.
func goValueName(v string) string {
	var b strings.Builder
	up := true
	for _, r := range v {
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
			if up {
				b.WriteString(strings.ToUpper(string(r)))
			} else {
				b.WriteRune(r)
			}
			up = false
		default:
			up = true
		}
	}
	if b.Len() == 0 {
		return "Empty"
	}
	return b.String()
}

// newFile starts a generated file; the package doc goes in tools.go.
func (g *generator) newFile(withDoc bool) *jen.File {
	f := jen.NewFile(g.s.Codegen.GoPackage)
	f.HeaderComment("// " + emit.Header)
	f.HeaderComment("// " + emit.SourceLine(g.s))
	if withDoc {
		f.PackageComment(fmt.Sprintf("// Package %s is the gateway side of the %s agent contract (revision %s),\n// generated by agentc from the spec.\n//\n%s",
			g.s.Codegen.GoPackage, g.s.Contract.Name, g.s.Contract.Revision, commentText(g.s.Contract.Summary)))
	}
	return f
}

// runtime returns runtime.go: package rt with the generated package's name
// and the spec's path depth.
func (g *generator) runtime() ([]byte, error) {
	src := string(runtimeSource)
	i := strings.Index(src, "\npackage rt\n")
	if i < 0 {
		return nil, fmt.Errorf("go: runtime source has no package clause")
	}
	src = src[i+len("\npackage rt\n"):]
	src = strings.Replace(src, "const maxPathDepth = 16", fmt.Sprintf("const maxPathDepth = %d", g.maxDepth+1), 1)
	head := fmt.Sprintf("// %s\n// %s\n\npackage %s\n", emit.Header, emit.SourceLine(g.s), g.s.Codegen.GoPackage)
	j := strings.Index(src, "\n)\n")
	if j < 0 {
		return nil, fmt.Errorf("go: runtime source has no import block")
	}
	src = src[:j+3] + fmt.Sprintf("\n// runtimeVersion is checked by the other generated files at compile time.\nconst runtimeVersion = %d\n", RuntimeVersion) + src[j+3:]
	out, err := format.Source([]byte(head + src))
	if err != nil {
		return nil, fmt.Errorf("go: formatting runtime.go: %w", err)
	}
	return out, nil
}

// commentText turns text into // comment lines.
func commentText(text string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		lines = append(lines, strings.TrimRight("// "+l, " "))
	}
	return strings.Join(lines, "\n")
}

// doc returns a doc comment statement ("" gives none).
func doc(text string) jen.Code {
	if strings.TrimSpace(text) == "" {
		return jen.Null()
	}
	return jen.Comment(commentText(text))
}

// goType returns the Go type of t.
func (g *generator) goType(t *model.Type) *jen.Statement {
	switch t.Kind {
	case model.String, model.Literal:
		return jen.String()
	case model.Enum:
		return jen.Id(g.enumNames[t])
	case model.Number:
		return jen.Float64()
	case model.Integer:
		return jen.Int64()
	case model.Boolean:
		return jen.Bool()
	case model.Array:
		return jen.Index().Add(g.goType(t.Items))
	case model.Object:
		return jen.Id(t.GoName)
	}
	panic("gogen: unknown kind " + string(t.Kind)) // the loader admits no other kind
}

func (g *generator) fieldType(f *model.Field) *jen.Statement {
	if f.Presence == model.Optional {
		return jen.Id("Opt").Types(g.goType(f.Type))
	}
	return g.goType(f.Type)
}

// comment adds // comment lines to f, the doc comment of the declaration
// that follows. Before it goes the generator's split mark, where render may
// cut the file to format its parts concurrently.
func (g *generator) comment(f *jen.File, text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	if g.mark != "" {
		f.Comment(g.mark)
	}
	f.Add(doc(text))
}
