package zodgen_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/zodgen"
)

func TestRegexSource(t *testing.T) {
	for _, tc := range []struct{ re, want string }{
		{`^$`, `^$`},
		{`^/`, `^\/`},
		{`(^|/)\.\.(/|$)`, `(?:^|\/)\.\.(?:\/|$)`},
		{`a.b`, `a[^\u{A}]b`},
		{`(?s)a.b`, `a[^]b`},
		{`(?i)k`, `[Kk\u{212A}]`},
		{`\s`, `[\u{9}\u{A}\u{C}\u{D} ]`},
		{`(?m)^a$`, `(?<![^\n])a(?![^\n])`},
		{`[^/]+`, `[^\/]+`},
		{`(ab)*?`, `(?:ab)*?`},
		{`x{2,}`, `x{2,}`},
		{`\x{FFFD}`, `[\u{D800}-\u{DFFF}\u{FFFD}]`},
	} {
		got, err := zodgen.RegexSource(tc.re)
		if err != nil || got != tc.want {
			t.Errorf("RegexSource(%q) = %q, %v; want %q", tc.re, got, err, tc.want)
		}
	}
}

// TestRegexAgainstNode: every translated pattern matches in node exactly
// the strings the RE2 pattern matches in Go (lone surrogates are U+FFFD in
// Go and surrogates in JavaScript).
func TestRegexAgainstNode(t *testing.T) {
	node := nodetool.Node(t)
	patterns := []string{`^$`, `^/`, `^[A-Za-z]:`, `\\`, `(^|/)\.\.(/|$)`, `a.b`, `(?s)a.b`, `(?i)kelvin`, `\s`, `^\S+$`,
		`(?m)^b$`, `\bword\b`, `\d{2,3}`, `\w+`, `[[:alpha:]]+`, `\pL`, `^\p{Greek}+$`, `[^a-z]`, `^.$`, `^..$`, `\x{FFFD}`, `^[\x{1F600}-\x{1F64F}]$`, `(?U)a+`, `a|b|`, `^(?:a|ab)c$`, `[\-\]\[^]`, `\Q.*\E`, `\.`}
	inputs := []string{"", "/", "a", "..", "a/../b", "C:x", "a\\b", "a\nb", "a\rb", "a\u2028b", "a\u2029b", "axb", "KELVIN", "\u212Aelvin", "\t", "\v", "\u00a0", "\u3000",
		"a\nb\n", "word", "words", "12", "x1234", "é", "ΩΣ", "😀", "<lone surrogate>", "\ufffd", "b", "\nb", "ac", "abc", "-", "]", "^", ".*", ".", "ab", "Ω"}
	var jsInputs []string
	for _, s := range inputs {
		jsInputs = append(jsInputs, s)
	}
	var srcs []string
	for _, p := range patterns {
		src, err := zodgen.RegexSource(p)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, src)
	}
	req, _ := json.Marshal(map[string]any{"srcs": srcs, "inputs": jsInputs})
	const script = `
let data = "";
process.stdin.on("data", (c) => (data += c));
process.stdin.on("end", () => {
  const { srcs, inputs } = JSON.parse(data);
  // Index 26 stands for a lone surrogate, which Go's encoder cannot send.
  inputs[26] = "\ud83d";
  console.log(JSON.stringify(srcs.map((s) => { const re = new RegExp(s, "u"); return inputs.map((x) => re.test(x)); })));
});`
	cmd := exec.Command(node, "-e", script)
	cmd.Stdin = bytes.NewReader(req)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var js [][]bool
	if err := json.Unmarshal(out, &js); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if inputs[26] != "<lone surrogate>" {
		t.Fatal("input 26 must stand for the lone surrogate")
	}
	for i, p := range patterns {
		re := regexp.MustCompile(p)
		for j, s := range inputs {
			if j == 26 {
				s = "\ufffd" // Go decodes "\ud83d" to U+FFFD
			}
			if got := re.MatchString(strings.ToValidUTF8(s, "\ufffd")); got != js[i][j] {
				t.Errorf("pattern %q (ES /%s/u) on %q: Go %v, node %v", p, srcs[i], s, got, js[i][j])
			}
		}
	}
}

func TestFormatJSNumber(t *testing.T) {
	node := nodetool.Node(t)
	nums := []float64{0, 1, -1, 0.1, 1.5, 100, 1e20, 1e21, 1.5e21, 1e-6, 1e-7, 1.2345e-7, 123456789012345680000, 9007199254740991, -9007199254740991, 5e-324, math.MaxFloat64, 0.000001234, 123.456}
	var got []string
	for _, f := range nums {
		got = append(got, zodgen.FormatJSNumber(f))
	}
	in, _ := json.Marshal(nums)
	cmd := exec.Command(node, "-e", `console.log(JSON.stringify(`+string(in)+`.map(String)))`)
	cmd.Dir = filepath.Dir(nodetool.Dir(t))
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	for i := range nums {
		if got[i] != want[i] {
			t.Errorf("FormatJSNumber(%v) = %s, JavaScript says %s", nums[i], got[i], want[i])
		}
	}
}

// TestTypeScript: the rendered schemas, with the helpers and named checks
// they call, type-check under tsc --strict against the pinned zod (the
// TypeScript emitters embed them).
func TestTypeScript(t *testing.T) {
	tsc := nodetool.Tsc(t)
	s, err := load.Load(load.Default())
	if err != nil {
		t.Fatal(err)
	}
	zf := zodgen.NewFile("z")
	var schemas string
	for _, tool := range s.Tools {
		schemas += "export const " + tool.TSName + " = z.object(" + zf.Shape(tool.Args, "") + ");\n"
	}
	src := "import { z } from \"zod\";\n" + zodgen.Helpers + zf.Decls() + schemas
	dir := filepath.Dir(nodetool.Dir(t))
	f, err := os.CreateTemp(dir, "zodgen-*.ts")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(src); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cmd := exec.Command(nodetool.Node(t), tsc, "--noEmit", "--strict", "--target", "es2022", "--module", "nodenext", "--moduleResolution", "nodenext", "--skipLibCheck", filepath.Base(f.Name()))
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s\n%s", err, out, src)
	}
}
