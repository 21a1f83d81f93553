package gogen

import (
	"go/scanner"
	"go/token"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/proxygen"
)

// lineSpecs are the specs the line-length test generates: the default
// (current) contract, the first contract version and the spec that uses
// every argument construct.
var lineSpecs = []string{"", "../../spec/testdata/v0", "../tsgen/testdata/coverage"}

// TestLineLength: no line of the Go files gogen renders (and the prompt
// proxy's proxy.go, which goes into the same package) is longer than
// maxLine characters, unless a string literal that cannot be split makes
// it long: the line without that literal fits, and the literal holds one
// line of text (a "\n" only at its end). The files copied verbatim from
// package serve are its owner's to wrap and are not checked here.
func TestLineLength(t *testing.T) {
	verbatim := map[string]bool{}
	for _, sf := range serveFiles {
		verbatim[sf.name] = true
	}
	for _, dir := range lineSpecs {
		files := goFiles(t, dir)
		checked := 0
		for _, f := range files {
			name := f.Path[strings.LastIndexByte(f.Path, '/')+1:]
			if verbatim[name] {
				continue
			}
			checked++
			for _, bad := range longLines(f.Data, maxLine) {
				t.Errorf("spec %q: %s:%s", dir, f.Path, bad)
			}
		}
		if checked < 9 {
			t.Errorf("spec %q: checked %d files, want the runtime, the 7 rendered files and proxy.go", dir, checked)
		}
	}
}

// goFiles returns the Go package's files generated from the spec in dir
// (the default spec for ""): gogen's and the prompt proxy's proxy.go.
func goFiles(t *testing.T, dir string) []emit.File {
	t.Helper()
	src := load.Default()
	if dir != "" {
		var err error
		if src, err = load.Dir(dir); err != nil {
			t.Fatal(err)
		}
	}
	s, err := load.Load(src)
	if err != nil {
		t.Fatalf("loading %q: %v", dir, err)
	}
	files, err := Emit(s)
	if err != nil {
		t.Fatalf("%q: %v", dir, err)
	}
	proxy, err := proxygen.Emit(s)
	if err != nil {
		t.Fatalf("%q: %v", dir, err)
	}
	var out []emit.File
	for _, f := range append(files, proxy...) {
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
		if n <= limit || inRaw[i+1] {
			continue
		}
		excused := false
		for _, lit := range literals[i+1] {
			text, err := strconv.Unquote(lit)
			oneLine := err == nil && !strings.Contains(strings.TrimSuffix(text, "\n"), "\n")
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

// TestLongLinesFinds: the checker flags a long line of code, a long
// comment and a literal that holds several lines, and excuses a line made
// long by one line of text.
func TestLongLinesFinds(t *testing.T) {
	long := strings.Repeat("x", 40)
	src := "package p\n\n" +
		"// " + strings.Repeat("word ", 30) + "\n" +
		"var a = f(" + strings.Repeat(long+", ", 3) + long + ")\n" +
		"var b = \"" + strings.Repeat("text ", 30) + "\"\n" +
		"var c = \"" + strings.Repeat("text ", 15) + "\\n" + strings.Repeat("more ", 15) + "\"\n"
	got := longLines([]byte(src), 120)
	var lines []string
	for _, g := range got {
		lines = append(lines, g[:strings.IndexByte(g, ':')])
	}
	if strings.Join(lines, ",") != "3,4,6" {
		t.Errorf("longLines flagged lines %v, want 3 (comment), 4 (code) and 6 (a literal of two lines)", lines)
	}
}
