// Package gogen emits the gateway's Go package from the model: per tool,
// argument and result types and a generated one-pass decoder that validates
// as the generated zod schema does (package zod) and reports zod 4's
// issues; the handler interface and dispatch; modes, models and system
// prompt builders. The output uses the standard library and its runtime
// only.
//
// The package holds only what the spec decides, written as gofmt formats
// it (see goSource); what does not depend on the spec (the JSON scanner,
// Issue and Opt, the callback route, its request checks and its
// idempotency stores) is the runtime, package agentrt, which the generated
// code imports and drives through a descriptor of the contract
// (Descriptor).
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
	"embed"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/agentc-dev/agentc/gen/diag"
	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/internal/gocopy"
	"github.com/agentc-dev/agentc/gen/js"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/names"
)

// Emitter is emitter "go".
var Emitter = &emit.Emitter{
	Name:  "go",
	Doc:   "Go package for the gateway: types, zod-exact decoders, handler interface, dispatch, modes, models, prompts",
	Check: Check,
	Run:   Emit,
}

// RuntimeVersion is the version of the runtime API (package agentrt) the
// generated code is written against; the generated files check at compile
// time that their runtime serves it (agentrt.EnforceVersion).
const RuntimeVersion = 4

// runtimeFS holds the runtime package, which Emit copies beside the
// generated package unless codegen.go.runtime names one to import.
//
//go:embed agentrt/*.go
var runtimeFS embed.FS

// RuntimeImport is the import path of the runtime package in agentc's own
// module (package agentrt, in agentrt/).
const RuntimeImport = "github.com/agentc-dev/agentc/gen/gogen/agentrt"

// Emit returns the Go package's files under codegen.go.dir. In a session
// (p.Memo set) it writes again only the declarations that changed since
// its last run (see memo.go).
func Emit(p *emit.Pass) ([]emit.File, error) {
	s := p.Spec
	if err := js.Check(s).Err(); err != nil {
		return nil, err
	}
	if err := checkCallbackPath(s.Callback.Path); err != nil {
		return nil, err
	}
	if s.Codegen.RuntimeImport() == "" {
		return nil, fmt.Errorf("go: set codegen.go.import, the import path of the package in %s, "+
			"or codegen.go.runtime: the package imports its runtime", s.Codegen.GoDir)
	}
	g, findings := newGenerator(s)
	if findings != nil {
		return nil, findings.Err()
	}
	var files []emit.File
	if p.Memo != nil { // a session: g.memo is this Emit's use of its memory
		g.memo = &memo{next: renders{}}
		g.memo.prev, _ = p.Memo.Kept.(renders)
	}
	for _, part := range g.parts() {
		data, err := g.render(part)
		if err != nil {
			return nil, fmt.Errorf("go: rendering %s: %w", part.name, err)
		}
		files = append(files, emit.File{Path: path.Join(s.Codegen.GoDir, part.name), Data: data})
	}
	if p.Memo != nil {
		p.Memo.Kept = g.memo.next // what this Emit wrote is the memory of the next one
	}
	if s.Codegen.GoRuntime == "" {
		files = append(files, gocopy.Package(runtimeFS, "agentrt", RuntimeImport, path.Join(s.Codegen.GoDir, "agentrt"), nil)...)
	}
	return files, nil
}

// part is one file of the package: its name, and the function that writes
// its declarations.
type part struct {
	name string
	fn   func(src *goSource)
}

// parts lists the files of the package, in order.
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
	// checkVars name the named checks' variables, declared in checkOrder.
	checkVars  map[*model.Check]string
	checkOrder []*model.Check
	// patterns and values name the variables a string type's decoder
	// reads (its compiled patterns, an index following the name when it
	// has several) and an enum's or literal's (its values), after the
	// type's place in the spec: an enum or a pattern added to one field
	// renames no other field's.
	patterns, values          map[*model.Type]string
	patternOrder, valuesOrder []*model.Type
	// memo is the memory of written units in a session.
	memo *memo
	// runtime is the import path of the runtime package (agentrt).
	runtime string
	// claims are the package-level identifiers the package declares, and
	// what each was claimed for.
	claims map[string]claimed
}

// Check reports, each at its position in the spec, what the Go package
// cannot declare: identifiers that clash, objects with more fields than a
// decoder tracks, field names its struct tags cannot carry, defaults Go
// cannot hold. Emit fails on the same findings; vet runs Check so that
// it finds them first.
func Check(s *model.Spec) diag.List {
	_, errs := newGenerator(s)
	return errs
}

// claimed is what a package-level Go identifier was claimed for: what,
// where a verb in it (%s, %q) stands for name, which is formatted only
// for a finding.
type claimed struct {
	what, name string
	pos        model.Pos
}

// String says what the identifier was claimed for.
func (c claimed) String() string {
	if !strings.Contains(c.what, "%") {
		return c.what
	}
	return fmt.Sprintf(c.what, c.name)
}

func newGenerator(s *model.Spec) (*generator, diag.List) {
	g := &generator{s: s, enumNames: map[*model.Type]string{}, checkVars: map[*model.Check]string{}, patterns: map[*model.Type]string{},
		values: map[*model.Type]string{}, runtime: s.Codegen.RuntimeImport()}
	// A tool claims a dozen names or so: the map is grown once, if at all.
	used := make(map[string]claimed, len(fixedNames)+len(proxyNames)+len(model.Standings)+16*len(s.Tools))
	g.claims = used
	// The names that do not come from the spec's are claimed first, so
	// that a spec name meeting one is the finding, at the spec's position.
	for _, id := range fixedNames {
		used[id] = claimed{what: "the package API"}
	}
	for _, id := range proxyNames {
		used[id] = claimed{what: "the package API (the prompt proxy's service, proxy.go)"}
	}
	for _, st := range model.Standings {
		used["Standing"+names.GoEnumValue(string(st))] = claimed{what: "the package API (a Standing constant)"}
	}
	var errs diag.List
	claim := func(id, what, name string, pos model.Pos) {
		prev, ok := used[id]
		if !ok {
			used[id] = claimed{what, name, pos}
			return
		}
		at := ""
		if prev.pos.IsValid() && prev.pos != pos {
			at = fmt.Sprintf(" (at %s)", prev.pos)
		}
		fix := "rename one of them"
		if !prev.pos.IsValid() {
			fix = "choose another name"
		}
		errs.Add(pos, "name-clash", "Go name %s of %s clashes with %s%s; %s", id, claimed{what: what, name: name}, prev, at, fix)
	}
	// enumValue claims an enum constant; values whose names meet differ
	// only in what a Go name leaves out.
	const enumValueWhat = "enum value %q"
	enumValue := func(id, v string, pos model.Pos) {
		if prev, ok := used[id]; ok && prev.what == enumValueWhat {
			errs.Add(pos, "name-clash", "enum values %q and %q both become Go constant %s (a Go name keeps a value's "+
				"letters and digits, transliterates accented and Greek letters and spells others as U+XXXX code points); "+
				"make them differ in letters or digits", prev.name, v, id)
			return
		}
		claim(id, enumValueWhat, v, pos)
	}
	var walk func(t *model.Type, owner, field string, args bool)
	walk = func(t *model.Type, owner, field string, args bool) {
		switch t.Kind {
		case model.Object:
			claim(t.GoName, "object type %s", t.GoName, t.Pos)
			if args {
				claim("decode"+t.GoName, "the decoder of %s", t.GoName, t.Pos)
				claim("keys"+t.GoName, "the key table of %s", t.GoName, t.Pos)
				claim("missing"+t.GoName, "the missing-field table of %s", t.GoName, t.Pos)
				g.decoded = append(g.decoded, t)
			}
			if len(t.Fields) > 64 {
				errs.Add(t.Pos, "go-limit", "this object has %d fields; the generated Go decoder supports at most 64: "+
					"group some of them into a nested object", len(t.Fields))
			}
			for _, f := range t.Fields {
				// The decoders read any key, but the Go types' JSON is
				// encoding/json's: a key their tags cannot carry would be
				// sent (a result) or marshalled (arguments) under another.
				if !jsonTagName(f.Name) {
					what, then := "result", "the Go gateway would send it under another key"
					if args {
						what, then = "argument", "the Go arguments would marshal it under another key than zod's"
					}
					errs.Add(f.Pos, "go-limit", "%s field name %q cannot be the JSON name of a Go struct tag (encoding/json "+
						"admits letters, digits, spaces and !#$%%&()*+-./:;<=>?@[]^_{|}~, and no empty name), so %s; "+
						"rename the field", what, f.Name, then)
				}
				// The decoder assigns a default as a Go value of the
				// field's type.
				if args && f.Presence == model.Defaulted {
					if _, err := g.goValue(&goSource{}, f.Type, f.Default); err != nil {
						errs.Add(f.Pos, "go-limit", "the default of %q is not one zod and the Go decoder take alike (%v); "+
							"use integers within ±%d", f.Name, err, int64(maxSafeInteger))
					}
				}
				walk(f.Type, t.GoName, f.GoName, args)
			}
		case model.Array:
			walk(t.Items, owner, field+"Item", args)
		case model.Enum:
			name := owner + field
			claim(name, "enum type %s", name, t.Pos)
			for _, v := range t.Enum {
				enumValue(name+names.GoEnumValue(v), v, t.Pos)
			}
			g.enumNames[t] = name
			if args {
				g.values[t] = "values" + name
				claim(g.values[t], "the values of %s", name, t.Pos)
				g.valuesOrder = append(g.valuesOrder, t)
			}
		case model.Literal:
			if args {
				g.values[t] = "values" + owner + field
				claim(g.values[t], "the value of %s", owner+field, t.Pos)
				g.valuesOrder = append(g.valuesOrder, t)
			}
		case model.String:
			if args && len(t.Patterns) > 0 {
				g.patterns[t] = "pattern" + owner + field
				for i := range t.Patterns {
					claim(g.patternVar(t, i), "a pattern of %s", owner+field, t.Pos)
				}
				g.patternOrder = append(g.patternOrder, t)
			}
			for _, c := range t.Checks {
				if _, ok := g.checkVars[c]; args && !ok {
					g.checkVars[c] = "check" + c.GoName
					claim(g.checkVars[c], "named check %s", c.Name, c.Pos)
					g.checkOrder = append(g.checkOrder, c)
				}
			}
		}
	}
	for _, t := range s.Tools {
		claim("Tool"+t.GoName, "the constant of tool %q", t.Name, t.Pos)
		claim("Decode"+t.Args.GoName, "the decoder of tool %q", t.Name, t.Pos)
		walk(t.Args, t.GoName, "", true)
		if t.Result != nil {
			walk(t.Result, t.GoName+"Result", "", false)
		}
	}
	for _, m := range s.Modes {
		claim("Mode"+m.GoName, "the constant of mode %q", m.Name, m.Pos)
		claim(m.GoName+"Prompt", "the prompt builder of mode %q", m.Name, m.Pos)
	}
	for _, m := range s.Models {
		claim("Model"+m.GoName, "the constant of model %q", m.Canonical, m.Pos)
	}
	for _, a := range s.Agents {
		claim("Agent"+a.GoName, "the constant of agent %q", a.Name, a.Pos)
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return g, nil
}

// fixedNames are the package-level identifiers the package always
// declares, exported or not, other than the Standing constants (model.Standings). TestClaimsCoverPackage
// checks that every identifier the generated package declares is claimed.
var fixedNames = []string{
	// tools.go
	"Opt", "Some", "ContractName", "ContractRevision", "Tool", "Tools", "LookupTool", "numTools", "toolTable",
	// decode.go
	"Issue", "Issues", "SyntaxError", "decoder",
	// dispatch.go
	"Handler", "Call", "Output", "NoData", "Result", "Dispatch",
	// modes.go
	"Mode", "Modes", "ParseMode", "Standing", "Session", "SelectMode", "modeInfo", "modeTable",
	// models.go
	"ModelID", "Model", "Models", "LookupModel", "UnknownModelError", "ModelFromOpenCode", "ModelFromAPI",
	"ToOpenCodeModelID", "ToAPIModelID", "OpenCodeToAPIModelID", "APIToOpenCodeModelID", "OpenCodeToCanonicalModelID",
	"APIToCanonicalModelID", "AgentType", "Agents", "modelTable",
	// prompts.go
	"PromptParams", "SystemPrompt", "CriticalInstructions", "BuildSystemPrompt",
	// callback.go
	"Descriptor", "CallbackPath", "DefaultRetention", "CallbackTimeout", "RouteConfig", "Route", "NewRoute",
	"Sessions", "SessionsFunc", "NewMemoryStore",
}

// proxyNames are the package-level identifiers of proxy.go, which emitter
// "proxy" (package proxygen) writes into the same package.
var proxyNames = []string{
	"PromptProxyPath", "PromptProxyTimeout", "PromptDescriptor", "PromptRequest", "PromptUser", "PromptMetadata",
	"SamplingParams", "PromptResponse", "PromptRequestError", "AllocateVariant", "DecodePromptRequest",
	"ResolvePrompt", "PromptHandler",
}

// patternVar names the variable of string type t's pattern i.
func (g *generator) patternVar(t *model.Type, i int) string {
	if len(t.Patterns) == 1 {
		return g.patterns[t]
	}
	return g.patterns[t] + strconv.Itoa(i)
}

// maxLine is the longest line the generated files hold, other than a
// string literal that cannot be split (linelen_test.go checks it).
const maxLine = 120
