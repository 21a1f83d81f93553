package conformance

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/gogen"
	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	agentcload "github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
)

// The coverage spec (gen/tsgen/testdata/coverage) has every argument
// construct the default spec lacks: numbers and ints with inclusive and
// exclusive bounds, patterns (one whose '.', '\s' and '\w' RE2 and
// ECMAScript read differently), a named check with =~ and !~, enums,
// literals, defaults, nested lists and objects and quoted keys. Its Go
// decoders are generated in memory and built into a small program in a
// temporary module (covGo); its corpus is testdata/corpus/coverage.

// knownDisagreements lists the coverage corpus inputs ("tool<TAB>input")
// on which the executors are known to differ, each with the reason: bugs
// in gen/gogen or gen/zod not fixed yet. conform logs them instead of
// failing, and fails when one of them no longer differs.
var knownDisagreements = map[string]string{}

// coverageDir is the coverage spec's directory.
func coverageDir(t testing.TB) string {
	return filepath.Join(nodetool.ModuleRoot(t), "gen", "tsgen", "testdata", "coverage")
}

// coverageSpec loads the coverage spec's model.
func coverageSpec(t testing.TB) *model.Spec {
	t.Helper()
	src, err := agentcload.Dir(coverageDir(t))
	if err != nil {
		t.Fatal(err)
	}
	s, err := agentcload.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCoverageConformance runs the coverage corpus through the coverage
// spec's generated Go, its generated zod and CUE, and demands the same
// answers (but for knownDisagreements).
func TestCoverageConformance(t *testing.T) {
	s := coverageSpec(t)
	cases := readCorpusDir(t, filepath.Join("testdata", "corpus", "coverage"))
	if len(cases) < 250 {
		t.Errorf("coverage corpus has %d cases, want at least 250", len(cases))
	}
	goProc := startCovGo(t, s)
	zod := startZod(t, s)
	cx := newCUE(t, coverageDir(t))
	conform(t, s, cases, goProc.run, zod, cx, knownDisagreements)
}

// TestCoverageCorpusUpToDate checks (or with -update rewrites) the
// coverage corpus.
func TestCoverageCorpusUpToDate(t *testing.T) {
	s := coverageSpec(t)
	dir := filepath.Join("testdata", "corpus", "coverage")
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tool := range s.Tools {
		path := filepath.Join(dir, "generated_"+tool.FileName+".txt")
		want := renderCases("TestCoverageCorpusUpToDate", tool.Name, coverageCases(tool))
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is stale; run go test ./gen/conformance -run TestCoverageCorpusUpToDate -update", path)
		}
	}
}

// covGoMain is the program built with the coverage spec's generated Go
// package: one JSON request {"tool","input"} (input in base64) per line on
// stdin, one answer per line on stdout. issues and data are JSON texts
// carried as strings, so that they reach the test byte for byte as the
// in-process executor (runGo) sees them.
const covGoMain = `package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"conformancecov/contract"
)

var decoders = map[string]func([]byte) (any, error){
%s}

func wrap[T any](f func([]byte) (T, error)) func([]byte) (any, error) {
	return func(b []byte) (any, error) {
		v, err := f(b)
		return v, err
	}
}

type request struct {
	Tool  string
	Input []byte
}

type answer struct {
	OK     bool   ` + "`json:\"ok\"`" + `
	Syntax bool   ` + "`json:\"syntax\"`" + `
	Issues string ` + "`json:\"issues\"`" + `
	Data   string ` + "`json:\"data\"`" + `
	Error  string ` + "`json:\"error\"`" + `
}

func run(line []byte) answer {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return answer{Error: err.Error()}
	}
	dec := decoders[req.Tool]
	if dec == nil {
		return answer{Error: "unknown tool " + req.Tool}
	}
	v, err := dec(req.Input)
	var se *contract.SyntaxError
	var is contract.Issues
	switch {
	case err == nil:
		b, err := json.Marshal(v)
		if err != nil {
			return answer{Error: err.Error()}
		}
		return answer{OK: true, Data: string(b)}
	case errors.As(err, &se):
		return answer{Syntax: true}
	case errors.As(err, &is):
		b, _ := is.MarshalJSON()
		return answer{Issues: string(b)}
	}
	return answer{Error: fmt.Sprintf("unexpected error type %%T: %%v", err, err)}
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 1 {
			_ = enc.Encode(run(line))
			_ = out.Flush()
		}
		if err != nil {
			return
		}
	}
}
`

// covGoBuild builds the coverage spec's Go program once per test binary.
var covGoBuild struct {
	once sync.Once
	dir  string // the temporary module, removed by TestMain
	bin  string
	err  error
}

// TestMain removes the coverage program's temporary module after the
// tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if covGoBuild.dir != "" {
		os.RemoveAll(covGoBuild.dir)
	}
	os.Exit(code)
}

// buildCovGo generates the Go package of spec s into a temporary module
// (module conformancecov; the generated code needs only the standard
// library) with covGoMain, and builds it.
func buildCovGo(s *model.Spec) (string, error) {
	// The package imports the copy of its runtime written beside it, in
	// this module.
	local := *s
	local.Codegen.GoImport, local.Codegen.GoRuntime = "conformancecov/contract", ""
	files, err := emit.Generate(&local, []*emit.Emitter{gogen.Emitter}, emit.Options{})
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "conformancecov-")
	if err != nil {
		return "", err
	}
	covGoBuild.dir = dir
	write := func(rel string, data []byte) error {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, data, 0o644)
	}
	n := 0
	for _, f := range files {
		rel, ok := strings.CutPrefix(f.Path, s.Codegen.GoDir+"/")
		if !ok || !strings.HasSuffix(rel, ".go") {
			continue
		}
		if err := write(filepath.Join("contract", rel), f.Data); err != nil {
			return "", err
		}
		n++
	}
	if n == 0 {
		return "", fmt.Errorf("the go emitter wrote nothing under %s", s.Codegen.GoDir)
	}
	var table strings.Builder
	for _, tool := range s.Tools {
		fmt.Fprintf(&table, "\t%q: wrap(contract.Decode%sArgs),\n", tool.Name, tool.GoName)
	}
	if err := write("go.mod", []byte("module conformancecov\n\ngo 1.26\n")); err != nil {
		return "", err
	}
	if err := write("main.go", fmt.Appendf(nil, covGoMain, table.String())); err != nil {
		return "", err
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "conformancecov")
	cmd := exec.Command(goTool, "build", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
}

// covGo is the long-lived process running the coverage spec's decoders.
type covGo struct {
	mu  sync.Mutex
	in  io.WriteCloser
	out *bufio.Reader
}

// startCovGo builds (once) and starts the coverage program for spec s;
// the process ends with the test.
func startCovGo(t testing.TB, s *model.Spec) *covGo {
	t.Helper()
	covGoBuild.once.Do(func() { covGoBuild.bin, covGoBuild.err = buildCovGo(s) })
	if covGoBuild.err != nil {
		t.Fatal(covGoBuild.err)
	}
	cmd := exec.Command(covGoBuild.bin)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		_ = cmd.Wait()
	})
	return &covGo{in: in, out: bufio.NewReaderSize(out, 1<<20)}
}

// run decodes input as tool's arguments in the coverage program; the
// verdict has the shape runGo gives.
func (p *covGo) run(tool string, input []byte) (verdict, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	req, _ := json.Marshal(map[string]any{"tool": tool, "input": base64.StdEncoding.EncodeToString(input)})
	if _, err := p.in.Write(append(req, '\n')); err != nil {
		return verdict{}, err
	}
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		return verdict{}, fmt.Errorf("reading from the Go program: %w", err)
	}
	var a struct {
		OK, Syntax          bool
		Issues, Data, Error string
	}
	if err := json.Unmarshal(line, &a); err != nil {
		return verdict{}, fmt.Errorf("decoding %q: %w", line, err)
	}
	if a.Error != "" {
		return verdict{}, fmt.Errorf("the Go program: %s", a.Error)
	}
	v := verdict{OK: a.OK, Syntax: a.Syntax, Issues: a.Issues}
	if a.OK {
		v.Data = canonical([]byte(a.Data))
	}
	return v, nil
}

// validString reports whether s satisfies t's lengths, patterns and
// checks.
func validString(t *model.Type, s string) bool {
	n := utf8.RuneCountInString(s)
	return (t.MinLength == nil || n >= *t.MinLength) && (t.MaxLength == nil || n <= *t.MaxLength) && !failsChecks(t, s)
}

// stringExamples are tried, in order, for a valid value of a string type
// with patterns or checks.
var stringExamples = []string{"a/b", "ABC", "ab c/x", "a_1", "12345"}

// bound returns b's value as a double (JSON.parse's reading).
func bound(b *model.Bound) float64 {
	f, _ := strconv.ParseFloat(string(b.Value), 64)
	return f
}

// inRange reports whether f satisfies t's numeric bounds.
func inRange(t *model.Type, f float64) bool {
	if b := t.Minimum; b != nil && (f < bound(b) || b.Exclusive && f == bound(b)) {
		return false
	}
	if b := t.Maximum; b != nil && (f > bound(b) || b.Exclusive && f == bound(b)) {
		return false
	}
	return true
}

// numberOK reports whether the JSON text x is a valid value of the number
// or integer type t, as JSON.parse and zod read it: the nearest double,
// finite, and for an integer whole and within ±(2^53−1).
func numberOK(t *model.Type, x string) bool {
	f, err := strconv.ParseFloat(x, 64)
	if err != nil && !math.IsInf(f, 0) || math.IsInf(f, 0) {
		return false // not a number token, or beyond the doubles
	}
	if t.Kind == model.Integer && (f != math.Trunc(f) || math.Abs(f) > 1<<53-1) {
		return false
	}
	return inRange(t, f)
}

// numberProbes are JSON texts for number and integer arguments: float
// reading and precision, integer edges, exponents, and other kinds.
var numberProbes = []string{
	"0", "-0", "0.0", "-0.0", "1", "1.0", "1.5", "-1", "0.1", "0.30000000000000004", "0.5", "1E2", "1e2", "100.0", "1e+2",
	"0.9999999999999999", "0.99999999999999999", "1e-7", "-1e-7", "1e21", "-1e21", "1e20", "-1e20", "5e-324", "-5e-324",
	"1.7976931348623157e308", "-1e400", "1e-400", "9007199254740991", "-9007199254740991", "9007199254740992",
	"-9007199254740992", "9007199254740993", "18446744073709551616", "2.5e1", "100.000000000000001",
	`"1"`, `"0.5"`, `"NaN"`, `"Infinity"`, `"-Infinity"`, `""`, "true", "false", "[1]", `{"value":1}`,
}

// patternProbes are JSON string contents for patterned strings: what RE2
// and ECMAScript read differently ('.' and line terminators, '\s' and
// Unicode spaces, '\w' and non-ASCII letters, '$' and a final newline),
// anchors, and every example of stringExamples.
var patternProbes = []string{
	``, `a/b`, `a/xb`, `a/`, `b`, `a/\nb`, `\na/b`, `a/b\n`, `A/b`, `a/b\r`,
	`ABC`, `abc`, `AB`, `ABCD`, `ÀBC`, `ＡＢＣ`, `ABC\n`, `\nABC`,
	`ab c/x`, `ab\tc/x`, `ab\nc/x`, `ab c\n/x`, `ab c\r/x`, `ab c\u2028/x`, `ab c\u2029/x`, `ab c\u0085/x`,
	`ab\u00a0c/x`, `ab\u000bc/x`, `ab\u000cc/x`, `ab\ufeffc/x`, `ab\u2003c/x`, `ab\u3000c/x`, `ab\u1680c/x`,
	`é c/x`, `aé c/x`, `ſ c/x`, `\u212a c/x`, `漢 c/x`, `a1_ c/x`, `ab  /x`, `ab /x`, `ab c/x\n`, `ab c/X`,
	`ab 😀/x`, `ab \ud83d\ude00/x`, `ab \ud800/x`, `ab c/x/x`, `ab\r\nc/x`,
	`a`, `_`, `a_1`, `_1`, `1a`, `a-b`, `a b`, `a\n`, `\na`, `a\u0000`, `é`, `aé`, `a\u212a`, `ſ`, `Z9`,
	`12345`, `1234`, `123456`, `١٢٣٤٥`, `１２３４５`, `12345\n`, ` 12345`,
}

// coverageCases derives the coverage corpus of a tool: generateCases plus
// number bounds and probes, pattern probes, enum and literal near-misses,
// defaults given explicitly, long strings, and items wrong at each index.
func coverageCases(tool *model.Tool) []genCase {
	cs := generateCases(tool)
	full := valid(tool.Args, true)
	add := func(name, expect string, v jv) { cs = append(cs, genCase{name, expect, render(v)}) }
	expect := func(ok bool) string {
		if ok {
			return "ok"
		}
		return "bad"
	}
	var walk func(t *model.Type, path []any)
	walk = func(t *model.Type, path []any) {
		at := pathName(path)
		set := func(v jv) jv { return setAt(full, path, func(jv) jv { return v }) }
		switch t.Kind {
		case model.Number, model.Integer:
			var texts []string
			for _, b := range []*model.Bound{t.Minimum, t.Maximum} {
				if b == nil {
					continue
				}
				f := bound(b)
				texts = append(texts, string(b.Value), fmtFloat(f), fmtFloat(f-1), fmtFloat(f+1),
					fmtFloat(math.Nextafter(f, math.Inf(1))), fmtFloat(math.Nextafter(f, math.Inf(-1))))
				if t.Kind == model.Number {
					texts = append(texts, fmtFloat(f-1e-7), fmtFloat(f+1e-7))
				}
			}
			texts = append(texts, numberProbes...)
			for _, x := range texts {
				add("number-"+at+"-"+x, expect(numberOK(t, x)), set(raw(x)))
			}
		case model.Boolean:
			for _, x := range []string{"false", "1", "0", `"true"`, `"false"`, `""`} {
				add("bool-"+at+"-"+x, expect(x == "false"), set(raw(x)))
			}
		case model.String:
			if len(t.Patterns) > 0 || len(t.Checks) > 0 {
				for _, p := range patternProbes {
					dec := decodeJSONString(p)
					add(fmt.Sprintf("pattern-%s-%q", at, dec), expect(validString(t, dec)), set(raw(`"`+p+`"`)))
				}
			}
			for _, long := range []string{
				strings.Repeat("x", 10000),
				"a/" + strings.Repeat("é", 5000) + "b",
				"ab " + strings.Repeat("\\n", 3000) + "c/x",
				"ab " + strings.Repeat("😀", 3000) + "/x",
			} {
				dec := decodeJSONString(long)
				add(fmt.Sprintf("long-%s-%d", at, len(long)), expect(validString(t, dec)), set(raw(`"`+long+`"`)))
			}
		case model.Enum:
			for _, e := range t.Enum {
				for i, miss := range []string{" " + e, e + " ", strings.ToUpper(e), e[:len(e)-1], e + "\u0000", e + "\n", "\u200b" + e} {
					add(fmt.Sprintf("enum-near-%s-%s-%d", at, e, i), "bad", set(miss))
				}
			}
			add("enum-number-"+at, "bad", set(raw("1")))
		case model.Literal:
			l := t.Literal
			for i, miss := range []string{" " + l, l + " ", strings.ToUpper(l), l[:len(l)-1], l + l, l + "\n", l + "\u0000"} {
				add(fmt.Sprintf("literal-near-%s-%d", at, i), "bad", set(miss))
			}
		case model.Array:
			item := valid(t.Items, true)
			add("items-second-null-"+at, "bad", set([]jv{item, raw("null")}))
			add("items-first-and-third-null-"+at, "bad", set([]jv{raw("null"), item, raw("null")}))
			walk(t.Items, append(slices.Clone(path), 0))
		case model.Object:
			var allNull obj
			for _, f := range t.Fields {
				allNull = append(allNull, member{f.Name, raw("null")})
				if f.Presence == model.Defaulted {
					add("default-given-"+at+"-"+f.Name, "ok", setAt(full, append(slices.Clone(path), f.Name), func(jv) jv { return raw(string(f.Default)) }))
				}
			}
			if len(t.Fields) > 0 {
				add("all-null-"+at, "bad", set(allNull))
			}
			for _, f := range t.Fields {
				walk(f.Type, append(slices.Clone(path), f.Name))
			}
		}
	}
	walk(tool.Args, nil)
	return cs
}

// fmtFloat renders f as the shortest JSON number that reads back as f.
func fmtFloat(f float64) string {
	return strconv.FormatFloat(f, 'g', -1, 64)
}
