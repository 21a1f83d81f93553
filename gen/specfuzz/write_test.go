package specfuzz

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/emitters"
	"github.com/agentc-dev/agentc/gen/internal/scratch"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/names"
)

// A written spec: its files and what the writer meant them to declare.
type written struct {
	seed  uint64
	hard  float64 // the chance a name was drawn from the hard sets
	files map[string][]byte
	// tools are the tools and their top-level argument names as written,
	// to find arguments the loader dropped.
	tools []*toolDecl
	// features are the constructs the spec uses, for the log.
	features []string
	// mistake is the deliberate error the spec makes, if any.
	mistake string
}

// writer writes one spec from a seeded PRNG, the way people write them:
// a contract file, modes, tools split over files, definitions, embeddings,
// comprehensions, defaults on every kind, names drawn now and then from the
// hard sets (names_test.go), and sometimes one mistake.
type writer struct {
	r *rand.Rand
	// hard is this spec's chance that a name is drawn from the hard sets.
	hard float64
	// tree is where the spec's output goes in the scratch module.
	tree  string
	pkg   string
	files map[string]*cueFile

	tools        []*toolDecl
	modes        []*modeDecl
	promptParams []string
	models       []string
	agents       []string // proxy.agents
	checks       []string // named checks declared
	mistake      string   // the mistake to make, until it is made
	made         string
	feats        map[string]bool
	taken        map[string]map[string]bool // names used, per namespace
}

type toolDecl struct {
	name      string
	aliases   []string
	execution string
	fields    []string // top-level argument names, as meant
	lists     []string // top-level list arguments
}

type modeDecl struct {
	name      string
	parent    *modeDecl
	standings map[string]string // tool name → standing
	mentions  []string          // tools its own prompt mentions
}

type cueFile struct {
	body strings.Builder
}

func (f *cueFile) printf(format string, args ...any) { fmt.Fprintf(&f.body, format, args...) }

// builtinCall finds the calls of CUE's builtin packages a file makes, which
// it must import (and only those: an unused import is an error).
var builtinCall = regexp.MustCompile(`\b(strings|list)\.[A-Z]`)

// mistakes are the errors people make that vet must report, positioned.
var mistakes = []string{
	"float", "null", "kind-union", "bytes", "fixed-list", "pattern-field", "bad-regexp", "bare-not-match",
	"unknown-mode-tool", "unknown-placeholder", "omits-emphasized", "extends-unknown", "unknown-rule-mode",
	"default-outside-type", "package-mismatch", "default-on-optional",
}

// writeSpec writes the spec of seed, whose output the scratch module will
// hold under tree.
func writeSpec(seed uint64, tree string) *written {
	w := &writer{
		r:     rand.New(rand.NewPCG(seed, 0x5eed5eed)),
		tree:  tree,
		files: map[string]*cueFile{},
		feats: map[string]bool{},
		taken: map[string]map[string]bool{},
	}
	w.hard = []float64{0, 0.05, 0.15, 0.3}[w.intn(4)]
	w.pkg = w.pick([]string{"contract", "contract", "agent", "spec"})
	if seed%4 == 0 {
		// Every fourth spec makes a mistake, each kind in turn.
		w.mistake = mistakes[seed/4%uint64(len(mistakes))]
	}
	w.declareParams()
	w.declareModels()
	w.declareTools()
	w.declareModes()
	w.declareContract()
	out := &written{seed: seed, hard: w.hard, files: w.render(), tools: w.tools, mistake: w.made}
	out.features = slices.Sorted(maps.Keys(w.feats))
	return out
}

func (w *writer) intn(n int) int            { return w.r.IntN(n) }
func (w *writer) chance(p float64) bool     { return w.r.Float64() < p }
func (w *writer) pick(list []string) string { return list[w.intn(len(list))] }
func (w *writer) feature(f string)          { w.feats[f] = true }

// makes reports whether the spec makes mistake m here (once).
func (w *writer) makes(m string) bool {
	if w.mistake != m || w.made != "" {
		return false
	}
	w.made = m
	return true
}

func (w *writer) file(name string) *cueFile {
	f := w.files[name]
	if f == nil {
		f = &cueFile{}
		w.files[name] = f
	}
	return f
}

// render returns the files: each a package clause, its imports and body.
func (w *writer) render() map[string][]byte {
	out := map[string][]byte{
		"cue.mod/module.cue": []byte("module: \"example.com/specfuzz/spec@v0\"\nlanguage: version: \"v0.17.0\"\n"),
	}
	for _, name := range slices.Sorted(maps.Keys(w.files)) {
		f := w.files[name]
		pkg := w.pkg
		if name != "contract.cue" && w.makes("package-mismatch") {
			pkg += "x"
		}
		imports := map[string]bool{}
		for _, m := range builtinCall.FindAllStringSubmatch(f.body.String(), -1) {
			imports[m[1]] = true
		}
		var b strings.Builder
		fmt.Fprintf(&b, "package %s\n\n", pkg)
		switch imps := slices.Sorted(maps.Keys(imports)); len(imps) {
		case 0:
		case 1:
			fmt.Fprintf(&b, "import %q\n\n", imps[0])
		default:
			b.WriteString("import (\n")
			for _, i := range imps {
				fmt.Fprintf(&b, "\t%q\n", i)
			}
			b.WriteString(")\n\n")
		}
		b.WriteString(f.body.String())
		out[name] = []byte(b.String())
	}
	return out
}

// name returns a name not yet used in namespace ns: natural, or with this
// spec's chance from hard (or, as often, a case or separator twin of a
// name already used there).
func (w *writer) name(ns string, natural, hard []string, valid func(string) bool) string {
	taken := w.taken[ns]
	if taken == nil {
		taken = map[string]bool{}
		w.taken[ns] = taken
	}
	for try := 0; ; try++ {
		var n string
		switch {
		case try > 30:
			n = fmt.Sprintf("%s_%d", w.pick(natural), try)
		case len(taken) > 0 && w.chance(w.hard/3):
			prev := slices.Sorted(maps.Keys(taken))
			n = twinStyles[w.intn(len(twinStyles))](words(w.pick(prev)))
			w.feature("twin")
		case len(hard) > 0 && w.chance(w.hard):
			n = w.pick(hard)
			w.feature("hard-name")
		default:
			n = w.pick(natural)
		}
		if !taken[n] && (valid == nil || valid(n) || try > 20) {
			taken[n] = true
			return n
		}
	}
}

// text returns a few sentences.
func (w *writer) text(n int) string {
	var parts []string
	for range 1 + w.intn(n) {
		parts = append(parts, w.pick(sentences))
	}
	return strings.Join(parts, " ")
}

// label writes a field label: unquoted where CUE allows it (mostly, as
// people do), quoted otherwise. An identifier with a leading '_' is
// sometimes left unquoted, which CUE reads as a hidden field.
func (w *writer) label(name string) string {
	switch {
	case !cueIdentRE.MatchString(name) || strings.HasPrefix(name, "__"):
	case name[0] == '_':
		if w.chance(0.5) {
			w.feature("unquoted-underscore-label")
			return name
		}
	case w.chance(0.8):
		return name
	}
	return cueString(name)
}

// cueString quotes s as a CUE string literal.
func cueString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// cueText writes s as a CUE string: a one-line literal or, for text with
// line breaks and now and then otherwise, a multi-line one indented below
// indent.
func (w *writer) cueText(s, indent string) string {
	if !strings.Contains(s, "\n") && w.chance(0.7) {
		return cueString(s)
	}
	w.feature("multiline-string")
	in := indent + "\t"
	var b strings.Builder
	b.WriteString("\"\"\"\n")
	for _, line := range strings.Split(s, "\n") {
		q := cueString(line)
		q = q[1 : len(q)-1]
		if q != "" {
			b.WriteString(in + q)
		}
		b.WriteString("\n")
	}
	b.WriteString(in + "\"\"\"")
	return b.String()
}

// declareParams declares prompt_params (in modes.cue, as the starter does).
func (w *writer) declareParams() {
	f := w.file("modes.cue")
	for range w.intn(4) {
		p := w.name("param", paramNames, hardParams, paramRE.MatchString)
		w.promptParams = append(w.promptParams, p)
		f.printf("prompt_params: %s: %s\n", w.label(p), cueString(w.text(1)))
	}
	if len(w.promptParams) == 0 {
		f.printf("prompt_params: {}\n")
	}
	f.printf("\n")
}

// declareModels writes the model registry and the agents.
func (w *writer) declareModels() {
	file := "contract.cue"
	if w.chance(0.3) {
		file = "models.cue"
		w.feature("models-own-file")
	}
	f := w.file(file)
	f.printf("models: {\n")
	for i := range 1 + w.intn(4) {
		id := w.name("model", modelNames, hardKeys, nil)
		w.models = append(w.models, id)
		oc := w.pick(providers) + "/" + w.name("opencode-model", []string{"claude-sonnet-4-5", "gpt-5", "model-" + strconv.Itoa(i)}, []string{"constructor", "__proto__", "toString", "Model.v1", "a_b"}, nil)
		f.printf("\t%s: {\n\t\tdisplay:  %s\n\t\topencode: %s\n\t\tapi:      %s\n\t}\n",
			w.label(id), cueString(w.pick([]string{"Claude", "GPT", "Model \"quoted\"", "Modèle"})+" "+strconv.Itoa(i)),
			cueString(oc), cueString(w.name("api", []string{id + "-20250101", id, "api-" + strconv.Itoa(i)}, hardKeys, nil)))
	}
	f.printf("}\n\n")
	agent := func(name string) {
		ms := slices.Clone(w.models)
		w.r.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
		ms = ms[:1+w.intn(len(ms))]
		var quoted []string
		for _, m := range ms {
			quoted = append(quoted, cueString(m))
		}
		f.printf("agents: %s: {\n\tmodels: [%s]\n\tdefault: %s\n}\n", w.label(name), strings.Join(quoted, ", "), cueString(w.pick(ms)))
	}
	agent("opencode")
	if w.chance(0.2) {
		agent(w.name("agent", []string{"claude_code", "codex"}, hardIdents, identRE.MatchString))
	}
	f.printf("\n")
}

// declareTools writes the tools: in tools.cue, in files of their own, by a
// comprehension, with the named checks and object definitions they use.
func (w *writer) declareTools() {
	n := 1 + w.intn(5)
	for i := range n {
		file := "tools.cue"
		if i > 0 && w.chance(0.3) {
			file = fmt.Sprintf("tools_%d.cue", i)
			w.feature("tools-split-over-files")
		}
		w.tool(file)
	}
	if w.chance(0.15) {
		w.toolsByComprehension()
	}
}

func (w *writer) tool(file string) {
	f := w.file(file)
	t := &toolDecl{
		name:      w.name("tool", toolNames, hardKeys, nil),
		execution: w.pick([]string{"gateway", "gateway", "gateway", "sandbox", "sandbox", "intercepted"}),
	}
	w.tools = append(w.tools, t)
	// Tool names, aliases and file names are one namespace.
	w.taken["tool"][names.FileName(t.name)] = true
	f.printf("tools: %s: {\n", w.label(t.name))
	f.printf("\texecution: %q\n", t.execution)
	if w.chance(0.2) {
		a := w.name("tool", toolNames, hardKeys, nil)
		t.aliases = append(t.aliases, a)
		f.printf("\taliases: [%s]\n", cueString(a))
	}
	f.printf("\tdescription: %s\n", w.cueText(w.text(3), "\t"))
	if w.chance(0.1) {
		f.printf("\tdeprecated: %s\n", cueString(w.text(1)))
	}
	// The arguments: own fields, or a definition embedded and fields
	// beside it, which the definition's fields must not repeat; own
	// fields sometimes in another file (not beside an embedding, which
	// closes the struct).
	fields := w.fields("\t\t", 0, 5)
	var embedded string
	if w.chance(0.15) {
		base := w.objectDef()
		embedded = base.name
		for _, fl := range base.fields {
			fields = slices.DeleteFunc(fields, func(h field) bool { return h.name == fl.name })
			t.fields = append(t.fields, fl.name)
		}
		w.feature("embedding")
	}
	var here, there []field
	for _, fl := range fields {
		t.fields = append(t.fields, fl.name)
		if fl.kind == "list" {
			t.lists = append(t.lists, fl.name)
		}
		if embedded == "" && len(fields) > 1 && w.chance(0.2) {
			there = append(there, fl)
		} else {
			here = append(here, fl)
		}
	}
	f.printf("\targs: {\n")
	if embedded != "" {
		f.printf("\t\t%s\n", embedded)
	}
	for _, fl := range here {
		f.printf("%s", fl.text)
	}
	f.printf("\t}\n")
	if t.execution != "sandbox" && w.chance(0.5) {
		f.printf("\tresult: {\n")
		for _, fl := range w.fields("\t\t", 1, 4) {
			f.printf("%s", fl.text)
		}
		f.printf("\t}\n")
	}
	if t.execution == "sandbox" {
		summary := "Done."
		if len(t.lists) > 0 && w.chance(0.5) {
			summary = fmt.Sprintf("Handled {{count:%s}} item(s).", w.pick(t.lists))
		} else if len(t.fields) > 0 && w.chance(0.5) {
			summary = fmt.Sprintf("Handled {{%s}}.", w.pick(t.fields))
		}
		f.printf("\tsummary: %s\n", cueString(summary))
	}
	f.printf("}\n\n")
	if len(there) > 0 {
		g := w.file("tools_more.cue")
		for _, fl := range there {
			g.printf("tools: %s: args: {\n%s}\n\n", w.label(t.name), fl.text)
		}
		w.feature("args-split-over-files")
	}
}

// toolsByComprehension declares sandbox tools with a for comprehension.
func (w *writer) toolsByComprehension() {
	f := w.file("tools.cue")
	var ns, quoted []string
	for range 1 + w.intn(2) {
		n := w.name("stem", wordsOfText, hardIdents, identRE.MatchString)
		ns = append(ns, n)
		quoted = append(quoted, cueString(n))
	}
	f.printf("for n in [%s] {\n\ttools: \"\\(n)_note\": {\n\t\texecution: \"sandbox\"\n", strings.Join(quoted, ", "))
	f.printf("\t\tdescription: \"Write a note about \\(n).\"\n\t\tsummary: \"Noted about \\(n).\"\n")
	f.printf("\t\targs: text: %s & %s.MaxRunes(200)\n\t}\n}\n\n", "string", "strings")
	for _, n := range ns {
		w.tools = append(w.tools, &toolDecl{name: n + "_note", execution: "sandbox", fields: []string{"text"}})
		w.taken["tool"][n+"_note"] = true
	}
	w.feature("tools-by-comprehension")
}

// field is a written field: its name, its kind and its text (lines at the
// indent it was written for).
type field struct {
	name, kind, text string
}

// fields writes 0 (min) to max fields of an object at indent.
func (w *writer) fields(indent string, min, max int) []field {
	ns := fmt.Sprintf("field-%d", w.r.Uint64())
	var out []field
	for range min + w.intn(max-min+1) {
		var b strings.Builder
		name := w.name(ns, fieldNames, hardKeys, nil)
		if w.chance(0.5) {
			fmt.Fprintf(&b, "%s// %s\n", indent, w.text(2))
		}
		ty := w.typ(indent, 0)
		marker := w.pick([]string{"", "", "", "?", "?", "!"})
		expr := ty.expr
		if ty.def != "" && w.chance(0.3) {
			marker = "" // a field with a default may be omitted: no '?', no '!'
			// A literal's star marks no default to CUE (*"a" | "a" is "a"):
			// no mistake to make on an optional one.
			if ty.kind != "literal" && w.makes("default-on-optional") {
				marker = "?"
			}
			w.feature("default-" + ty.kind)
			switch {
			case ty.kind == "enum":
				// The default is one of the values, starred where it stands.
				vals := slices.Clone(ty.vals)
				vals[slices.Index(vals, ty.def)] = "*" + ty.def
				expr = strings.Join(vals, " | ")
			case w.chance(0.5):
				expr = "*" + ty.def + " | " + expr
			default:
				expr = expr + " | *" + ty.def
			}
		}
		fmt.Fprintf(&b, "%s%s%s: %s\n", indent, w.label(name), marker, expr)
		out = append(out, field{name, ty.kind, b.String()})
	}
	return out
}

// typ is a written type: its CUE expression, its kind and a CUE literal
// valid for it, for a default ("" when there is none).
type typ struct {
	expr, kind, def string
	vals            []string // an enum's values
}

func (w *writer) typ(indent string, depth int) typ {
	kinds := []string{"string", "string", "string", "int", "int", "number", "bool", "enum", "enum", "literal"}
	if depth < 2 {
		kinds = append(kinds, "list", "list", "object", "object-def", "object-comprehension")
	}
	if w.mistake != "" && w.made == "" && w.chance(0.6) {
		switch m := w.mistake; m {
		case "float", "null", "bytes":
			w.made = m
			return typ{expr: m, kind: "mistake"}
		case "kind-union":
			w.made = m
			return typ{expr: "string | int", kind: "mistake"}
		case "fixed-list":
			w.made = m
			return typ{expr: "[string, int]", kind: "mistake"}
		case "pattern-field":
			w.made = m
			return typ{expr: "{[string]: string}", kind: "mistake"}
		case "bad-regexp":
			w.made = m
			return typ{expr: `=~"(unclosed"`, kind: "mistake"}
		case "bare-not-match":
			w.made = m
			return typ{expr: `!~"^x"`, kind: "mistake"}
		case "default-outside-type":
			w.made = m
			return typ{expr: `*"toolong" | strings.MaxRunes(2)`, kind: "mistake"}
		}
	}
	switch kind := w.pick(kinds); kind {
	case "string":
		return w.stringType()
	case "int", "number":
		return w.numberType(kind)
	case "bool":
		return typ{expr: "bool", kind: "bool", def: w.pick([]string{"true", "false"})}
	case "enum":
		ns := fmt.Sprintf("enum-%d", w.r.Uint64())
		var vals []string
		for range 2 + w.intn(3) {
			if v := cueString(w.name(ns, enumValues, hardKeys, nil)); !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		if len(vals) == 1 {
			// "a" | "a" is the literal "a" to CUE: a star on it marks no
			// default (seed 7100: *"error" | "error" on an optional field).
			return typ{expr: vals[0], kind: "literal", def: vals[0]}
		}
		return typ{strings.Join(vals, " | "), "enum", w.pick(vals), vals}
	case "literal":
		v := cueString(w.name(fmt.Sprintf("lit-%d", w.r.Uint64()), enumValues, hardKeys, nil))
		return typ{expr: v, kind: "literal", def: v}
	case "list":
		item := w.typ(indent, depth+1)
		expr := "[..." + item.expr + "]"
		def := ""
		var limits []string
		lo := 0
		if w.chance(0.4) {
			lo = w.intn(3)
			limits = append(limits, fmt.Sprintf("%s.MinItems(%d)", "list", lo))
		}
		if w.chance(0.4) {
			limits = append(limits, fmt.Sprintf("%s.MaxItems(%d)", "list", lo+w.intn(5)))
		}
		if len(limits) > 0 {
			expr += " & " + strings.Join(limits, " & ")
		}
		if lo == 0 && w.chance(0.2) {
			def = "[]"
		}
		return typ{expr: expr, kind: "list", def: def}
	case "object":
		var b strings.Builder
		b.WriteString("{\n")
		for _, fl := range w.fields(indent+"\t", 0, 3) {
			b.WriteString(fl.text)
		}
		b.WriteString(indent + "}")
		return typ{expr: b.String(), kind: "object"}
	case "object-def":
		d := w.objectDef()
		w.feature("definition")
		return typ{expr: d.name, kind: "object"}
	default: // "object-comprehension"
		var keys []string
		ns := fmt.Sprintf("comp-%d", w.r.Uint64())
		for range 1 + w.intn(2) {
			keys = append(keys, cueString(w.name(ns, fieldNames, hardKeys, nil)))
		}
		w.feature("field-comprehension")
		return typ{expr: fmt.Sprintf("{\n%s\tfor k in [%s] {\n%s\t\t(k)?: string\n%s\t}\n%s}", indent, strings.Join(keys, ", "), indent, indent, indent), kind: "object"}
	}
}

// stringExample is a value of each pattern written, for defaults.
var patterns = []struct{ re, example string }{
	{`^[a-z]+$`, "abc"},
	{`^[A-Z][a-z]*$`, "Abc"},
	{`^\w+$`, "a_1"},
	{`^\d{3}$`, "123"},
	{`^[^/]+$`, "ab"},
	{`^https?://`, "https://x"},
	{`.`, "a"},
	{`^\S+$`, "ab"},
	{`^(a|b)+$`, "ab"},
	{`^\p{L}+$`, "é"},
	{`^.{1,3}$`, "ab"},
	{`^[a-z]+(-[a-z]+)*$`, "a-b"},
}

func (w *writer) stringType() typ {
	switch w.intn(6) {
	case 0:
		return typ{expr: "string", kind: "string", def: cueString(w.pick([]string{"", ".", "abc", "é😀"}))}
	case 1, 2:
		lo, hi := -1, -1
		if w.chance(0.6) {
			lo = w.intn(4)
		}
		if lo < 0 || w.chance(0.6) {
			hi = max(lo, 0) + w.pick2([]int{0, 1, 4, 99, 1000})
		}
		var parts []string
		if lo >= 0 {
			parts = append(parts, fmt.Sprintf("%s.MinRunes(%d)", "strings", lo))
		}
		if hi >= 0 {
			parts = append(parts, fmt.Sprintf("%s.MaxRunes(%d)", "strings", hi))
		}
		if w.chance(0.3) {
			parts = append([]string{"string"}, parts...)
		}
		n := max(lo, 0)
		if hi >= 0 {
			n = min(max(n, 2), hi)
		}
		return typ{expr: strings.Join(parts, " & "), kind: "string", def: cueString(strings.Repeat("é", n))}
	case 3, 4:
		p := patterns[w.intn(len(patterns))]
		w.feature("pattern")
		return typ{expr: "=~" + cueString(p.re), kind: "string", def: cueString(p.example)}
	default:
		name := w.checkDef()
		w.feature("named-check")
		if w.chance(0.5) {
			return typ{expr: name + " & strings.MaxRunes(100)", kind: "string", def: `"a"`}
		}
		return typ{expr: name, kind: "string", def: `"a"`}
	}
}

func (w *writer) pick2(list []int) int { return list[w.intn(len(list))] }

func (w *writer) numberType(kind string) typ {
	type bound struct{ lo, hi string }
	var bs []bound
	if kind == "int" {
		bs = []bound{{"0", "10"}, {"1", "100"}, {"-5", "5"}, {"0", ""}, {"", "1000"}, {"-9007199254740991", "9007199254740991"}, {"0", "1e15"}}
	} else {
		bs = []bound{{"0", "1"}, {"0.5", "2.5"}, {"-1.5", "1.5"}, {"0", ""}, {"", "100"}, {"1e-3", "1e3"}}
	}
	b := bs[w.intn(len(bs))]
	parts := []string{kind}
	def := "1"
	if b.lo != "" {
		parts = append(parts, w.pick([]string{">=", ">"})+b.lo)
	}
	if b.hi != "" {
		parts = append(parts, w.pick([]string{"<=", "<"})+b.hi)
	}
	if b.lo != "" && b.hi != "" && w.chance(0.3) {
		parts = append(parts[1:], kind) // the kind last, as some write it
	}
	if lo, err := strconv.ParseFloat(b.lo, 64); err == nil && lo >= 1 {
		def = "2"
		if kind == "number" {
			def = "2.25"
		}
	}
	if b == (bound{"1e-3", "1e3"}) || b == (bound{"0", "1"}) {
		def = "0.5"
	}
	if len(parts) == 1 && w.chance(0.5) {
		return typ{expr: kind, kind: kind, def: def}
	}
	return typ{expr: strings.Join(parts, " & "), kind: kind, def: def}
}

// checkDef declares (once in a while, else reuses) a named check and
// returns its name.
func (w *writer) checkDef() string {
	if len(w.checks) > 0 && w.chance(0.5) {
		return w.pick(w.checks)
	}
	name := "#" + upperFirst(w.name("def", []string{"relativePath", "slug", "noSpace", "branchName"}, []string{"string", "type", "default", "error", "constructor", "toString"}, identRE.MatchString))
	w.checks = append(w.checks, name)
	f := w.file(w.defsFile())
	f.printf("// %s\n%s: string & !~\"^$\" & !~\"^/\" & !~\"(^|/)\\\\.\\\\.(/|$)\" @check(%s)\n\n", w.text(1), name, cueString("Must be "+w.text(1)))
	return name
}

type objectDef struct {
	name   string
	fields []field
}

// objectDef declares an object definition and returns it.
func (w *writer) objectDef() objectDef {
	name := "#" + upperFirst(w.name("def", []string{"address", "paging", "item", "entry", "options"}, []string{"string", "type", "default", "args", "result", "constructor"}, identRE.MatchString))
	f := w.file(w.defsFile())
	fields := w.fields("\t", 1, 3)
	f.printf("%s: {\n", name)
	for _, fl := range fields {
		f.printf("%s", fl.text)
	}
	f.printf("}\n\n")
	return objectDef{name, fields}
}

// defsFile is where definitions go: a file of their own (not one being
// written while a definition is declared).
func (w *writer) defsFile() string {
	return w.pick([]string{"defs.cue", "types.cue"})
}

// declareModes writes the modes, their standings and prompts, and the
// selection.
func (w *writer) declareModes() {
	f := w.file("modes.cue")
	n := 1 + w.intn(3)
	for range n {
		m := &modeDecl{name: w.name("mode", modeNames, hardIdents, identRE.MatchString), standings: map[string]string{}}
		if len(w.modes) > 0 && w.chance(0.35) {
			m.parent = w.modes[w.intn(len(w.modes))]
		}
		w.modes = append(w.modes, m)
		w.mode(f, m)
	}
	w.selection()
}

// standings in rough proportion to their use.
var standings = []string{"mandatory", "required", "emphasized", "emphasized", "encouraged", "encouraged", "available", "available", "available", "available", "unmentioned", "unmentioned", "unavailable"}

func mentionable(s string) bool { return s != "" && s != "unmentioned" && s != "unavailable" }
func mustMention(s string) bool {
	return s == "mandatory" || s == "required" || s == "emphasized"
}

// inherited returns the tools the prompts m extends mention.
func (m *modeDecl) inherited() []string {
	var out []string
	for p := m.parent; p != nil; p = p.parent {
		out = append(out, p.mentions...)
	}
	return out
}

func (w *writer) mode(f *cueFile, m *modeDecl) {
	byComprehension := w.chance(0.1)
	inherited := m.inherited()
	for _, t := range w.tools {
		switch {
		case byComprehension:
			m.standings[t.name] = "available"
		case slices.Contains(inherited, t.name):
			// The prompt it extends mentions the tool: it must stay mentionable.
			m.standings[t.name] = w.pick([]string{"available", "encouraged", "emphasized"})
		case w.chance(0.7):
			m.standings[t.name] = w.pick(standings)
		}
	}
	f.printf("modes: %s: {\n", w.label(m.name))
	f.printf("\tgoal: %s\n", cueString(w.text(1)))
	f.printf("\tsource_edits: %q\n", w.pick([]string{"forbidden", "encouraged", "allowed"}))
	switch {
	case w.makes("extends-unknown"):
		f.printf("\textends: %s\n", cueString(m.name+"_parent"))
		m.parent = nil
	case m.parent != nil:
		f.printf("\textends: %s\n", cueString(m.parent.name))
	}
	if !byComprehension {
		var ts []string
		for _, t := range w.tools {
			if s := m.standings[t.name]; s != "" {
				ts = append(ts, fmt.Sprintf("\t\t%s: %q\n", w.label(t.name), s))
			}
		}
		if w.makes("unknown-mode-tool") {
			ts = append(ts, "\t\tno_such_tool: \"available\"\n")
		}
		if len(ts) == 0 {
			f.printf("\ttools: {}\n")
		} else {
			// Some standings are given beside their tool, in another file.
			f.printf("\ttools: {\n")
			for _, line := range ts {
				if w.chance(0.15) {
					g := w.file("tools_more.cue")
					g.printf("modes: %s: tools: %s\n", w.label(m.name), strings.TrimSpace(line))
					w.feature("standings-split-over-files")
					continue
				}
				f.printf("%s", line)
			}
			f.printf("\t}\n")
		}
	}
	prompt := w.prompt(m)
	if w.chance(0.15) {
		// A prompt built from a shared let.
		intro := w.cleanText(m)
		f.printf("\tprompt: intro_%s + \"\\n\\n\" + %s\n", strconv.Itoa(len(w.modes)), w.cueText(prompt, "\t"))
		w.file("modes.cue").printf("let intro_%d = %s\n\n", len(w.modes), cueString(intro))
		w.feature("let")
	} else {
		f.printf("\tprompt: %s\n", w.cueText(prompt, "\t"))
	}
	if w.chance(0.3) {
		f.printf("\tcritical: %s\n", w.cueText(w.cleanText(m), "\t"))
	}
	if w.chance(0.3) {
		f.printf("\tagents: %s: prompt: %s\n", w.label(w.pick(w.proxyAgents())), cueString(w.cleanText(m)))
	}
	f.printf("}\n\n")
	if byComprehension {
		w.file("modes.cue").printf("for name, _ in tools {\n\tmodes: %s: tools: (name): \"available\"\n}\n\n", w.label(m.name))
		w.feature("standings-by-comprehension")
	}
}

// forbidden reports whether text mentions a tool the mode must not.
func (w *writer) forbidden(text string, m *modeDecl) bool {
	for _, t := range w.tools {
		tool := &model.Tool{Name: t.name, Aliases: t.aliases, FileName: names.FileName(t.name)}
		if !mentionable(m.standings[t.name]) && load.Mentions(text, tool) {
			return true
		}
	}
	return false
}

// cleanText returns sentences that mention no tool m forbids.
func (w *writer) cleanText(m *modeDecl) string {
	for range 10 {
		if s := w.text(2); !w.forbidden(s, m) {
			return s
		}
	}
	return "Work carefully."
}

// prompt writes a mode's own prompt: sentences, a mention of every tool
// it stresses (by name, alias or file name) and of some it offers, and
// placeholders.
func (w *writer) prompt(m *modeDecl) string {
	parts := []string{w.cleanText(m)}
	inherited := m.inherited()
	var omitted *toolDecl
	for _, t := range w.tools {
		s := m.standings[t.name]
		switch {
		case mustMention(s) && slices.Contains(inherited, t.name) && w.chance(0.5):
		case mustMention(s) && !slices.Contains(inherited, t.name) && w.makes("omits-emphasized"):
			omitted = t
		case mustMention(s) || mentionable(s) && w.chance(0.3):
			n := w.pick(append([]string{t.name, names.FileName(t.name)}, t.aliases...))
			parts = append(parts, fmt.Sprintf("Call %s when it helps.", n))
			m.mentions = append(m.mentions, t.name)
		}
	}
	if len(w.promptParams) > 0 && w.chance(0.6) {
		parts = append(parts, fmt.Sprintf("You work on {{%s}}.", w.pick(w.promptParams)))
	}
	if w.makes("unknown-placeholder") {
		parts = append(parts, "See {{no_such_param}}.")
	}
	text := strings.Join(parts, w.pick([]string{" ", "\n", "\n\n"}))
	if omitted != nil && load.Mentions(text, &model.Tool{Name: omitted.name, Aliases: omitted.aliases, FileName: names.FileName(omitted.name)}) {
		w.made = "" // mentioned all the same, by another tool's mention or a word
	}
	return text
}

func (w *writer) proxyAgents() []string {
	if w.agents == nil {
		w.agents = agentNames
		if w.chance(0.2) {
			w.agents = []string{"build", w.name("proxy-agent", []string{"plan", "review_bot"}, hardAgents, agentRE.MatchString)}
			w.feature("proxy-agents")
		}
	}
	return w.agents
}

// selectionValues are what a rule compares an attribute with.
var selectionValues = []string{"setup", "automation", "review", "", "Setup", "é", "e\u0301", "a\"b", "\\", "${x}", "0", "true", "null", "constructor", "__proto__", "line\nbreak", "😀", "\u2028"}

func (w *writer) selection() {
	f := w.file(w.pick([]string{"contract.cue", "modes.cue"}))
	var inputs []string
	for range w.intn(4) {
		inputs = append(inputs, w.name("input", inputNames, hardIdents, identRE.MatchString))
	}
	f.printf("selection: {\n\tinputs: {\n")
	for _, in := range inputs {
		f.printf("\t\t%s: %s\n", w.label(in), cueString(w.text(1)))
	}
	f.printf("\t}\n\trules: [\n")
	if len(inputs) > 0 {
		for range w.intn(4) {
			var when []string
			for _, in := range inputs {
				if len(when) == 0 || w.chance(0.3) {
					when = append(when, w.label(in)+": "+cueString(w.pick(selectionValues)))
				}
			}
			mode := w.pick(w.modeNames())
			if w.makes("unknown-rule-mode") {
				mode = "nomode"
			}
			f.printf("\t\t{when: {%s}, mode: %s},\n", strings.Join(when, ", "), cueString(mode))
		}
	}
	f.printf("\t]\n\tdefault: %s\n}\n\n", cueString(w.pick(w.modeNames())))
}

func (w *writer) modeNames() []string {
	var out []string
	for _, m := range w.modes {
		out = append(out, m.name)
	}
	return out
}

// declareContract writes the rest of contract.cue: the contract, codegen,
// callback, opencode, model parameters, experiments and the proxy.
func (w *writer) declareContract() {
	f := w.file("contract.cue")
	f.printf("contract: {\n\tname: %s\n\trevision: %s\n\tsummary: %s\n}\n\n",
		cueString(w.name("contract", []string{"example", "agent", "acme_bot"}, hardIdents, identRE.MatchString)),
		cueString(w.pick([]string{"1", "001", "2.0-beta"})), w.cueText(w.text(3), ""))
	goDir := w.pick([]string{"go/contract", "go/contract", "gateway/contract", "go/agent"})
	goPkg := w.pick([]string{"contract", "agent", "api"})
	if w.chance(w.hard / 3) {
		goPkg = w.pick([]string{"main", "string", "error", "fmt", "type", "func", "go", "len", "contractmcp"})
		w.feature("hard-name")
	}
	f.printf("codegen: {\n\tout: \"generated\"\n\tgo: {dir: %q, package: %q, import: %q}\n", goDir, goPkg, scratch.Path+"/"+w.tree+"/"+goDir)
	if w.chance(0.3) {
		f.printf("\tmcp: {}\n")
		w.feature("mcp")
	}
	f.printf("}\n\n")
	f.printf("callback: {\n\tpath: %q\n", w.pick([]string{"/agent/{sessionId}/tools/{toolName}", "/proliferate/{sessionId}/tools/{toolName}", "/hooks/{toolName}/{sessionId}"}))
	f.printf("\tretry_on: [\"ECONNRESET\", \"fetch failed\", \"AbortError\"]\n")
	f.printf("\tenv: {gateway_url: \"AGENT_GATEWAY_URL\", session_id: \"AGENT_SESSION_ID\", auth_token: \"AGENT_GATEWAY_TOKEN\"}\n}\n\n")
	f.printf("opencode: {\n\tconfig_paths: [\"opencode.json\"]\n\tplugin_version: \"1.18.33\"\n\tconfig: {\n")
	f.printf("\t\t\"$schema\": \"https://opencode.ai/config.json\"\n\t\tprovider: anthropic: options: apiKey: \"{env:ANTHROPIC_API_KEY}\"\n\t}\n}\n\n")
	w.modelParams(f)
	w.experiments(f)
	switch agents := w.proxyAgents(); {
	case len(agents) == len(agentNames) && w.chance(0.7):
		f.printf("proxy: {}\n")
	default:
		var quoted []string
		for _, a := range agents {
			quoted = append(quoted, cueString(a))
		}
		f.printf("proxy: {\n\tpath: \"/prompt\"\n\ttimeout_ms: %d\n\tagents: [%s]\n}\n", 100+w.intn(900), strings.Join(quoted, ", "))
	}
}

// params returns the fields of a #Params layer.
func (w *writer) params() []string {
	var parts []string
	if w.chance(0.6) {
		parts = append(parts, "temperature: "+w.pick([]string{"0", "0.2", "0.5", "1", "1.0", "2", "1.5"}))
	}
	if w.chance(0.4) {
		parts = append(parts, "top_p: "+w.pick([]string{"0.1", "0.95", "1", "1e-1"}))
	}
	if w.chance(0.3) {
		key := w.name(fmt.Sprintf("option-%d", w.r.Uint64()), []string{"thinking", "maxTokens", "reasoningEffort"}, hardKeys, nil)
		val := w.pick([]string{`{type: "enabled", budgetTokens: 4000}`, "1.0", "1e2", `"high"`, "true", `[1, "two", {three: 3}]`})
		parts = append(parts, fmt.Sprintf("options: %s: %s", w.label(key), val))
	}
	return parts
}

// layer writes a #Params layer as a struct on one line.
func (w *writer) layer() string { return "{" + strings.Join(w.params(), ", ") + "}" }

func (w *writer) modelParams(f *cueFile) {
	f.printf("model_params: {\n")
	for _, p := range w.params() {
		f.printf("\t%s\n", p)
	}
	if w.chance(0.5) {
		f.printf("\tmodels: %s: %s\n", w.label(w.pick(w.models)), w.layer())
	}
	if w.chance(0.4) {
		f.printf("\tmodels: %s: modes: %s: %s\n", w.label(w.pick(w.models)), w.label(w.pick(w.modeNames())), w.layer())
	}
	if w.chance(0.5) {
		f.printf("\tmodes: %s: %s\n", w.label(w.pick(w.modeNames())), w.layer())
	}
	f.printf("}\n\n")
}

func (w *writer) experiments(f *cueFile) {
	for range w.intn(3) {
		name := w.name("experiment", []string{"short_answers", "coding_focus", "tone"}, hardIdents, identRE.MatchString)
		var modes []*modeDecl
		var quoted []string
		for _, m := range w.modes {
			if w.chance(0.4) {
				modes = append(modes, m)
				quoted = append(quoted, cueString(m.name))
			}
		}
		if len(modes) == 0 {
			modes = w.modes // every mode
		}
		f.printf("experiments: %s: {\n\tdoc: %s\n\tmodes: [%s]\n", w.label(name), cueString(w.text(1)), strings.Join(quoted, ", "))
		if w.chance(0.3) {
			f.printf("\tagents: [%s]\n", cueString(w.pick(w.proxyAgents())))
		}
		f.printf("\tvariants: {\n")
		ns := fmt.Sprintf("variant-%d", w.r.Uint64())
		total := 0
		for i := range 1 + w.intn(3) {
			weight := w.intn(4)
			if i == 0 && weight == 0 {
				weight = 1
			}
			total += weight
			f.printf("\t\t%s: {\n\t\t\tweight: %d\n", w.label(w.name(ns, []string{"control", "short", "focused", "terse"}, hardIdents, identRE.MatchString)), weight)
			if w.chance(0.5) {
				text := ""
				for range 10 {
					text = w.text(1)
					if len(w.promptParams) > 0 && w.chance(0.3) {
						text += fmt.Sprintf(" For {{%s}}.", w.pick(w.promptParams))
					}
					if !slices.ContainsFunc(modes, func(m *modeDecl) bool { return w.forbidden(text, m) }) {
						break
					}
				}
				f.printf("\t\t\tprompt: %s\n", cueString(text))
			}
			if w.chance(0.4) {
				f.printf("\t\t\tparams: %s\n", w.layer())
			}
			f.printf("\t\t}\n")
		}
		f.printf("\t}\n}\n\n")
		w.feature("experiment")
	}
}

// TestWriterIsDeterministic: a seed always writes the same spec, so that a
// failing seed reproduces.
func TestWriterIsDeterministic(t *testing.T) {
	t.Parallel()
	for seed := range uint64(50) {
		a, b := writeSpec(seed, "s"), writeSpec(seed, "s")
		if !maps.EqualFunc(a.files, b.files, bytes.Equal) {
			t.Fatalf("seed %d writes two different specs", seed)
		}
	}
}

// TestWriterCoversTheConstructs: among the specs of seeds 1–200, vet
// accepts some with each construct the writer claims to write, and each
// mistake is made (and a hidden field's label written).
func TestWriterCoversTheConstructs(t *testing.T) {
	t.Parallel()
	accepted := map[string]int{}
	made := map[string]int{}
	n := 0
	for seed := uint64(1); seed <= 200; seed++ {
		w := writeSpec(seed, "s")
		made[w.mistake]++
		for _, f := range w.features {
			made[f]++ // written, accepted or not
		}
		s, err := load.Load(load.Bytes("spec", w.files))
		if err != nil || emit.Check(s, emitters.All()).Err() != nil {
			continue
		}
		n++
		for _, f := range w.features {
			accepted[f]++
		}
	}
	if made["unquoted-underscore-label"] == 0 {
		t.Errorf("no spec has an unquoted label with a leading '_'")
	}
	for _, f := range []string{
		"twin", "hard-name", "multiline-string", "tools-split-over-files",
		"args-split-over-files", "standings-split-over-files", "models-own-file", "tools-by-comprehension",
		"field-comprehension", "standings-by-comprehension", "embedding", "definition", "named-check", "pattern",
		"default-string", "default-int", "default-number", "default-bool", "default-enum", "default-literal",
		"let", "mcp", "experiment", "proxy-agents",
	} {
		if accepted[f] == 0 {
			t.Errorf("no spec vet accepts has %s", f)
		}
	}
	for _, m := range mistakes {
		if made[m] == 0 {
			t.Errorf("no spec makes the mistake %s", m)
		}
	}
	t.Logf("%d of 200 specs accepted; constructs in them: %v", n, accepted)
}
