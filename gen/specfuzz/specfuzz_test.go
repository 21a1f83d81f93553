// Package specfuzz is issue 21's generative test: it writes specs the way
// people write them (write_test.go: names from the hard sets, unions,
// defaults on every kind, definitions, embeddings, comprehensions, fields
// split over files, now and then a mistake) and holds agentc to its promise
// on each. For every spec vet accepts: gen succeeds, go vet and tsc
// --strict pass on the output, the generated Go decoders and zod schemas
// agree on generated argument cases (decision, issues and their order,
// data), each tool's JSON Schema is zod's toJSONSchema of its schema, and
// the generated Go and TypeScript agree on mode selection, prompts, model
// IDs, agents and the prompt proxy's resolution. For every spec vet
// rejects: each finding is positioned in one of the spec's files.
//
// TestSpecFuzz runs a bounded slice in `go test`; `make fuzz` runs it for
// FUZZTIME with -specfuzz.time. A failing spec prints its seed; rerun it
// with -specfuzz.seed=SEED -specfuzz.n=1, and find its files (written on
// failure) in the directory the log names.
package specfuzz

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/diag"
	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/emitters"
	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	"github.com/agentc-dev/agentc/gen/internal/scratch"
	"github.com/agentc-dev/agentc/gen/jsonschema"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/opencodelayout"
)

var (
	flagSeed  = flag.Uint64("specfuzz.seed", 1, "the first spec's seed")
	flagN     = flag.Int("specfuzz.n", sliceN, "how many specs to write (when -specfuzz.time is 0)")
	flagTime  = flag.Duration("specfuzz.time", 0, "write specs, batch after batch, for this long (make fuzz); seeds start at -specfuzz.seed")
	flagBatch = flag.Int("specfuzz.batch", 10, "specs per scratch module (one go vet, one tsc, one harness each)")
	flagCases = flag.Int("specfuzz.cases", 80, "argument cases per tool, at most")
)

// sliceN is the number of specs of the bounded slice go test runs, seeds
// 1 to sliceN.
const sliceN = 8

// The classes of failure.
const (
	classUnpositioned = "unpositioned finding"
	classClean        = "clean spec rejected"
	classMistake      = "mistake accepted"
	classDropped      = "argument dropped"
	classGen          = "gen fails"
	classCase         = "paths differ only in case"
	classGoVet        = "go vet"
	classTSC          = "tsc --strict"
	classDecode       = "go≠zod decode"
	classSchema       = "schema≠toJSONSchema"
	classSelect       = "go≠ts select"
	classPrompt       = "go≠ts prompt"
	classModel        = "go≠ts model"
	classAgent        = "go≠ts agent"
	classResolve      = "go≠ts prompt proxy"
	classHarness      = "harness"
)

// A known failure: a class, and the kinds (a regular expression) of it,
// that seeds of the bounded slice (-specfuzz.seed=1, -specfuzz.n=8) show
// today, with what is wrong. TestSpecFuzz fails when one of them stops
// failing (remove it then) and when a seed fails otherwise; a longer run
// (make fuzz) counts a failure that matches a known class and kind as
// known, and fails on the others.
type known struct {
	class, kind string
	seeds       []uint64
	note        string
}

// matches reports whether the failure is of this class and kind.
func (k known) matches(f failure) bool {
	return k.class == f.class && regexp.MustCompile(`^(?:`+k.kind+`)$`).MatchString(f.kind)
}

var knownFailures = []known{}

// A failure is one thing that went wrong with one spec.
type failure struct {
	seed              uint64
	class, kind, what string
}

// specRun is one written spec on its way through the test.
type specRun struct {
	w     *written
	tree  string
	spec  *model.Spec
	files []emit.File
	// vetted is set when its Go passed go vet (the harness imports it).
	vetted bool
	// rejection is vet's findings when it rejects the spec.
	rejection string
}

func (sp *specRun) file(p string) []byte {
	for _, f := range sp.files {
		if f.Path == p {
			return f.Data
		}
	}
	return nil
}

type stats struct {
	specs, accepted, rejected int
	// probes are the comparisons made, cases those of argument cases.
	probes, cases int
}

func TestSpecFuzz(t *testing.T) {
	began := time.Now()
	tc := toolchain{nodetool.Dir(t), nodetool.Node(t), nodetool.Tsc(t)}
	var st stats
	var failures []failure
	seed := *flagSeed
	for {
		n := *flagBatch
		if *flagTime == 0 {
			n = min(n, int(*flagSeed)+*flagN-int(seed))
		}
		if n <= 0 || *flagTime > 0 && time.Since(began) > *flagTime {
			break
		}
		var seeds []uint64
		for i := range n {
			seeds = append(seeds, seed+uint64(i))
		}
		seed += uint64(n)
		failures = append(failures, runBatch(t, tc, seeds, &st)...)
		if t.Failed() {
			break
		}
	}
	t.Logf("%d specs (seeds %d–%d): %d accepted, %d rejected; %d comparisons, %d of them argument cases; %v",
		st.specs, *flagSeed, seed-1, st.accepted, st.rejected, st.probes, st.cases, time.Since(began).Round(time.Second))
	check(t, failures, *flagTime == 0 && *flagSeed == 1 && *flagN == sliceN)
}

// check reports the failures: in the bounded slice (exact) each seed's
// classes must be those knownFailures lists for it; otherwise a failure
// is known when a known entry has its class and kind.
func check(t *testing.T, failures []failure, exact bool) {
	type key struct {
		seed        uint64
		class, kind string
	}
	got := map[key]failure{}
	for _, f := range failures {
		k := key{f.seed, f.class, f.kind}
		if _, ok := got[k]; !ok {
			got[k] = f
		}
	}
	isKnown := func(f failure) *known {
		for i, k := range knownFailures {
			if k.matches(f) && (!exact || slices.Contains(k.seeds, f.seed)) {
				return &knownFailures[i]
			}
		}
		return nil
	}
	counts := map[string]map[uint64]bool{} // known entry → the seeds that show it
	kept := map[uint64]bool{}
	for _, k := range slices.SortedFunc(maps.Keys(got), func(a, b key) int {
		return cmp.Or(cmp.Compare(a.seed, b.seed), cmp.Compare(a.class, b.class), cmp.Compare(a.kind, b.kind))
	}) {
		f := got[k]
		if kn := isKnown(f); kn != nil {
			name := kn.class + " (" + kn.kind + ")"
			if counts[name] == nil {
				counts[name] = map[uint64]bool{}
			}
			counts[name][f.seed] = true
			t.Logf("seed %d: known: %s (%s): %s", f.seed, f.class, f.kind, firstLine(f.what))
			continue
		}
		t.Errorf("seed %d: %s (%s):\n%s", f.seed, f.class, f.kind, f.what)
		if !kept[f.seed] {
			keep(t, f.seed)
			kept[f.seed] = true
		}
	}
	if !exact {
		for _, k := range slices.Sorted(maps.Keys(counts)) {
			t.Logf("known %s: %d specs", k, len(counts[k]))
		}
		return
	}
	for _, k := range knownFailures {
		for _, s := range k.seeds {
			found := false
			for _, f := range got {
				found = found || f.seed == s && k.matches(f)
			}
			if !found {
				t.Errorf("seed %d no longer fails %s (%s): remove it from knownFailures", s, k.class, k.kind)
			}
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// toolchain is the pinned Node toolchain: node_modules, node and tsc.
type toolchain struct{ modules, node, tsc string }

// runBatch writes, vets and generates the specs of seeds, builds their
// output in one scratch module and runs the comparisons.
func runBatch(t *testing.T, tc toolchain, seeds []uint64, st *stats) []failure {
	var failures []failure
	fail := func(sp *specRun, class, kind, what string) {
		failures = append(failures, failure{sp.w.seed, class, kind, what})
	}
	began := time.Now()
	var runs []*specRun
	for _, seed := range seeds {
		sp := &specRun{w: writeSpec(seed, fmt.Sprintf("s%d", seed)), tree: fmt.Sprintf("s%d", seed)}
		st.specs++
		vetAndGenerate(sp, fail)
		if sp.spec != nil {
			st.accepted++
			t.Logf("seed %d: accepted, with hard names %q; %v", seed, hardNamesIn(sp.spec), sp.w.features)
		} else {
			st.rejected++
			t.Logf("seed %d: rejected (mistake %q): %s", seed, sp.w.mistake, firstLine(sp.rejection))
		}
		if sp.files != nil {
			runs = append(runs, sp)
		}
	}
	if len(runs) == 0 {
		return failures
	}
	mod := scratch.New(t)
	if err := mod.LinkNodeModules(tc.modules); err != nil {
		t.Fatal(err)
	}
	tsDirs := map[string][]string{}
	for _, sp := range runs {
		mod.Add(t, sp.tree, sp.files)
		tsDirs[sp.tree] = []string{sp.spec.Codegen.OpenCodeDir, sp.spec.Codegen.TSDir}
	}
	t.Logf("batch %d–%d: vet and gen in %v", seeds[0], seeds[len(seeds)-1], time.Since(began).Round(time.Millisecond))
	began = time.Now()
	// go vet and tsc at once: one core each.
	var vet, ts scratch.Findings
	var vetErr, tsErr error
	var wg sync.WaitGroup
	wg.Go(func() { vet, vetErr = mod.GoVet() })
	wg.Go(func() { ts, tsErr = mod.TSC(tc.node, tc.tsc, tsDirs) })
	wg.Wait()
	if err := errors.Join(vetErr, tsErr); err != nil {
		t.Fatal(err)
	}
	t.Logf("batch %d–%d: go vet and tsc --strict of %d specs in %v", seeds[0], seeds[len(seeds)-1], len(runs), time.Since(began).Round(time.Millisecond))
	began = time.Now()
	var vetted []*specRun
	for _, sp := range runs {
		if lines := vet[sp.tree]; len(lines) > 0 {
			for kind, ls := range byKind(lines, goVetKind) {
				fail(sp, classGoVet, kind, strings.Join(ls, "\n"))
			}
		} else {
			sp.vetted = true
			vetted = append(vetted, sp)
		}
		for kind, ls := range byKind(ts[sp.tree], tscKind) {
			fail(sp, classTSC, kind, strings.Join(ls, "\n"))
		}
	}
	if len(vet[""])+len(ts[""]) > 0 {
		t.Fatalf("findings outside the specs' trees:\n%s", strings.Join(slices.Concat(vet[""], ts[""]), "\n"))
	}
	failures = append(failures, compare(t, mod, tc.node, runs, vetted, st)...)
	t.Logf("batch %d–%d: harness built and probes compared in %v", seeds[0], seeds[len(seeds)-1], time.Since(began).Round(time.Millisecond))
	return failures
}

// vetAndGenerate vets the spec as agentc vet does (the loader, then every
// emitter's check) and, when vet accepts it, generates it as agentc gen
// does.
func vetAndGenerate(sp *specRun, fail func(*specRun, string, string, string)) {
	w := sp.w
	s, err := load.Load(load.Bytes("spec", w.files))
	if err == nil {
		err = emit.Check(s, emitters.All()).Err()
	}
	if err != nil {
		sp.rejection = err.Error()
		for _, e := range diag.Errors(err) {
			file, _ := strings.CutPrefix(e.Pos.File, "spec/")
			if _, ok := w.files[file]; !ok || !strings.HasSuffix(file, ".cue") || e.Pos.Line <= 0 || e.Pos.Col <= 0 {
				fail(sp, classUnpositioned, messageKind(e.Msg), e.Error())
			}
		}
		if w.clean() {
			fail(sp, classClean, messageKind(diag.Errors(err)[0].Msg), err.Error())
		}
		return
	}
	sp.spec = s
	if w.mistake != "" {
		fail(sp, classMistake, w.mistake, "vet accepts a spec that makes the mistake "+w.mistake)
	}
	for _, decl := range w.tools {
		t := s.Tool(decl.name)
		if t == nil {
			fail(sp, classDropped, "tool", fmt.Sprintf("tool %q is not in the model", decl.name))
			continue
		}
		var got []string
		for _, f := range t.Args.Fields {
			got = append(got, f.Name)
		}
		var missing, extra []string
		for _, n := range decl.fields {
			if !slices.Contains(got, n) {
				missing = append(missing, n)
			}
		}
		for _, n := range got {
			if !slices.Contains(decl.fields, n) {
				extra = append(extra, n)
			}
		}
		if len(missing) > 0 {
			kind := "argument"
			if len(extra) > 0 {
				kind = "argument renamed"
			}
			fail(sp, classDropped, kind, fmt.Sprintf("tool %q: the spec declares arguments %+q the model lacks; it has %+q instead", decl.name, missing, extra))
		}
	}
	files, err := emit.Generate(s, emitters.All(), emit.Options{})
	if err != nil {
		fail(sp, classGen, "gen", err.Error())
		return
	}
	seen := map[string]string{}
	for _, f := range files {
		low := strings.ToLower(f.Path)
		if other, ok := seen[low]; ok {
			fail(sp, classCase, "path", fmt.Sprintf("%s and %s are one file where case does not count (macOS, Windows)", other, f.Path))
		}
		seen[low] = f.Path
	}
	sp.files = files
}

// hardNamesIn returns the names from the hard sets that a spec vet
// accepted holds: tools, aliases, fields, enum values, modes, selection
// inputs, prompt parameters, models.
func hardNamesIn(s *model.Spec) []string {
	found := map[string]bool{}
	see := func(n string) {
		if slices.Contains(hardKeys, n) {
			found[n] = true
		}
	}
	var walk func(t *model.Type)
	walk = func(t *model.Type) {
		for _, f := range t.Fields {
			see(f.Name)
			walk(f.Type)
		}
		for _, e := range t.Enum {
			see(e)
		}
		if t.Items != nil {
			walk(t.Items)
		}
	}
	for _, t := range s.Tools {
		for _, n := range t.AllNames() {
			see(n)
		}
		walk(t.Args)
		if t.Result != nil {
			walk(t.Result)
		}
	}
	for _, m := range s.Modes {
		see(m.Name)
	}
	for _, in := range s.Selection.Inputs {
		see(in.Name)
	}
	for _, p := range s.PromptParams {
		see(p.Name)
	}
	for _, m := range s.Models {
		see(m.Canonical)
	}
	return slices.Sorted(maps.Keys(found))
}

// clean reports whether the spec draws no name from the hard sets and
// makes no mistake: vet must accept it.
func (w *written) clean() bool { return w.hard == 0 && w.mistake == "" }

// buildHarness builds the Go harness's main package (harness/ in mod)
// and returns the executable's path.
func buildHarness(mod *scratch.Module) (string, error) {
	bin := filepath.Join(mod.Dir, "bin", "harness")
	cmd := exec.Command("go", "build", "-o", bin, "./harness")
	cmd.Dir = mod.Dir
	cmd.Env = scratch.GoEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
}

// compare runs the probes of every accepted spec through the Go harness
// (the specs whose Go vets) and the node runner and compares the answers.
func compare(t *testing.T, mod *scratch.Module, node string, runs, vetted []*specRun, st *stats) []failure {
	var failures []failure
	var all []*probe
	for _, sp := range runs {
		r := rand.New(rand.NewPCG(sp.w.seed, 0xca5e5))
		all = append(all, probes(sp, mod.Dir, r, *flagCases)...)
	}
	// The Go side: only the specs whose Go vets are in the harness.
	var goReqs []request
	var goIdx []int
	if len(vetted) > 0 {
		mod.Write(t, "harness/main.go", harnessSource(vetted))
		for i, p := range all {
			if p.goReq != nil && p.sp.vetted {
				goReqs = append(goReqs, *p.goReq)
				goIdx = append(goIdx, i)
			}
		}
	}
	goAnswers := make([]*answer, len(all))
	if len(goReqs) > 0 {
		bin, err := buildHarness(mod)
		if err != nil {
			t.Fatalf("the Go harness does not build:\n%v", err)
		}
		as, err := runLines(exec.Command(bin), goReqs)
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range as {
			goAnswers[goIdx[i]] = &a
		}
	}
	if err := copyRunner(mod.Dir); err != nil {
		t.Fatal(err)
	}
	var tsReqs []request
	for _, p := range all {
		tsReqs = append(tsReqs, p.tsReq)
	}
	cmd := exec.Command(node, "runner.mjs")
	cmd.Dir = mod.Dir
	tsAnswers, err := runLines(cmd, tsReqs)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range all {
		ts := tsAnswers[i]
		if ts.Error != "" {
			failures = append(failures, failure{p.sp.w.seed, classHarness, "node", p.tsReq.Op + " " + p.tsReq.Module + ": " + ts.Error})
			continue
		}
		if p.goReq != nil && goAnswers[i] == nil {
			continue // the spec's Go does not vet (reported)
		}
		st.probes++
		if p.class == classDecode {
			st.cases++
		}
		if what := differ(p, goAnswers[i], ts); what != "" {
			kind := p.kind
			if strings.Contains(what, "[native code]") {
				// TypeScript read a property every object inherits.
				kind = "inherited property"
			}
			if g := goAnswers[i]; p.class == classDecode && g.OK && ts.OK && g.Issues == ts.Issues {
				// Both accept: the decoded data differ, whatever the probe.
				kind = "data values"
				if !slices.Equal(keysOf(g.Data), keysOf(ts.Data)) {
					kind = "data keys"
				}
			}
			failures = append(failures, failure{p.sp.w.seed, p.class, kind, what})
		}
	}
	return failures
}

// differ compares one probe's answers and says how they differ ("" when
// they agree).
func differ(p *probe, g *answer, ts answer) string {
	show := func(what string, gv, tv any) string {
		return fmt.Sprintf("%s\ngo: %s\nts: %s", what, short(fmt.Sprint(gv)), short(fmt.Sprint(tv)))
	}
	in := fmt.Sprintf("tool %q input %s", p.goReqTool(), short(string(p.tsReq.Input)))
	switch p.class {
	case classSchema:
		want, err1 := jsonschema.Canonical(p.want)
		got, err2 := jsonschema.Canonical([]byte(ts.Schema))
		if err := errors.Join(err1, err2); err != nil {
			return "canonical: " + err.Error()
		}
		if string(want) != string(got) {
			return fmt.Sprintf("%s: the generated JSON Schema differs from zod's toJSONSchema\ngenerated: %s\nzod:       %s", p.tsReq.Module, short(string(want)), short(string(got)))
		}
	case classDecode:
		if g.Error != "" {
			return in + "\ngo harness: " + g.Error
		}
		type verdict struct {
			Syntax, OK   bool
			Issues, Data string
		}
		args := p.sp.spec.Tool(p.goReq.Tool).Args
		gv := verdict{g.Syntax, g.OK, g.Issues, canonical(g.Data)}
		tv := verdict{ts.Syntax, ts.OK, ts.Issues, intNegativeZero(args, canonical(ts.Data))}
		if gv != tv {
			return show(in, gv, tv)
		}
		if p.kind == "valid-minimal" || p.kind == "valid-full" {
			if !gv.OK {
				return show(in+": both reject a valid value", gv, tv)
			}
		}
	case classSelect:
		if g.Mode != ts.Mode || g.Error != "" {
			return show(fmt.Sprintf("SelectMode(%q)", p.goReq.Values), g.Mode+g.Error, ts.Mode)
		}
	case classPrompt:
		if g.Prompt != ts.Prompt || g.Critical != ts.Critical || g.Failed || g.Error != "" {
			return show(fmt.Sprintf("BuildSystemPrompt(%q, %q, custom %q) / CriticalInstructions", p.goReq.Mode, p.goReq.Values, p.goReq.Custom),
				fmt.Sprintf("%q / %q failed=%v %s", g.Prompt, g.Critical, g.Failed, g.Error), fmt.Sprintf("%q / %q", ts.Prompt, ts.Critical))
		}
	case classModel:
		str := func(a answer) string {
			s := func(p *string) string {
				if p == nil {
					return "error"
				}
				return fmt.Sprintf("%q", *p)
			}
			return fmt.Sprintf("opencode %s api %s fromOpencode %s fromApi %s %s", s(a.OpenCode), s(a.API), s(a.FromOpenCode), s(a.FromAPI), a.Error)
		}
		if str(*g) != str(ts) {
			return show(fmt.Sprintf("model ID %q", p.goReq.ID), str(*g), str(ts))
		}
	case classAgent:
		str := func(a answer) string {
			d := "error"
			if a.Default != nil {
				d = *a.Default
			}
			return fmt.Sprintf("default %s models %q %s", d, a.Models, a.Error)
		}
		if str(*g) != str(ts) {
			return show(fmt.Sprintf("agent %q", p.goReq.ID), str(*g), str(ts))
		}
	case classResolve:
		if g.Failed || g.Error != "" || canonical(g.Response) != canonical(ts.Response) {
			return show(fmt.Sprintf("ResolvePrompt / resolveLocal of %s", p.goReq.Req), fmt.Sprintf("%s failed=%v %s", g.Response, g.Failed, g.Error), ts.Response)
		}
	}
	return ""
}

// keysOf returns the object keys in JSON data, at every depth, sorted.
func keysOf(data string) []string {
	var v any
	_ = json.Unmarshal([]byte(data), &v)
	var keys []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				keys = append(keys, k)
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	slices.Sort(keys)
	return keys
}

func (p *probe) goReqTool() string {
	if p.goReq != nil {
		return p.goReq.Tool
	}
	return ""
}

func short(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

// messageKind is a message with its quoted parts, which name things of
// one spec, as X.
func messageKind(msg string) string {
	msg = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`).ReplaceAllString(msg, "X")
	return regexp.MustCompile(`\S+\.cue:\d+:\d+`).ReplaceAllString(msg, "FILE:LINE:COL")
}

// byKind groups a compiler's error lines by their kind (lines of no kind,
// such as go vet's "# package" headers, are left out).
func byKind(lines []string, kind func(string) string) map[string][]string {
	out := map[string][]string{}
	for _, l := range lines {
		if k := kind(l); k != "" {
			out[k] = append(out[k], l)
		}
	}
	return out
}

// tscKind is the file and TypeScript error code of one of tsc's errors
// ("modes.ts TS6133"; "tool TS2322" for a tool's file).
func tscKind(line string) string {
	if m := regexp.MustCompile(`^(\S+)\(\d+,\d+\): error (TS\d+)`).FindStringSubmatch(line); m != nil {
		return fileKind(m[1]) + " " + m[2]
	}
	return ""
}

// goVetKind is the file and message of one of go vet's errors, the
// message's names as X ("tools.go X imported and not used").
func goVetKind(line string) string {
	if m := regexp.MustCompile(`^(?:vet: )?(\S+\.go):\d+:\d+: (.*)$`).FindStringSubmatch(line); m != nil {
		msg := regexp.MustCompile(`"[^"]*"|\b[A-Za-z_]*[A-Z0-9_][A-Za-z0-9_.]*\b`).ReplaceAllString(m[2], "X")
		return fileKind(m[1]) + " " + msg
	}
	return ""
}

// fileKind names a generated file for a kind: its base name, or "tool"
// for a tool's file, whose name is the tool's.
func fileKind(p string) string {
	if strings.Contains(p, "/"+opencodelayout.ToolSubdir+"/") {
		return "tool"
	}
	return path.Base(p)
}

// keep writes a failing spec's files (written again: a seed always writes
// the same spec) where they outlive the test, and logs where.
func keep(t *testing.T, seed uint64) {
	tree := fmt.Sprintf("s%d", seed)
	w := writeSpec(seed, tree)
	dir := filepath.Join(os.TempDir(), "specfuzz", tree)
	if err := os.RemoveAll(dir); err != nil {
		t.Log(err)
	}
	for name, b := range w.files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
			_ = os.WriteFile(p, b, 0o644)
		}
	}
	t.Logf("seed %d: the spec is in %s (rerun: go test ./gen/specfuzz -run TestSpecFuzz -specfuzz.seed=%d -specfuzz.n=1); features %v",
		seed, dir, seed, w.features)
}
