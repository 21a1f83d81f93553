package tslayout_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentc-dev/agentc/gen/tslayout"
)

// commentReference is Comment as first written (a line built by
// concatenation, measured whole for every word): the reference the
// single-pass Comment must equal.
func commentReference(indent, lead, text string) string {
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		cur := ""
		flush := func() {
			b.WriteString(strings.TrimRight(indent+lead+cur, " ") + "\n")
			cur = ""
		}
		words := strings.Fields(line)
		if len(words) == 0 {
			flush()
			continue
		}
		for _, w := range words {
			switch {
			case cur == "":
				cur = w
			case tslayout.Fits(indent, lead+cur+" "+w):
				cur += " " + w
			default:
				flush()
				cur = w
			}
		}
		flush()
	}
	return b.String()
}

var commentSamples = []struct{ indent, lead, text string }{
	{"", " * ", ""},
	{"  ", " * ", "one short line"},
	{"", "// ", strings.Repeat("word ", 60)},
	{"    ", " * ", strings.Repeat("wörd ", 40) + "\n\n" + strings.Repeat("x", 130) + " tail\n  indented\tand\u00a0spaced  "},
	{"", "", strings.Repeat("a ", 61)},
	{strings.Repeat(" ", 119), " * ", "too wide to fit anything"},
}

// TestCommentAsReference: Comment wraps as the reference does.
func TestCommentAsReference(t *testing.T) {
	t.Parallel()
	for _, c := range commentSamples {
		if got, want := tslayout.Comment(c.indent, c.lead, c.text), commentReference(c.indent, c.lead, c.text); got != want {
			t.Errorf("Comment(%q, %q, %q) =\n%s\nwant\n%s", c.indent, c.lead, c.text, got, want)
		}
	}
}

// FuzzComment: the same for any indentation, lead and text (UTF-8, as
// Go source and CUE strings are; where invalid bytes meet, the reference
// counts characters across its concatenations).
func FuzzComment(f *testing.F) {
	for _, c := range commentSamples {
		f.Add(c.indent, c.lead, c.text)
	}
	f.Fuzz(func(t *testing.T, indent, lead, text string) {
		if !utf8.ValidString(indent + lead + text) {
			t.Skip()
		}
		if got, want := tslayout.Comment(indent, lead, text), commentReference(indent, lead, text); got != want {
			t.Errorf("Comment(%q, %q, %q) =\n%q\nwant\n%q", indent, lead, text, got, want)
		}
	})
}
