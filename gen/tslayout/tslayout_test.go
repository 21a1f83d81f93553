package tslayout_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentc-dev/agentc/gen/tslayout"
)

func TestPieces(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", []string{`""`}},
		{"a", []string{`"a"`}},
		{"a\n", []string{`"a\n"`}},
		{"a\n\nb", []string{`"a\n"`, `"\n"`, `"b"`}},
		{"<x> & \"y\"", []string{`"<x> & \"y\""`}},
	} {
		if got := tslayout.Pieces(tc.in); strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("Pieces(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCall(t *testing.T) {
	t.Parallel()
	if got := tslayout.Call("", "f(", []string{"a", "b"}, ")"); got != "f(a, b)" {
		t.Errorf("short call: %q", got)
	}
	if got := tslayout.Call("  ", "x: { ", nil, " },"); got != "x: {}," {
		t.Errorf("empty call: %q", got)
	}
	long := strings.Repeat("a", 70)
	got := tslayout.Call("  ", "import { ", []string{long, long}, " } from \"m\"")
	want := "import {\n    " + long + ",\n    " + long + ",\n  } from \"m\""
	if got != want {
		t.Errorf("long call:\n%s\nwant\n%s", got, want)
	}
}

func TestConcat(t *testing.T) {
	t.Parallel()
	if got := tslayout.Concat("", "const d = ", []string{`"a\nb"`}, ""); got != `const d = "a\nb"` {
		t.Errorf("short: %q", got)
	}
	long := strings.Repeat("w", 100)
	got := tslayout.Concat("", "const d = ", []string{`"` + long + `\n` + long + `"`}, "")
	if want := "const d =\n  \"" + long + "\\n\" +\n  \"" + long + "\""; got != want {
		t.Errorf("after =:\n%s\nwant\n%s", got, want)
	}
	long += "wwwwwwwwww"
	got = tslayout.Concat("    ", "return ", []string{`"` + long + `"`, "x"}, "")
	if want := "return (\n      \"" + long + "\" +\n      x\n    )"; got != want {
		t.Errorf("after return:\n%s\nwant\n%s", got, want)
	}
}

func TestUnion(t *testing.T) {
	t.Parallel()
	if got := tslayout.Union("", "type T = ", []string{`"a"`, `"b"`}); got != `type T = "a" | "b"` {
		t.Errorf("short: %q", got)
	}
	m := `"` + strings.Repeat("m", 60) + `"`
	if got, want := tslayout.Union("", "type T = ", []string{m, m}), "type T =\n  | "+m+"\n  | "+m; got != want {
		t.Errorf("long:\n%s\nwant\n%s", got, want)
	}
}

func TestComment(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("word ", 60) + "\n\n" + strings.Repeat("x", 130)
	got := tslayout.Comment("  ", " * ", text)
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) < 5 {
		t.Fatalf("not wrapped:\n%s", got)
	}
	for i, l := range lines[:len(lines)-1] {
		if utf8.RuneCountInString(l) > tslayout.Width || !strings.HasPrefix(l, "   *") || strings.HasSuffix(l, " ") {
			t.Errorf("line %d %q", i, l)
		}
	}
	if last := lines[len(lines)-1]; last != "   * "+strings.Repeat("x", 130) {
		t.Errorf("an unbreakable word must stay whole: %q", last)
	}
	if lines[len(lines)-2] != "   *" {
		t.Errorf("the empty text line must stay: %q", lines[len(lines)-2])
	}
}

// TestCommentFills: for each text line, Comment writes its words in order,
// each comment line after indent+lead, as many words per line as fit in
// Width (counted in characters), a word too long for any line alone.
func TestCommentFills(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ indent, lead, text string }{
		{"", "// ", strings.Repeat("word ", 60)},
		{"    ", " * ", strings.Repeat("wörd ", 40) + "\n\n" + strings.Repeat("x", 130) + " tail\n  indented\tand\u00a0spaced  "},
		{"", "", strings.Repeat("a ", 61)},
		{"", "/", strings.Repeat("abcd ", 30)}, // the first line exactly 120 characters
		{strings.Repeat(" ", 119), " * ", "too wide to fit anything"},
	} {
		got := tslayout.Comment(c.indent, c.lead, c.text)
		var whole string
		for _, line := range strings.Split(c.text, "\n") {
			one := tslayout.Comment(c.indent, c.lead, line)
			whole += one
			lines := strings.Split(strings.TrimSuffix(one, "\n"), "\n")
			var words []string
			for i, l := range lines {
				rest, ok := strings.CutPrefix(l, c.indent+c.lead)
				if !ok {
					rest = ""
					if l != strings.TrimRight(c.indent+c.lead, " ") {
						t.Errorf("%q: line %q does not start with %q", line, l, c.indent+c.lead)
					}
				}
				ws := strings.Fields(rest)
				words = append(words, ws...)
				if len(ws) > 1 && utf8.RuneCountInString(l) > tslayout.Width {
					t.Errorf("%q: line %q is too wide", line, l)
				}
				if i+1 < len(lines) {
					next := strings.Fields(strings.TrimPrefix(lines[i+1], c.indent+c.lead))
					if len(next) > 0 && tslayout.Fits(c.indent, c.lead+rest+" "+next[0]) {
						t.Errorf("%q: %q would fit on line %q", line, next[0], l)
					}
				}
			}
			if strings.Join(words, " ") != strings.Join(strings.Fields(line), " ") {
				t.Errorf("%q: words %q", line, words)
			}
		}
		if got != whole {
			t.Errorf("Comment(%q) is not the comments of its lines:\n%s\nwant\n%s", c.text, got, whole)
		}
	}
}

// TestJSDoc: text cannot close the comment it is written in, and reads the
// same otherwise.
func TestJSDoc(t *testing.T) {
	t.Parallel()
	if got, want := tslayout.JSDoc("a */ b /* c * / d"), `a *\/ b /* c * / d`; got != want {
		t.Errorf("JSDoc = %q, want %q", got, want)
	}
}
