package js_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	"github.com/agentc-dev/agentc/gen/js"
	"github.com/agentc-dev/agentc/gen/model"
)

func TestRegexSource(t *testing.T) {
	t.Parallel()
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
		if got := js.RegexSource(tc.re); got != tc.want {
			t.Errorf("RegexSource(%q) = %q, want %q", tc.re, got, tc.want)
		}
	}
}

// TestRegexAgainstNode: every translated pattern matches in node exactly
// the strings the RE2 pattern matches in Go (lone surrogates are U+FFFD in
// Go and surrogates in JavaScript), and is its own RegExp source, so that
// the JSON Schema's "pattern" (zod writes new RegExp(src).source) is the
// translation as package jsonschema writes it.
func TestRegexAgainstNode(t *testing.T) {
	t.Parallel()
	node := nodetool.Node(t)
	patterns := []string{`^$`, `^/`, `^[A-Za-z]:`, `\\`, `(^|/)\.\.(/|$)`, `a.b`, `(?s)a.b`, `(?i)kelvin`, `\s`, `^\S+$`,
		`(?m)^b$`, `\bword\b`, `\d{2,3}`, `\w+`, `[[:alpha:]]+`, `\pL`, `^\p{Greek}+$`, `[^a-z]`, `^.$`, `^..$`, `\x{FFFD}`, `^[\x{1F600}-\x{1F64F}]$`, `(?U)a+`, `a|b|`, `^(?:a|ab)c$`, `[\-\]\[^]`, `\Q.*\E`, `\.`,
		"", `[/]`, `[^\]/]/`, "a\nb", "\u2028", `a\/b`,
		`(?:^)?a`, `(?m)b(?:$)+`, `(?:\b)*a`, `(?:\B|x)+b`}
	inputs := []string{"", "/", "a", "..", "a/../b", "C:x", "a\\b", "a\nb", "a\rb", "a\u2028b", "a\u2029b", "axb", "KELVIN", "\u212Aelvin", "\t", "\v", "\u00a0", "\u3000",
		"a\nb\n", "word", "words", "12", "x1234", "é", "ΩΣ", "😀", "<lone surrogate>", "\ufffd", "b", "\nb", "ac", "abc", "-", "]", "^", ".*", ".", "ab", "Ω"}
	var jsInputs []string
	for _, s := range inputs {
		jsInputs = append(jsInputs, s)
	}
	var srcs []string
	for _, p := range patterns {
		srcs = append(srcs, js.RegexSource(p))
	}
	req, _ := json.Marshal(map[string]any{"srcs": srcs, "inputs": jsInputs})
	const script = `
let data = "";
process.stdin.on("data", (c) => (data += c));
process.stdin.on("end", () => {
  const { srcs, inputs } = JSON.parse(data);
  // Index 26 stands for a lone surrogate, which Go's encoder cannot send.
  inputs[26] = "\ud83d";
  const match = srcs.map((s) => { const re = new RegExp(s, "u"); return inputs.map((x) => re.test(x)); });
  console.log(JSON.stringify({ match, sources: srcs.map((s) => new RegExp(s, "u").source) }));
});`
	cmd := exec.Command(node, "-e", script)
	cmd.Stdin = bytes.NewReader(req)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var res struct {
		Match   [][]bool
		Sources []string
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	js := res.Match
	for i, src := range srcs {
		if res.Sources[i] != src {
			t.Errorf("pattern %q: new RegExp(%q).source = %q", patterns[i], src, res.Sources[i])
		}
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

func TestFormatNumber(t *testing.T) {
	t.Parallel()
	node := nodetool.Node(t)
	nums := []float64{0, 1, -1, 0.1, 1.5, 100, 1e20, 1e21, 1.5e21, 1e-6, 1e-7, 1.2345e-7, 123456789012345680000, 9007199254740991, -9007199254740991, 5e-324, math.MaxFloat64, 0.000001234, 123.456}
	var got []string
	for _, f := range nums {
		got = append(got, js.FormatNumber(f))
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
			t.Errorf("FormatNumber(%v) = %s, JavaScript says %s", nums[i], got[i], want[i])
		}
	}
}

// TestNumber: a spec's number as written is JavaScript's text of its
// double, and a number beyond a double's range is Infinity, as JSON.parse
// reads it.
func TestNumber(t *testing.T) {
	t.Parallel()
	for n, want := range map[json.Number]string{"1.50": "1.5", "1E21": "1e+21", "-0.0000005": "-5e-7", "1e400": "Infinity", "-1e400": "-Infinity"} {
		if got := js.Number(n); got != want {
			t.Errorf("Number(%s) = %s, want %s", n, got, want)
		}
	}
}

// TestCheck: each construct JavaScript cannot read as Go does is reported
// once, at its own position and under its code; a spec without one is
// reported nothing.
func TestCheck(t *testing.T) {
	t.Parallel()
	pos := func(line int) model.Pos { return model.Pos{File: "spec/tools.cue", Line: line, Col: 3} }
	args := &model.Type{Kind: model.Object, Pos: pos(3), Fields: []*model.Field{
		{Name: "constructor", Pos: pos(4), Type: &model.Type{Kind: model.String, Pos: pos(4)}},
		{Name: "n", Pos: pos(5), Type: &model.Type{Kind: model.Number, Pos: pos(5), Maximum: &model.Bound{Value: "1e400"}}},
		{Name: "d", Pos: pos(6), Presence: model.Defaulted, Default: json.RawMessage(`[1, 2e999]`), Type: &model.Type{Kind: model.Array, Pos: pos(6),
			Items: &model.Type{Kind: model.String, Pos: pos(7)}}},
		{Name: "fine", Pos: pos(9), Presence: model.Defaulted, Default: json.RawMessage(`"1e999"`), Type: &model.Type{Kind: model.String, Pos: pos(9),
			Patterns: []model.Pattern{{Regexp: `^[a-z]+$`, Pos: pos(10)}}}},
	}}
	s := &model.Spec{Tools: []*model.Tool{{Name: "t", Args: args, Result: &model.Type{Kind: model.Object, Fields: []*model.Field{
		{Name: "valueOf", Pos: pos(11), Type: &model.Type{Kind: model.Boolean}},
	}}}}}
	var got []string
	l := js.Check(s)
	l.Sort()
	for _, e := range l {
		got = append(got, fmt.Sprintf("%d %s", e.Pos.Line, e.Code))
	}
	want := []string{"4 js-name", "5 number-range", "6 number-range", "11 js-name"}
	if !slices.Equal(got, want) {
		t.Errorf("findings (line code) = %v, want %v\n%v", got, want, l)
	}
	for _, e := range l {
		if e.Code == "number-range" && !strings.Contains(e.Msg, "beyond the range of a JavaScript number") ||
			e.Code == "js-name" && !strings.Contains(e.Msg, "Object.prototype.") {
			t.Errorf("finding %q does not say why", e.Msg)
		}
	}
	if l := js.Check(&model.Spec{Tools: []*model.Tool{{Name: "ok", Args: &model.Type{Kind: model.Object, Fields: args.Fields[3:]}}}}); len(l) != 0 {
		t.Errorf("a spec JavaScript reads as Go does: %v", l)
	}
}

// TestBlankAgainstNode: Blank's regex, under node, matches a one-rune string
// exactly when Go's unicode.IsSpace holds the rune, for every code point but
// the surrogates (which Go never reads: it decodes them to U+FFFD), and a
// longer string exactly when strings.TrimSpace trims it to "".
func TestBlankAgainstNode(t *testing.T) {
	t.Parallel()
	node := nodetool.Node(t)
	longer := []string{"", " \t\n", "\u3000\u0085\u00a0", "\ufeff", " \ufeff ", "a", " a ", "\u200b", "\u180e", " \n\u2028x"}
	const script = `
const blank = BLANK
const longer = LONGER
const spaces = []
for (let c = 0; c <= 0x10ffff; c++) {
  if (c >= 0xd800 && c <= 0xdfff) continue
  if (blank.test(String.fromCodePoint(c))) spaces.push(c)
}
console.log(JSON.stringify({ spaces, longer: longer.map((s) => blank.test(s)) }))`
	in, _ := json.Marshal(longer)
	out, err := exec.Command(node, "-e", strings.NewReplacer("BLANK", js.Blank(), "LONGER", string(in)).Replace(script)).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var got struct {
		Spaces []rune
		Longer []bool
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var want []rune
	for c := rune(0); c <= unicode.MaxRune; c++ {
		if unicode.IsSpace(c) {
			want = append(want, c)
		}
	}
	if !slices.Equal(got.Spaces, want) {
		t.Errorf("%s matches the runes %U under node; Go's unicode.IsSpace holds %U", js.Blank(), got.Spaces, want)
	}
	for i, s := range longer {
		if w := strings.TrimSpace(s) == ""; got.Longer[i] != w {
			t.Errorf("%s on %q: node %v, Go's strings.TrimSpace trims it to \"\": %v", js.Blank(), s, got.Longer[i], w)
		}
	}
}
