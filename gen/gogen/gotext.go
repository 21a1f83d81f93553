package gogen

import (
	"bytes"
	"fmt"
	"go/doc/comment"
	"math"
	pathpkg "path"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"

	"github.com/agentc-dev/agentc/gen/model"
)

// goSource is Go source written as gofmt formats it, to be added with add:
// top-level declarations, each after a blank line, the first starting with
// its doc comment.
type goSource struct {
	bytes.Buffer
	// odd is set when a comment holds text whose formatting by gofmt is not
	// reproduced here (control characters, invalid UTF-8): go/format then
	// formats the source.
	odd bool
	// quals are the qualified identifiers written (qual), in order.
	quals []qualified
}

// qualified is an identifier of an imported package, written in a
// goSource up to end.
type qualified struct {
	end        int
	path, name string
}

// qual writes path.name, an identifier of the standard-library package at
// path, which the file imports under its own name (as jen's Qual does).
func (src *goSource) qual(path, name string) {
	src.WriteString(pathpkg.Base(path) + "." + name)
	src.quals = append(src.quals, qualified{src.Len(), path, name})
}

// add adds the declarations of src to f: already formatted (decl), or, when
// a comment of src holds odd text, as source for go/format. The packages
// src names (qual) join the file's imports.
func (g *generator) add(f *jen.File, src *goSource) {
	building := g.sink != nil && g.sink.f == f
	switch {
	case building && !src.odd:
		for _, q := range src.quals {
			g.importing(q.path)
		}
		g.decl(f, src.Bytes())
	case !building && !src.odd:
		f.Add(src.jen()) // as decl adds text outside a part being built
	default:
		if building {
			g.flush()
		}
		if g.mark != "" {
			f.Comment(g.mark)
		}
		f.Add(src.jen())
	}
}

// jen returns src as jen code that renders as its text, but for the
// qualified identifiers, which are jen's Qual, so that jen imports their
// packages. Odd source is unindented, as jen writes code: gofmt then takes
// each comment before a line of code for a doc comment, as it does in
// jen's rendering, and formats it the same.
func (src *goSource) jen() jen.Code {
	text := src.String()
	seg := func(s string) jen.Code {
		if src.odd {
			s = leadingTabs.ReplaceAllString(s, "\n")
		}
		return jen.Op(s)
	}
	var items []jen.Code
	start := 0
	for _, q := range src.quals {
		at := q.end - len(pathpkg.Base(q.path)) - 1 - len(q.name)
		items = append(items, seg(text[start:at]), jen.Qual(q.path, q.name))
		start = q.end
	}
	items = append(items, seg(text[start:]))
	return jen.Custom(jen.Options{}, items...) // no separators: the text as it is
}

// leadingTabs are a line's indentation.
var leadingTabs = regexp.MustCompile(`\n\t+`)

// importing records that the part being built uses the standard-library
// package at path, imported under its own name, as flush records the
// imports of what jen rendered.
func (g *generator) importing(path string) {
	k := g.sink
	if prev, seen := k.imports[path]; seen && prev != "" {
		k.err = fmt.Errorf("import %q named both %q and %q in one file", path, prev, pathpkg.Base(path))
		return
	}
	k.imports[path] = ""
	if k.unitImports != nil {
		k.unitImports[path] = ""
	}
}

// doc writes text as the doc comment of a top-level declaration.
func (src *goSource) doc(text string) { src.lines(0, commentText(text)) }

// comment writes text as comment lines at the given tab indentation (a
// field's or a constant's doc comment).
func (src *goSource) comment(indent int, text string) { src.lines(indent, commentText(text)) }

// lines writes the // comment lines c at the given tab indentation, as
// gofmt formats jen's rendering of them. jen indents nothing, so gofmt
// takes every comment that precedes a line of code for a doc comment and
// rewrites it in go/doc/comment's canonical form (lists indented, code
// blocks tab-indented, headings set apart), as go/printer's
// formatDocComment does, and trims trailing white space.
func (src *goSource) lines(indent int, c string) {
	if !src.plain(c) {
		// Left to go/format, unindented as jen writes it.
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
		switch {
		case line == "":
			line = "//"
		case line[0] == '\t':
			line = "//" + line
		default:
			line = "// " + line
		}
		for range indent {
			src.WriteByte('\t')
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
	ok := utf8.ValidString(c) && strings.IndexFunc(c, func(r rune) bool {
		return r != '\n' && r != '\t' && !unicode.IsPrint(r)
	}) < 0
	if !ok {
		src.odd = true
	}
	return ok
}

// keyedLines writes a composite literal's elements key: value, each on a
// line of its own at the given tab indentation (the value with its comma),
// as gofmt lays them out: values aligned in sections. go/printer's
// exprList starts a new section where a key's length (in bytes), unless it
// and the one before are both at most 40, is 2.5 times the geometric mean
// of the section's key lengths or more, or 2.5 times less.
func keyedLines(b *bytes.Buffer, indent int, rows [][2]string) {
	var section [][]string
	lnsum, count, prev := 0.0, 0, 0
	for _, kv := range rows {
		size := len(kv[0])
		if count > 0 && (prev > 40 || size > 40) {
			ratio := float64(size) / math.Exp(lnsum/float64(count))
			if 2.5*ratio <= 1 || 2.5 <= ratio {
				align(b, indent, section)
				section, lnsum, count = nil, 0, 0
			}
		}
		section = append(section, []string{kv[0] + ":", kv[1]})
		lnsum += math.Log(float64(size))
		count++
		prev = size
	}
	align(b, indent, section)
}

// goTypeText returns the Go type of t.
func (g *generator) goTypeText(t *model.Type) string {
	switch t.Kind {
	case model.String, model.Literal:
		return "string"
	case model.Enum:
		return g.enumNames[t]
	case model.Number:
		return "float64"
	case model.Integer:
		return "int64"
	case model.Boolean:
		return "bool"
	case model.Array:
		return "[]" + g.goTypeText(t.Items)
	case model.Object:
		return t.GoName
	}
	panic("gogen: unknown kind " + string(t.Kind)) // the loader admits no other kind
}

// fieldTypeText returns the Go type of field f.
func (g *generator) fieldTypeText(f *model.Field) string {
	if f.Presence == model.Optional {
		return "Opt[" + g.goTypeText(f.Type) + "]"
	}
	return g.goTypeText(f.Type)
}

// structTag returns the struct tag `json:"name"` as jen writes it: in
// backquotes when it can be, else as a quoted string.
func structTag(json string) string {
	tag := fmt.Sprintf("json:%q", json)
	if strconv.CanBackquote(tag) {
		return "`" + tag + "`"
	}
	return strconv.Quote(tag)
}
