package gogen

import (
	"bytes"
	"fmt"
	"go/format"
	"strconv"
	"strings"
	"testing"
)

// TestStructTag: every field name Check lets through (jsonTagName) makes a
// tag that strconv.CanBackquote allows, written in backquotes, the JSON
// name quoted as it is; the names that would need the tag quoted (a
// backquote, a control character) are the ones Check refuses.
func TestStructTag(t *testing.T) {
	for _, name := range []string{"a", "with space", "-", "é", "中文", "$ref", "a`b", "tab\there", "nl\nx", "del\x7f", "bom\ufeff", "bad\xff", "nbsp\u00a0", `q"uote`, `back\slash`, "\ufffd"} {
		for _, options := range []string{"", ",omitzero"} {
			tag := fmt.Sprintf("json:%q", name+options)
			if name == "-" && options == "" {
				tag = `json:"-,"`
			}
			if !jsonTagName(name) {
				continue
			}
			if !strconv.CanBackquote(tag) {
				t.Errorf("Check admits %q, whose tag %s cannot be backquoted", name, tag)
			}
			if got, want := string(appendStructTag(nil, name, options)), "`"+tag+"`"; got != want {
				t.Errorf("tag of %q%s = %s, want %s", name, options, got, want)
			}
		}
	}
}

// TestText: text writes what fmt.Sprintf makes of a template, each line
// at the writer's indentation (an empty line left empty), for every verb
// the generator's templates use, with and without argument indexes.
func TestText(t *testing.T) {
	cases := []struct {
		format string
		args   []any
	}{
		{"plain\n", nil},
		{"%s = %q\n", []any{"x", "a \"quoted\"\tvalue é\x01"}},
		{"%[2]s %[1]s %[2]s\n", []any{"b", "a"}},
		{"n%d < %d, %[1]d\n", []any{3, -42}},
		{"100%%\n", nil},
		{"{\n\tnested\n\n\tafter a blank line\n}\n", nil},
		{"%s\n", []any{"an argument\nof two lines"}},
		{"no line break at the end", nil},
	}
	for _, c := range cases {
		for _, depth := range []int{0, 2} {
			src := goSource{depth: depth}
			src.text(c.format, c.args...)
			var want strings.Builder
			for l := range strings.Lines(fmt.Sprintf(c.format, c.args...)) {
				if l != "\n" {
					want.WriteString(strings.Repeat("\t", depth))
				}
				want.WriteString(l)
			}
			if got := src.String(); got != want.String() {
				t.Errorf("text(%q) at depth %d = %q, want %q", c.format, depth, got, want.String())
			}
		}
	}
}

// TestKeyedRows: keyedRows aligns a literal's key: value lines in the
// sections gofmt makes, which short keys never cut and long keys far from
// their section's geometric mean do (both ways).
func TestKeyedRows(t *testing.T) {
	keys := []string{
		"A", "ToolAskUser", "Bb", "ToolAQuiteLongToolNamePastFortyBytesTotalYesIndeed",
		"ToolAQuiteLongToolNamePastFortyBytesTotalYesIndeedAndEvenLongerThanThatByFarReallyMuchLongerThanAnything",
		"Cc", "ToolAnotherExtremelyLongToolNameThatIsLongEnoughToMatterForTheRatioRuleInGofmtPrinterCode",
		"ToolAskUser", "ToolMediumSizedNameOfSomeToolHereOk", "D", "ToolÜberLongNameWithUnicodeLettersThatCountInBytesÄÖ", "E",
	}
	var rows [][2]string
	for i, k := range keys {
		rows = append(rows, [2]string{k, fmt.Sprintf("%d,", i)})
	}
	var b bytes.Buffer
	b.WriteString("package p\n\nvar x = map[string]int{\n")
	keyedRows(&b, 1, rows, "")
	b.WriteString("}\n")
	want, err := format.Source(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("keyedRows's lines are not gofmt's:\n%s\nwant:\n%s", b.Bytes(), want)
	}
	if sections := bytes.Count(want, []byte(":  ")); sections < 2 {
		t.Errorf("the case aligns only %d lines: it should show sections", sections)
	}
}

// TestSpecs: specs aligns a var block's = as gofmt does, past the tenth
// name too (values9, values10).
func TestSpecs(t *testing.T) {
	var rows [][2]string
	for i := range 12 {
		rows = append(rows, [2]string{fmt.Sprintf("values%d", i), fmt.Sprintf(`= []string{"v%d"}`, i)})
	}
	var src goSource
	src.WriteString("package p\n\n")
	src.specs("var", rows)
	want, err := format.Source(src.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(src.Bytes(), want) {
		t.Errorf("specs's lines are not gofmt's:\n%s\nwant:\n%s", src.Bytes(), want)
	}
	if !bytes.Contains(want, []byte("values9  =")) {
		t.Error("the case aligns nothing: it should hold names of two widths")
	}
}

// TestTextBadVerb: a verb or argument the generator does not use (a
// generator's bug) shows in the output, where gofmt or the compiler
// rejects it, and the arguments after it are still written.
func TestTextBadVerb(t *testing.T) {
	for _, c := range []struct {
		format string
		args   []any
		want   string
	}{
		{"%z %s\n", []any{"a", "b"}, "%!z(string=a) b\n"},
		{"%d %q\n", []any{"a", "b"}, "%!d(string=a) \"b\"\n"},
		{"%s %s\n", []any{"a"}, "a %!s(MISSING)\n"},
		{"%s %[3]s\n", []any{"a", "b"}, "a %!s(BADINDEX)\n"},
		{"end %", nil, "end %!(NOVERB)"},
	} {
		var src goSource
		src.text(c.format, c.args...)
		if got := src.String(); got != c.want {
			t.Errorf("text(%q) = %q, want %q", c.format, got, c.want)
		}
	}
}

// TestOddDeclError: an odd declaration go/format cannot parse (a
// generator's bug) is the writer's error, with the text it was given,
// and the declarations after it are still written.
func TestOddDeclError(t *testing.T) {
	var src goSource
	src.odd = true
	src.WriteString("func broken( {\n")
	src.add()
	src.WriteString("var fine = 1\n")
	src.add()
	if src.err == nil || !strings.Contains(src.err.Error(), "func broken( {") {
		t.Fatalf("err = %v, want go/format's error with the declaration's text", src.err)
	}
	if len(src.decls) != 2 || string(src.decls[1].text) != "var fine = 1\n" {
		t.Errorf("decls after the error: %d, want 2, the second var fine = 1", len(src.decls))
	}
}
