package gogen

import (
	"go/doc/comment"
	"strings"
	"unicode"
	"unicode/utf8"
)

// commentWidth is the most characters of text a generated comment line
// holds before it is wrapped at a space; the spec's own line breaks are
// kept.
const commentWidth = 100

// commentText turns text into // comment lines.
func commentText(text string) string {
	var lines []string
	for l := range strings.SplitSeq(strings.TrimSpace(text), "\n") {
		for last := false; !last; {
			var w string
			w, l, last = wrapCut(l, commentWidth)
			lines = append(lines, strings.TrimRight("// "+w, " "))
		}
	}
	return strings.Join(lines, "\n")
}

// wrapCut breaks line at a space into a first line of at most width bytes
// (a word longer than width stands alone) and the rest, without the spaces
// at the break; last is set when the line needs no break. Cut again and
// again, a line keeps its leading indentation on its first line only.
func wrapCut(line string, width int) (first, rest string, last bool) {
	if len(line) <= width {
		return line, "", true
	}
	cut := strings.LastIndexByte(line[:width+1], ' ')
	if cut <= 0 || strings.TrimSpace(line[:cut]) == "" {
		cut = strings.IndexByte(line, ' ')
		if cut < 0 {
			return line, "", true
		}
	}
	return line[:cut], strings.TrimLeft(line[cut:], " "), false
}

// doc writes text as the doc comment of a top-level declaration.
func (src *goSource) doc(text string) { src.comment(0, text) }

// comment writes text as comment lines at the given tab indentation (a
// field's or a constant's doc comment): the lines commentText makes of it,
// as lines writes them.
func (src *goSource) comment(indent int, text string) { src.lines(indent, commentText(text)) }

// lines writes the // comment lines c at the given tab indentation, as
// gofmt formats them unindented before a line of code: gofmt takes such a
// comment for a doc comment and rewrites it in go/doc/comment's canonical
// form (lists indented, code blocks tab-indented, headings set apart), as
// go/printer's formatDocComment does, and trims trailing white space. The
// package's comments are written so, whatever declaration they are in.
func (src *goSource) lines(indent int, c string) {
	if !plainText(c) {
		// gofmt's treatment of what plainText refuses is not reproduced
		// here: left to go/format, unindented (see flat).
		src.odd, src.flat = true, true
		src.WriteString(c)
		src.WriteByte('\n')
		return
	}
	if src.canonicalLines(indent, c) {
		return
	}
	var in strings.Builder
	for line := range strings.SplitSeq(c, "\n") {
		in.WriteString(uncomment(line))
		in.WriteByte('\n')
	}
	var p comment.Parser
	var pr comment.Printer
	for line := range strings.Lines(string(pr.Comment(p.Parse(in.String())))) {
		src.writeCommentLine(indent, strings.TrimSuffix(line, "\n"))
	}
}

// uncomment is the text of a // comment line: without "//" and a space.
func uncomment(line string) string { return strings.TrimPrefix(strings.TrimPrefix(line, "//"), " ") }

// canonicalLines writes the // comment lines c in one pass when their
// text is in go/doc/comment's canonical form (see canonicalScan) and holds
// no '[', as gofmt keeps it; it writes nothing and returns false
// otherwise. It is how almost every comment is written.
func (src *goSource) canonicalLines(indent int, c string) bool {
	if strings.IndexByte(c, '[') >= 0 {
		return false
	}
	mark := src.Len()
	var scan canonicalScan
	for rest, more := c, true; more; {
		var line string
		line, rest, more = strings.Cut(rest, "\n")
		l := uncomment(line)
		if !scan.line(l) {
			src.Truncate(mark)
			return false
		}
		src.writeCommentLine(indent, l)
	}
	if !scan.end() {
		src.Truncate(mark)
		return false
	}
	return true
}

// writeCommentLine writes one line of a comment's text as a // line,
// trimmed of trailing white space.
func (src *goSource) writeCommentLine(indent int, line string) {
	src.tabs(indent)
	text := strings.TrimRightFunc(line, unicode.IsSpace)
	switch {
	case text == "", line[0] == '\t':
		src.WriteString("//")
	default:
		src.WriteString("// ")
	}
	src.WriteString(text)
	src.WriteByte('\n')
}

// canonicalScan reads a comment's text line by line for canonicalLines,
// reporting, cheaply, whether it is in go/doc/comment's canonical form as it
// is (it may say no to text that is; never yes to text that is not): no
// blank line first, last or after another; no line that starts with a
// space, a tab or '#' (code, a list or a heading); no line alone between
// blank lines, past the first, that ends in a letter or digit (an
// old-style heading).
type canonicalScan struct {
	lines     int
	prevBlank bool // the line before was blank
	heading   bool // the line before is a heading if this one is blank
}

// line reports whether the text is still canonical with l, its next line.
func (c *canonicalScan) line(l string) bool {
	first := c.lines == 0
	c.lines++
	if l == "" {
		if first || c.prevBlank || c.heading {
			return false
		}
		c.prevBlank, c.heading = true, false
		return true
	}
	if l[0] == ' ' || l[0] == '\t' || l[0] == '#' {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(l)
	c.heading = !first && c.prevBlank && (unicode.IsLetter(r) || unicode.IsDigit(r))
	c.prevBlank = false
	return true
}

// end reports whether the text, read to its end, is canonical.
func (c *canonicalScan) end() bool { return c.lines > 0 && !c.prevBlank }

// plainText reports whether text holds only valid UTF-8, printable
// characters, spaces, tabs and line breaks.
func plainText(text string) bool {
	return utf8.ValidString(text) && !strings.ContainsFunc(text, func(r rune) bool {
		return r != '\n' && r != '\t' && !unicode.IsPrint(r)
	})
}
