package gogen

import (
	"go/format"
	"strings"
	"testing"
)

// TestCommentIsGofmt: comment writes a doc text as gofmt formats
// commentText's lines, unindented before a line of code, whether it takes
// the one-pass path (canonicalLines) or reformats: texts that wrap,
// paragraphs, blank-line runs, would-be headings, indented lines, lists,
// links, trailing white space.
func TestCommentIsGofmt(t *testing.T) {
	long := strings.Repeat("word ", 30) + "end."
	cases := append([]string{
		long,
		long + "\n\n" + long,
		"  " + long,
		strings.Repeat("x", 130) + " tail " + strings.Repeat("y", 120),
		"Intro.\n\nHeading Like This\n\nText.",
		"Intro.\n\nHeading like this.\n\nText.",
		"Intro.\n\n" + strings.Repeat("Long heading ", 10) + "words\n\nText.",
		"First.\nSecond line   \nThird\t",
		"Ends with a blank line\n\n",
		"\n\nStarts after blank lines.",
		"Optional: Set is false when the key is absent.\n\nConstraints: at least 1 items; at most 10 items.",
	}, commentCases...)
	fast := 0
	for _, text := range cases {
		c := commentText(text)
		for _, indent := range []int{0, 1} {
			var src goSource
			src.comment(indent, text)
			if src.odd {
				continue // left to go/format: TestCommentLines covers it
			}
			unindented, open, code := "package p\n\n"+c+"\ntype T int\n", "package p\n\n", "type T int\n"
			if indent == 1 {
				unindented = "package p\n\ntype T struct {\n" + c + "\nA int\n}\n"
				open, code = "package p\n\ntype T struct {\n", "\tA int\n}\n"
			}
			out, err := format.Source([]byte(unindented))
			if err != nil {
				t.Fatal(err)
			}
			want := strings.TrimSuffix(strings.TrimPrefix(string(out), open), code)
			if got := src.String(); got != want {
				t.Errorf("%q at indent %d:\ngot:\n%s\nwant:\n%s", text, indent, got, want)
			}
		}
		var probe goSource
		if plainText(c) && probe.canonicalLines(0, c) {
			fast++
		}
	}
	if fast < 4 || fast > len(cases)-4 {
		t.Errorf("%d of %d cases take the one-pass path: want both paths exercised", fast, len(cases))
	}
}

// commentCases are doc texts that gofmt keeps, and ones it rewrites: lists,
// code, headings old and new, link definitions, blank-line runs, trailing
// white space, tabs, and text it cannot take (control characters).
var commentCases = []string{
	"X is the \"x\" field of T.",
	"A sentence.\n\nAnother paragraph, after a blank line.\n\nDeprecated: use Y.",
	"Lists:\n- one\n  - nested\n1. first\n\nText.",
	"Unindented lists:\n- one\n- two\n1. first\n2) second\n\nText.",
	"Intro.\n\n\tcode block\n  indented text\n\nAfter.",
	"Intro.\n\nA Heading\n\nText after it.",
	"Intro.\n\nNot a heading.\n\nText after it.",
	"# New heading\n\nText.",
	"See [Tool] and [the docs].\n\n[the docs]: https://example.com/docs",
	"Lines\n\n\n\nwith a run of blank lines.",
	"Trailing tab\t\nand a tab\tinside.",
	"A URL https://example.com/x, then text.",
	"Greek αβγ and 中文, wide.",
	"Control \x01 character.",
	"Invalid UTF-8 \xff here.",
}

// TestCommentLines: goSource writes a comment as gofmt formats it
// unindented, before a line of code, at the top level and inside a struct,
// along the canonical shortcut and through go/doc/comment alike.
func TestCommentLines(t *testing.T) {
	shortcut, parsed := 0, 0
	for _, text := range commentCases {
		c := commentText(text)
		for _, indent := range []int{0, 1} {
			var src goSource
			src.lines(indent, c)
			// The comment unindented, then the code.
			unindented := "package p\n\n" + c + "\ntype T int\n"
			open, code := "package p\n\n", "type T int\n"
			if indent == 1 {
				unindented = "package p\n\ntype T struct {\n" + c + "\nA int\n}\n"
				open, code = "package p\n\ntype T struct {\n", "\tA int\n}\n"
			}
			var want string
			if out, err := format.Source([]byte(unindented)); err == nil {
				want = strings.TrimSuffix(strings.TrimPrefix(string(out), open), code)
			} else {
				want = "(gofmt: " + err.Error() + ")"
			}
			got := src.String()
			if src.odd {
				// Left to go/format, which must make of it what it makes
				// of the unindented comment.
				var b strings.Builder
				b.WriteString(open)
				b.WriteString(got)
				b.WriteString(code)
				out, err := format.Source([]byte(strings.Replace(b.String(), "\tA int", "A int", 1)))
				if err == nil {
					got = strings.TrimSuffix(strings.TrimPrefix(string(out), open), code)
				} else {
					got = "(gofmt: " + err.Error() + ")"
				}
			}
			if got != want {
				t.Errorf("%q at indent %d:\ngot:\n%s\nwant:\n%s", text, indent, got, want)
			}
		}
		if !strings.ContainsAny(text, "\x01\xff") {
			var probe goSource
			if probe.canonicalLines(0, c) {
				shortcut++
			} else {
				parsed++
			}
		}
	}
	if shortcut < 3 || parsed < 3 {
		t.Errorf("cases taken as canonical: %d, parsed: %d; want both paths exercised", shortcut, parsed)
	}
}
