package gogen

import (
	"encoding/json"
	"go/scanner"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/internal/testspecs"
	"github.com/agentc-dev/agentc/gen/mcpgen"
	"github.com/agentc-dev/agentc/gen/proxygen"
)

// goEmitters are the emitters that write Go files (package emitters, which
// lists them all, imports this one).
var goEmitters = []*emit.Emitter{Emitter, mcpgen.Emitter, proxygen.Emitter}

// lineSpecs are the specs the line-length test generates (and
// TestExportedNamesDocumented): the default (current) contract, the first
// contract version and the spec that uses every argument construct.
var lineSpecs = testspecs.Dirs

// TestLineLength: no line of any Go file agentc generates — the core
// package (gogen's files and the prompt proxy's proxy.go), the MCP package
// (emitter "mcp", generated for every spec here, whether or not it sets
// codegen.mcp) and the copies of their runtimes — is longer than
// maxLine characters, unless a string literal that cannot be split makes
// it long: the line without that literal fits, and the literal holds one
// line of text (a "\n" only at its end) other than a JSON object or array,
// or it is one JSON string inside a multi-line raw string (a JSON Schema,
// which JSON cannot split).
func TestLineLength(t *testing.T) {
	for _, dir := range lineSpecs {
		files := goFiles(t, dir)
		var names []string
		for _, f := range files {
			names = append(names, f.Path)
			for _, line := range longLines(f.Data, maxLine) {
				t.Errorf("%s spec: %s:%s", testspecs.Name(dir), f.Path, line)
			}
		}
		// Files of each kind: rendered, proxy.go, the MCP package's, and
		// the runtimes' copies, for a spec that imports none.
		wants := []string{"go/contract/decode.go", "go/contract/proxy.go", "go/contractmcp/tools.go"}
		if testspecs.Load(t, dir).Codegen.GoRuntime == "" {
			wants = append(wants, "go/contract/agentrt/route.go", "go/contractmcp/agentmcp/server.go")
		}
		for _, want := range wants {
			if !slices.Contains(names, want) {
				t.Errorf("%s spec: %s was not checked; checked %v", testspecs.Name(dir), want, names)
			}
		}
	}
}

// goFiles returns every Go file agentc generates from the spec in dir (the
// default spec for ""), with the MCP package in go/contractmcp when the
// spec asks for none.
func goFiles(t *testing.T, dir string) []emit.File {
	t.Helper()
	files, err := emit.Generate(testspecs.WithMCP(t, dir), goEmitters, emit.Options{})
	if err != nil {
		t.Fatalf("%s spec: %v", testspecs.Name(dir), err)
	}
	var out []emit.File
	for _, f := range files {
		if strings.HasSuffix(f.Path, ".go") {
			out = append(out, f)
		}
	}
	return out
}

// longLines returns "line: text" for each line of the Go source src over
// limit characters that no unsplittable string literal excuses.
func longLines(src []byte, limit int) []string {
	// literals[line] are the string literal tokens that start on the line.
	literals := map[int][]string{}
	inRaw := map[int]bool{} // lines inside or ending a multi-line raw string
	fset := token.NewFileSet()
	file := fset.AddFile("x.go", -1, len(src))
	var sc scanner.Scanner
	sc.Init(file, src, nil, scanner.ScanComments)
	for {
		pos, tok, lit := sc.Scan()
		if tok == token.EOF {
			break
		}
		if tok != token.STRING {
			continue
		}
		line := file.Line(pos)
		if n := strings.Count(lit, "\n"); n > 0 {
			for l := line; l <= line+n; l++ {
				inRaw[l] = true
			}
			continue
		}
		literals[line] = append(literals[line], lit)
	}
	var out []string
	for i, line := range strings.Split(string(src), "\n") {
		n := utf8.RuneCountInString(line)
		if n <= limit {
			continue
		}
		excused := false
		if inRaw[i+1] {
			// A line of a multi-line raw string: a JSON string in it cannot
			// be split, anything else can.
			for _, q := range jsonStrings(line) {
				if n-utf8.RuneCountInString(q)+2 <= limit {
					excused = true
				}
			}
		}
		for _, lit := range literals[i+1] {
			text, err := strconv.Unquote(lit)
			oneLine := err == nil && !strings.Contains(strings.TrimSuffix(text, "\n"), "\n")
			// A JSON object or array on one line can be indented instead.
			if t := strings.TrimSpace(text); len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t)) {
				oneLine = false
			}
			if oneLine && n-utf8.RuneCountInString(lit)+2 <= limit {
				excused = true
			}
		}
		if !excused {
			out = append(out, strconv.Itoa(i+1)+": "+line)
		}
	}
	return out
}

// jsonStrings returns the JSON string tokens (quotes included) in line,
// a line of JSON.
func jsonStrings(line string) []string {
	var out []string
	for i := 0; i < len(line); i++ {
		if line[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(line) && line[j] != '"' {
			if line[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(line) {
			break
		}
		if json.Valid([]byte(line[i : j+1])) {
			out = append(out, line[i:j+1])
		}
		i = j
	}
	return out
}

// TestLongLinesFinds: the checker flags a long line of code, a long
// comment, a literal that holds several lines, and in a multi-line raw
// string a long line of SQL and a line that two long JSON strings make
// long (they could be two lines), and a literal of JSON on one line
// (it could be indented); it excuses a line made long by one line of text and
// a raw string's line made long by one JSON string (an escaped quote in it
// included).
func TestLongLinesFinds(t *testing.T) {
	long := strings.Repeat("x", 40)
	text := strings.Repeat("text ", 12)
	src := "package p\n\n" +
		"// " + strings.Repeat("word ", 30) + "\n" +
		"var a = f(" + strings.Repeat(long+", ", 3) + long + ")\n" +
		"var b = \"" + strings.Repeat("text ", 30) + "\"\n" +
		"var c = \"" + strings.Repeat("text ", 15) + "\\n" + strings.Repeat("more ", 15) + "\"\n" +
		"const d = `{\n" +
		`  "description": "` + text + `\"quoted\" ` + text + "\",\n" +
		`  "a": "` + text + text + `", "b": "` + text + text + "\"\n" +
		"}`\n" +
		"const e = `SELECT " + strings.Repeat(long+", ", 3) + long + "\nFROM t`\n" +
		"var f = `{\"a\":\"" + text + "\",\"b\":[\"" + text + "\"]}`\n"
	got := longLines([]byte(src), 120)
	var lines []string
	for _, g := range got {
		lines = append(lines, g[:strings.IndexByte(g, ':')])
	}
	if strings.Join(lines, ",") != "3,4,6,9,11,13" {
		t.Errorf("longLines flagged lines %v, want 3 (comment), 4 (code), 6 (a literal of two lines), "+
			"9 (two JSON strings), 11 (SQL) and 13 (JSON on one line)", lines)
	}
}
