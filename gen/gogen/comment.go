package gogen

import (
	"go/doc/comment"
	"iter"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"
)

// commentWidth is the most characters of text a generated comment line
// holds before it is wrapped at a space; the spec's own line breaks are
// kept.
const commentWidth = 100

// commentText turns text into // comment lines.
func commentText(text string) string {
	var lines []string
	for l := range strings.SplitSeq(strings.TrimSpace(text), "\n") {
		for w := range wrapped(l, commentWidth) {
			lines = append(lines, strings.TrimRight("// "+w, " "))
		}
	}
	return strings.Join(lines, "\n")
}

// wrap breaks line at spaces into lines of at most width bytes (a word
// longer than width stands alone). Leading indentation is kept on the
// first line only.
func wrap(line string, width int) []string { return slices.Collect(wrapped(line, width)) }

// wrapped yields the lines wrap breaks line into.
func wrapped(line string, width int) iter.Seq[string] {
	return func(yield func(string) bool) {
		for len(line) > width {
			cut := strings.LastIndexByte(line[:width+1], ' ')
			if cut <= 0 || strings.TrimSpace(line[:cut]) == "" {
				cut = strings.IndexByte(line, ' ')
				if cut < 0 {
					break
				}
			}
			if !yield(line[:cut]) {
				return
			}
			line = strings.TrimLeft(line[cut:], " ")
		}
		yield(line)
	}
}

// doc returns a doc comment statement ("" gives none).
func doc(text string) jen.Code {
	if strings.TrimSpace(text) == "" {
		return jen.Null()
	}
	return jen.Comment(commentText(text))
}

// doc writes text as the doc comment of a top-level declaration.
func (src *goSource) doc(text string) { src.comment(0, text) }

// comment writes text as comment lines at the given tab indentation (a
// field's or a constant's doc comment): the lines commentText makes of it,
// as lines writes them.
func (src *goSource) comment(indent int, text string) {
	if !src.canonicalComment(indent, text) {
		src.lines(indent, commentText(text))
	}
}

// canonicalComment writes text as comment does when the text is plain
// (see plain) and commentText's lines of it are in go/doc/comment's
// canonical form (see canonical), in one pass over the text; it writes
// nothing and returns false otherwise. It is how almost every comment is
// written: lines reformats the rest.
func (src *goSource) canonicalComment(indent int, text string) bool {
	text = strings.TrimSpace(text)
	if strings.IndexByte(text, '[') >= 0 || !plainText(text) {
		return false
	}
	mark := src.Len()
	// The lines are commentText's, without "// " and their trailing spaces
	// (as lines passes them to canonical): ls[i-1] and ls[i] are blank
	// when prevBlank and blank; heading is set when ls[i-1] would be an
	// old-style heading if ls[i] is blank.
	i, prevBlank, heading := 0, false, false
	ok := true
	for l := range strings.SplitSeq(text, "\n") {
		for w := range wrapped(l, commentWidth) {
			w = strings.TrimRight(w, " ")
			src.tabs(indent)
			if w == "" {
				if i == 0 || prevBlank || heading {
					ok = false
					break
				}
				src.WriteString("//\n")
				prevBlank, heading = true, false
				i++
				continue
			}
			if w[0] == ' ' || w[0] == '\t' || w[0] == '#' {
				ok = false // code, a list or a heading
				break
			}
			r, _ := utf8.DecodeLastRuneInString(w)
			heading = i > 0 && prevBlank && (unicode.IsLetter(r) || unicode.IsDigit(r))
			prevBlank = false
			src.WriteString("// ")
			src.WriteString(strings.TrimRight(w, " \t"))
			src.WriteByte('\n')
			i++
		}
		if !ok {
			break
		}
	}
	if !ok || prevBlank {
		src.Truncate(mark)
		return false
	}
	return true
}

// lines writes the // comment lines c at the given tab indentation, as
// gofmt formats jen's rendering of them. jen indents nothing, so gofmt
// takes every comment that precedes a line of code for a doc comment and
// rewrites it in go/doc/comment's canonical form (lists indented, code
// blocks tab-indented, headings set apart), as go/printer's
// formatDocComment does, and trims trailing white space.
func (src *goSource) lines(indent int, c string) {
	if !src.plain(c) {
		// Left to go/format, unindented as jen writes it.
		src.flat = true
		src.WriteString(c)
		src.WriteByte('\n')
		return
	}
	var in strings.Builder
	for line := range strings.SplitSeq(c, "\n") {
		in.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "//"), " "))
		in.WriteByte('\n')
	}
	text := in.String()
	if !canonical(text) {
		var p comment.Parser
		var pr comment.Printer
		text = string(pr.Comment(p.Parse(text)))
	}
	for line := range strings.Lines(text) {
		line = strings.TrimSuffix(line, "\n")
		src.tabs(indent)
		switch {
		case line == "":
			src.WriteString("//")
		case line[0] == '\t':
			src.WriteString("//")
		default:
			src.WriteString("// ")
		}
		src.WriteString(strings.TrimRightFunc(line, unicode.IsSpace))
		src.WriteByte('\n')
	}
}

// canonical reports, cheaply, whether the text of a doc comment is in
// go/doc/comment's canonical form as it is: paragraphs of unindented lines
// with no heading, link definition or doc link, separated by single blank
// lines. It may say no to text that is; never yes to text that is not.
func canonical(text string) bool {
	if strings.HasPrefix(text, "\n") || strings.Contains(text, "\n\n\n") || !strings.HasSuffix(text, "\n") ||
		strings.HasSuffix(text, "\n\n") || strings.ContainsRune(text, '[') {
		return false
	}
	ls := strings.Split(text[:len(text)-1], "\n")
	for i, l := range ls {
		if l == "" {
			continue
		}
		if l[0] == ' ' || l[0] == '\t' || l[0] == '#' {
			return false // code, a list or a heading
		}
		// A line alone between blank lines, past the first, is an
		// old-style heading if it ends in a letter or digit.
		if i > 0 && ls[i-1] == "" && i+1 < len(ls) && ls[i+1] == "" {
			if r, _ := utf8.DecodeLastRuneInString(l); unicode.IsLetter(r) || unicode.IsDigit(r) {
				return false
			}
		}
	}
	return true
}

// plain reports whether comment text c holds only printable characters,
// spaces and tabs (gofmt's treatment of anything else is not reproduced
// here), and marks src odd if not.
func (src *goSource) plain(c string) bool {
	ok := plainText(c)
	if !ok {
		src.odd = true
	}
	return ok
}

// plainText reports whether text holds only valid UTF-8, printable
// characters, spaces, tabs and line breaks.
func plainText(text string) bool {
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if c < ' ' && c != '\n' && c != '\t' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && size == 1 || !unicode.IsPrint(r) {
			return false
		}
		i += size
	}
	return true
}
