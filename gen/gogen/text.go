package gogen

import (
	"bytes"
	"fmt"
	"go/format"
	"math"
	pathpkg "path"
	"regexp"
	"slices"
	"unicode/utf8"
)

// The generated Go is written as gofmt formats it, straight into the text
// that becomes the file: no syntax tree is built, and go/format, which
// would be most of gen's time, formats none of the regular declarations.
// What gofmt does beyond indentation is align columns in runs of lines
// (struct fields, keyed composite literals, trailing comments): the
// writers here do that as go/printer's text/tabwriter settings do. The
// few things only gofmt lays out (a comment holding a control character,
// a default whose literal spans lines) make the declaration odd: add then
// hands it to go/format alone. TestRenderIsGofmt holds every generated
// file to be what go/format makes of it.

// goSource is the writer of one generated file: its top-level
// declarations, written as gofmt formats them, a run of them at a time,
// each run handed on by add; the first declaration of a run starts with
// its doc comment.
type goSource struct {
	bytes.Buffer
	// depth is the tab indentation text gives each line it writes.
	depth int
	// odd is set when the declaration being written holds what gofmt
	// lays out in a way not reproduced here (a comment with a control
	// character or invalid UTF-8, a literal spanning lines): go/format
	// then formats it.
	odd bool
	// flat is set when a comment was written unindented (an odd comment,
	// see lines): the declaration's code then goes to go/format
	// unindented too, so that gofmt takes every comment before a line of
	// code for a doc comment and formats it as one.
	flat bool
	// uses are the import paths of the packages the declaration being
	// written names (use).
	uses []string
	// start is where the declaration being written starts.
	start int
	// decls are the file's declarations handed on so far, in order.
	decls []decl
	// err is go/format's error on an odd declaration: a generator's bug.
	err error
}

// decl is a run of top-level declarations, formatted, and the import
// paths of the packages it names.
type decl struct {
	text    []byte
	imports []string
	// gofmt is set when go/format laid the text out (it was odd).
	gofmt bool
}

// add hands on the declarations written since the last add as the next
// of the file's. Their text stays where it was written (see next), unless
// it is odd: go/format then formats it alone, which is how it formats it
// in the whole file, as gofmt formats top-level declarations
// independently.
func (src *goSource) add() {
	d := decl{text: src.Bytes()[src.start:], imports: slices.Compact(slices.Sorted(slices.Values(src.uses)))}
	if src.odd {
		text := d.text
		if src.flat { // flat text is unindented first
			text = leadingTabs.ReplaceAll(text, []byte("\n"))
		}
		out, err := format.Source(append([]byte(declClause), text...))
		if err != nil && src.err == nil {
			src.err = fmt.Errorf("formatting: %w\n%s", err, d.text)
		}
		d.text, d.gofmt = bytes.TrimPrefix(out, []byte(declClause)), true
		src.Truncate(src.start)
	}
	src.decls = append(src.decls, d)
	src.next()
}

// declClause is the package clause go/format is given odd declarations
// after: gofmt formats a declaration the same in any package.
const declClause = "package p\n\n"

// Sizes of the blocks a file's text is written in (see next).
const (
	minBlock = 16 << 10
	maxBlock = 1 << 20
	minRoom  = 4 << 10
)

// next starts the next declaration. The text handed on stays where it is
// (the file's decls hold it): when the block it is in has little room
// left, the next declarations go to a new block, so that no block is
// ever copied to grow but to hold a declaration larger than its room.
func (src *goSource) next() {
	src.odd, src.flat, src.uses = false, false, src.uses[:0]
	if src.Available() < minRoom {
		size := min(max(2*src.Cap(), minBlock), maxBlock)
		src.Buffer = *bytes.NewBuffer(make([]byte, 0, size))
	}
	src.start = src.Len()
}

// leadingTabs are a line's indentation.
var leadingTabs = regexp.MustCompile(`\n\t+`)

// use records that the declaration being written names the package at
// path, and returns the name the file imports it under (see importLine),
// which the declaration qualifies the package's identifiers with.
func (src *goSource) use(path string) string {
	src.uses = append(src.uses, path)
	return pathpkg.Base(path)
}

// indented runs write with the indentation n tabs deeper.
func (src *goSource) indented(n int, write func()) {
	src.depth += n
	write()
	src.depth -= n
}

// typeDecl writes type name kind {…}, a struct or interface type of n
// members that body writes, or type name kind{} when n is 0, as gofmt
// writes an empty one.
func (src *goSource) typeDecl(name, kind string, n int, body func()) {
	if n == 0 {
		src.text("type %s %s{}\n", name, kind)
		return
	}
	src.text("type %s %s {\n", name, kind)
	body()
	src.WriteString("}\n")
}

// tabs writes n tabs.
func (src *goSource) tabs(n int) {
	for range n {
		src.WriteByte('\t')
	}
}

// text writes format with its verbs replaced by args, as fmt.Fprintf
// does, each line at the writer's indentation plus its own (a line left
// empty stays empty): a template reads as the code it writes.
func (src *goSource) text(format string, args ...any) {
	fmt.Fprintf(indenter{src}, format, args...)
}

// indenter writes to src what one call of text formats, each line it
// starts at src's indentation (a line left empty stays empty).
type indenter struct{ src *goSource }

func (w indenter) Write(p []byte) (int, error) {
	for line := range bytes.Lines(p) {
		if line[0] != '\n' {
			w.src.tabs(w.src.depth)
		}
		w.src.Write(line)
	}
	return len(p), nil
}

// keyedRows writes a composite literal's elements key: value, each on a
// line of its own at the given tab indentation followed by suffix (such as
// a comma), as gofmt lays them out: values aligned in sections. go/printer's
// exprList starts a new section where a key's length (in bytes), unless it
// and the one before are both at most 40, is 2.5 times the geometric mean
// of the section's key lengths or more, or 2.5 times less.
func keyedRows(b *bytes.Buffer, indent int, rows [][2]string, suffix string) {
	lnsum, count, prev, start := 0.0, 0, 0, 0
	for i, kv := range rows {
		size := len(kv[0])
		if count > 0 && (prev > 40 || size > 40) {
			ratio := float64(size) / math.Exp(lnsum/float64(count))
			if 2.5*ratio <= 1 || 2.5 <= ratio {
				alignedRows(b, indent, rows[start:i], ":", suffix)
				start, lnsum, count = i, 0, 0
			}
		}
		lnsum += math.Log(float64(size))
		count++
		prev = size
	}
	alignedRows(b, indent, rows[start:], ":", suffix)
}

// alignedRows writes rows of two cells, each on a line of its own at the
// given tab indentation: the first cell followed by sep, then the second,
// aligned one space past the widest first cell and its sep, then suffix.
// It is one section of keyed elements ("key:" and the value) and a var or
// const block's specs (a name and the rest: "= value", "Type = value").
func alignedRows(b *bytes.Buffer, indent int, rows [][2]string, sep, suffix string) {
	width := 0
	for _, r := range rows {
		width = max(width, utf8.RuneCountInString(r[0]))
	}
	for _, r := range rows {
		for range indent {
			b.WriteByte('\t')
		}
		b.WriteString(r[0])
		b.WriteString(sep)
		for range width + 1 - utf8.RuneCountInString(r[0]) {
			b.WriteByte(' ')
		}
		b.WriteString(r[1])
		b.WriteString(suffix)
		b.WriteByte('\n')
	}
}

// specs writes a var or const block (keyword): its specs, a name and the
// rest of the spec, one a line, one tab in, the rest aligned as gofmt
// aligns it.
func (src *goSource) specs(keyword string, rows [][2]string) {
	src.text("%s (\n", keyword)
	alignedRows(&src.Buffer, 1, rows, "", "")
	src.WriteString(")\n")
}
