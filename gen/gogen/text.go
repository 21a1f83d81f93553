package gogen

import (
	"bytes"
	"math"
	pathpkg "path"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"
)

// Go text written already formatted (see decl). The regular declarations
// of a large spec (a decoder per object, a struct per argument type) are
// most of the package; writing them as gofmt would format them spares
// go/format, which is most of gen's time. What gofmt does beyond
// indentation is align columns in runs of lines (struct fields, keyed
// composite literals, trailing comments): align does that as go/printer's
// text/tabwriter settings do.
//
// goSource is the one writer of that text. While render builds a part,
// every declaration of the part is written into the part's own goSource
// (source), straight into the text that becomes the file: no declaration
// is built as a string of its own, copied or joined. The few things only
// gofmt lays out (a comment holding a control character, a default whose
// literal spans lines) make the declaration odd: it is then handed to
// go/format instead (add).

// goSource is Go source written as gofmt formats it, a declaration (or a
// run of them) at a time, each handed on by add: top-level declarations,
// each after a blank line, the first starting with its doc comment.
type goSource struct {
	bytes.Buffer
	// depth is the tab indentation text gives each line it writes.
	depth int
	// odd is set when the declaration being written holds what gofmt
	// lays out in a way not reproduced here (a comment with a control
	// character or invalid UTF-8, a literal spanning lines): go/format
	// then formats it.
	odd bool
	// flat is set when a comment was written unindented, as jen writes
	// it (an odd comment): the declaration's code then goes to go/format
	// unindented too, so that gofmt takes the comment for a doc comment
	// as it does in jen's rendering.
	flat bool
	// quals are the qualified identifiers written (qual), in order.
	quals []qualified
	// start is where the declaration being written starts.
	start int
}

// qualified is an identifier of an imported package, written in a
// goSource up to end.
type qualified struct {
	end        int
	path, name string
}

// source returns the writer of declarations added to f: while render builds
// f, the part's own, whose text the file is made of; else a new one.
func (g *generator) source(f *jen.File) *goSource {
	if k := g.sink; k != nil && k.f == f {
		return &k.src
	}
	return &goSource{}
}

// add hands on the declarations written to src since the last add: to the
// part being built, already formatted (decl); when src is odd, as source
// for go/format after a split mark; outside a part being built, as jen
// code that renders as the text. The packages src names (qual) join the
// file's imports.
func (g *generator) add(f *jen.File, src *goSource) {
	building := g.sink != nil && g.sink.f == f
	if building && !src.odd {
		for _, q := range src.quals {
			g.importing(q.path)
		}
		g.decl(src.Bytes()[src.start:])
		src.next()
		return
	}
	if building {
		g.flush()
		g.sink.dirty = true
	}
	if src.odd && g.mark != "" {
		f.Comment(g.mark)
	}
	f.Add(src.jen())
	src.Truncate(src.start)
	src.next()
}

// Sizes of the blocks a part's text is written in (see next).
const (
	minBlock = 16 << 10
	maxBlock = 1 << 20
	minRoom  = 4 << 10
)

// next starts the next declaration. The text handed on stays where it is
// (the part's pieces hold it): when the block it is in has little room
// left, the next declarations go to a new block, so that no block is
// ever copied to grow but to hold a declaration larger than its room.
func (src *goSource) next() {
	src.odd, src.flat, src.quals = false, false, src.quals[:0]
	if src.Available() < minRoom {
		size := min(max(2*src.Cap(), minBlock), maxBlock)
		src.Buffer = *bytes.NewBuffer(make([]byte, 0, size))
	}
	src.start = src.Len()
}

// jen returns the declaration being written as jen code that renders as
// its text, but for the qualified identifiers, which are jen's Qual, so
// that jen imports their packages. Flat source is unindented, as jen
// writes code: gofmt then takes each comment before a line of code for a
// doc comment, as it does in jen's rendering, and formats it the same.
func (src *goSource) jen() jen.Code {
	text := string(src.Bytes()[src.start:])
	seg := func(s string) jen.Code {
		if src.flat {
			s = leadingTabs.ReplaceAllString(s, "\n")
		}
		return jen.Op(s)
	}
	var items []jen.Code
	start := 0
	for _, q := range src.quals {
		end := q.end - src.start
		at := end - len(pathpkg.Base(q.path)) - 1 - len(q.name)
		items = append(items, seg(text[start:at]), jen.Qual(q.path, q.name))
		start = end
	}
	items = append(items, seg(text[start:]))
	return jen.Custom(jen.Options{}, items...) // no separators: the text as it is
}

// leadingTabs are a line's indentation.
var leadingTabs = regexp.MustCompile(`\n\t+`)

// qual writes path.name, an identifier of the package at path, which the
// file imports under its own name (as jen's Qual does).
func (src *goSource) qual(path, name string) {
	src.WriteString(pathpkg.Base(path))
	src.WriteByte('.')
	src.WriteString(name)
	src.quals = append(src.quals, qualified{src.Len(), path, name})
}

// indented runs write with the indentation n tabs deeper.
func (src *goSource) indented(n int, write func()) {
	src.depth += n
	write()
	src.depth -= n
}

// tabs writes n tabs.
func (src *goSource) tabs(n int) {
	for range n {
		src.WriteByte('\t')
	}
}

// text writes format with its verbs replaced by args, as fmt.Fprintf
// would, each line at the writer's indentation plus its own (a line left
// empty stays empty): a template reads as the code it writes. The verbs
// are the few the generator uses, each with an optional argument index
// ("%[2]s"): %s (a string), %q (a string, quoted), %d (an int, int64 or
// uint64), %#x (an unsigned number in hexadecimal, with 0x), %t (a bool),
// and %% ("%"). Unlike fmt's, they box nothing and build no string: the
// text goes straight into the source.
func (src *goSource) text(format string, args ...any) {
	bol := true // at the beginning of a line
	arg := 0
	for format != "" {
		i := strings.IndexByte(format, '%')
		if i < 0 {
			src.put(format, &bol)
			return
		}
		src.put(format[:i], &bol)
		format = format[i+1:]
		sharp := false
		if format != "" && format[0] == '#' {
			sharp, format = true, format[1:]
		}
		if format != "" && format[0] == '[' {
			if end := strings.IndexByte(format, ']'); end > 0 {
				if n, err := strconv.Atoi(format[1:end]); err == nil {
					arg, format = n-1, format[end+1:]
				}
			}
		}
		if format == "" {
			src.put("%!(NOVERB)", &bol)
			return
		}
		verb := format[0]
		format = format[1:]
		if verb == '%' {
			src.put("%", &bol)
			continue
		}
		if arg < 0 || arg >= len(args) {
			src.put("%!"+string(verb)+"(MISSING)", &bol)
			continue
		}
		src.verb(verb, sharp, args[arg], &bol)
		arg++
	}
}

// verb writes one argument of text.
func (src *goSource) verb(verb byte, sharp bool, a any, bol *bool) {
	if verb == 's' || verb == 'q' {
		s, ok := a.(string)
		switch {
		case !ok:
		case verb == 's':
			src.put(s, bol)
			return
		default:
			src.indent(bol)
			src.Write(strconv.AppendQuote(src.AvailableBuffer(), s))
			return
		}
	}
	var n uint64
	neg := false
	switch v := a.(type) {
	case int:
		n, neg = uint64(v), v < 0
	case int64:
		n, neg = uint64(v), v < 0
	case uint64:
		n = v
	case bool:
		if verb == 't' {
			src.put(strconv.FormatBool(v), bol)
			return
		}
		verb = '?'
	default:
		verb = '?'
	}
	src.indent(bol)
	switch {
	case verb == 'd' && neg:
		src.Write(strconv.AppendInt(src.AvailableBuffer(), int64(n), 10))
	case verb == 'd':
		src.Write(strconv.AppendUint(src.AvailableBuffer(), n, 10))
	case verb == 'x' && sharp && !neg:
		src.WriteString("0x")
		src.Write(strconv.AppendUint(src.AvailableBuffer(), n, 16))
	default:
		// A verb or argument the generator does not use: visible in
		// the output, as fmt shows one.
		src.WriteString("%!" + string(verb) + "(BADARG)")
	}
}

// indent writes the writer's indentation if at the beginning of a line.
func (src *goSource) indent(bol *bool) {
	if *bol {
		src.tabs(src.depth)
		*bol = false
	}
}

// put writes s, each line it starts at the writer's indentation (a line
// left empty stays empty).
func (src *goSource) put(s string, bol *bool) {
	for s != "" {
		if *bol && s[0] != '\n' {
			src.tabs(src.depth)
		}
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			src.WriteString(s)
			*bol = false
			return
		}
		src.WriteString(s[:i+1])
		*bol = true
		s = s[i+1:]
	}
}

// pad writes n spaces.
func pad(b *bytes.Buffer, n int) {
	const spaces = "                                                                "
	for n > len(spaces) {
		b.WriteString(spaces)
		n -= len(spaces)
	}
	if n > 0 {
		b.WriteString(spaces[:n])
	}
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
				keyedSection(b, indent, rows[start:i], suffix)
				start, lnsum, count = i, 0, 0
			}
		}
		lnsum += math.Log(float64(size))
		count++
		prev = size
	}
	keyedSection(b, indent, rows[start:], suffix)
}

// keyedSection writes one section of keyed lines, aligned as align aligns
// rows of two cells, "key:" and the value.
func keyedSection(b *bytes.Buffer, indent int, rows [][2]string, suffix string) {
	width := 0
	for _, kv := range rows {
		width = max(width, utf8.RuneCountInString(kv[0])+2)
	}
	for _, kv := range rows {
		for range indent {
			b.WriteByte('\t')
		}
		b.WriteString(kv[0])
		b.WriteByte(':')
		pad(b, width-1-utf8.RuneCountInString(kv[0]))
		b.WriteString(kv[1])
		b.WriteString(suffix)
		b.WriteByte('\n')
	}
}
