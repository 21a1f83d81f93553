package gogen

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"
)

// decodeWriter writes decoders as gofmt lays them out (see decl): line by
// line, each at the writer's tab indentation. What only gofmt can lay out
// (a default whose literal spans lines, a field name that a // comment
// cannot hold as it is) is written as jen would write it, and the
// declaration marked unformatted: render formats it.
type decodeWriter struct {
	g     *generator
	b     bytes.Buffer
	depth int
	// unformatted is set when some of the text needs gofmt.
	unformatted bool
}

// text writes fmt.Sprintf(format, args...), lines at the writer's
// indentation plus their own: a template reads as the code it writes.
func (w *decodeWriter) text(format string, args ...any) {
	for l := range strings.Lines(fmt.Sprintf(format, args...)) {
		if l != "\n" {
			for range w.depth {
				w.b.WriteByte('\t')
			}
		}
		w.b.WriteString(l)
	}
}

// indented runs write with the indentation n tabs deeper.
func (w *decodeWriter) indented(n int, write func()) {
	w.depth += n
	write()
	w.depth -= n
}

// fields writes a composite literal's fields (name → Go text), one
// "name: value," a line, in jen.Dict's order (by name), laid out as gofmt
// lays them out (keyedLines).
func (w *decodeWriter) fields(kv map[string]string) {
	var rows [][2]string
	for _, k := range slices.Sorted(maps.Keys(kv)) {
		rows = append(rows, [2]string{k, kv[k] + ","})
	}
	keyedLines(&w.b, w.depth, rows)
}

// comment writes text as the comment jen.Comment makes of it: "// text",
// or a /* block for a text of several lines, which gofmt lays out (the
// declaration is then unformatted), as it does a comment holding a control
// character. Where jen would write broken Go (a text that starts a comment
// and goes on, a block that "*/" ends early), each line is a // comment.
func (w *decodeWriter) comment(text string) {
	if strings.ContainsFunc(text, func(r rune) bool {
		return r < ' ' || r == 0x7f || r == 0xfeff || r == utf8.RuneError
	}) {
		w.unformatted = true
	}
	multi := strings.Contains(text, "\n")
	switch {
	case strings.HasPrefix(text, "//") && !multi:
		w.text("%s\n", text) // jen writes a text that starts a comment as it is
	case !multi:
		w.text("// %s\n", text)
	case !strings.HasPrefix(text, "//") && !strings.HasPrefix(text, "/*") && !strings.Contains(text, "*/"):
		// gofmt lays out a /* comment by where its lines start: as jen
		// writes it, at the start of the line.
		w.b.WriteString("/*\n" + strings.TrimSuffix(text, "\n") + "\n*/\n")
	default:
		for l := range strings.Lines(text) {
			w.text("// %s\n", strings.TrimSuffix(l, "\n"))
		}
	}
}

// declare adds the declaration written to f, documented by doc: as written
// (decl), or for render to format when it is unformatted.
func (w *decodeWriter) declare(f *jen.File, doc string) {
	if !w.unformatted {
		w.g.decl(f, append([]byte(commentText(doc)+"\n"), w.b.Bytes()...))
		return
	}
	w.g.comment(f, doc)
	f.Add(jen.Op(strings.TrimSuffix(w.b.String(), "\n")))
}

// floatLit is a float64 literal as jen.Lit writes one.
func floatLit(v float64) string {
	s := fmt.Sprintf("%#v", v)
	if !strings.Contains(s, ".") && !strings.Contains(s, "e") {
		s += ".0"
	}
	return s
}
