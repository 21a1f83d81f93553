package gogen

import (
	"go/format"
	"strings"
	"testing"
)

// TestCommentIsGofmt: comment writes a doc text as gofmt formats jen's
// rendering of commentText's lines, whether it takes the one-pass path
// (canonicalLines) or reformats: texts that wrap, paragraphs, blank-line
// runs, would-be headings, indented lines, lists, links, trailing white
// space.
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
			jenSrc, open, code := "package p\n\n"+c+"\ntype T int\n", "package p\n\n", "type T int\n"
			if indent == 1 {
				jenSrc = "package p\n\ntype T struct {\n" + c + "\nA int\n}\n"
				open, code = "package p\n\ntype T struct {\n", "\tA int\n}\n"
			}
			out, err := format.Source([]byte(jenSrc))
			if err != nil {
				t.Fatal(err)
			}
			want := strings.TrimSuffix(strings.TrimPrefix(string(out), open), code)
			if got := src.String(); got != want {
				t.Errorf("%q at indent %d:\ngot:\n%s\nwant:\n%s", text, indent, got, want)
			}
		}
		var probe goSource
		if trimmed := strings.TrimSpace(text); plainText(trimmed) && probe.canonicalLines(0, trimmed, false) {
			fast++
		}
	}
	if fast < 4 || fast > len(cases)-4 {
		t.Errorf("%d of %d cases take the one-pass path: want both paths exercised", fast, len(cases))
	}
}
