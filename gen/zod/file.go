package zod

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentc-dev/agentc/gen/js"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/names"
	"github.com/agentc-dev/agentc/gen/tslayout"
)

// File renders the zod schemas of one TypeScript file. It records what
// the renderings refer to: the helpers (of Helpers) they call, which the
// file imports, and the named checks they use, which Decls declares once
// before them.
type File struct {
	z       string
	helpers map[string]bool
	checks  []*model.Check
	idents  map[*model.Check]string
	taken   map[string]bool
}

// NewFile returns a File whose schemas name zod's namespace z ("z").
func NewFile(z string) *File {
	return &File{z: z, helpers: map[string]bool{}, idents: map[*model.Check]string{}, taken: map[string]bool{}}
}

// Helpers returns the names of the helpers the renderings so far call,
// sorted.
func (f *File) Helpers() []string {
	var hs []string
	for h := range f.helpers {
		hs = append(hs, h)
	}
	sort.Strings(hs)
	return hs
}

// Decls returns the declarations of the named checks the renderings so far
// use, one const each in order of first use, each after its doc comment:
//
//	/** A path relative to its workspace: … */
//	const isRelativePath = named("Path must be relative, …", { reject: [/^$/u, /^\//u] })
//
// It is empty when they use none.
func (f *File) Decls() string {
	var b strings.Builder
	for _, c := range f.checks {
		doc := "#" + c.Name + ": " + jsdoc(c.Doc)
		if one := "/** " + doc + " */"; tslayout.Fits("", one) && !strings.Contains(doc, "\n") {
			b.WriteString(one + "\n")
		} else {
			b.WriteString("/**\n" + tslayout.Comment("", " * ", doc) + " */\n")
		}
		var rule []string
		for _, part := range []struct {
			key string
			ps  []model.Pattern
		}{{"reject", c.Reject}, {"match", c.Match}} {
			if len(part.ps) == 0 {
				continue
			}
			var lits []string
			for _, p := range part.ps {
				lits = append(lits, f.literal(p.Regexp))
			}
			rule = append(rule, part.key+": "+tslayout.Call("  ", "[", lits, "]"))
		}
		head := fmt.Sprintf("const %s = named(%s, ", f.idents[c], tslayout.String(c.Message))
		obj := "{ " + strings.Join(rule, ", ") + " }"
		if line := head + obj + ")"; tslayout.Fits("", line) && !strings.Contains(line, "\n") {
			b.WriteString(line + "\n\n")
			continue
		}
		b.WriteString(head + "{\n")
		for _, r := range rule {
			b.WriteString("  " + r + ",\n")
		}
		b.WriteString("})\n\n")
	}
	return b.String()
}

// Expr returns the zod expression for t; indent is the indentation of the
// line it starts on (lines after the first are indented relative to it).
func (f *File) Expr(t *model.Type, indent string) string {
	var b strings.Builder
	f.expr(&b, t, indent)
	return b.String()
}

// Shape returns the object literal of an object type's fields, one field
// per line: `name: expr[.optional()|.default(v)][.describe("…")],`. The
// description moves to lines of its own when the line would be too wide.
func (f *File) Shape(t *model.Type, indent string) string {
	var b strings.Builder
	b.Grow(256 * len(t.Fields))
	f.shape(&b, t, indent)
	return b.String()
}

func (f *File) shape(b *strings.Builder, t *model.Type, indent string) {
	b.WriteString("{\n")
	inner := indent + "  "
	for _, fd := range t.Fields {
		b.WriteString(inner)
		start := b.Len()
		b.WriteString(fd.TSName)
		b.WriteString(": ")
		f.expr(b, fd.Type, inner)
		switch fd.Presence {
		case model.Optional:
			b.WriteString(".optional()")
		case model.Defaulted:
			b.WriteString(".default(")
			b.Write(fd.Default)
			b.WriteString(")")
		}
		if d := fd.Type.Description(); d != "" {
			text := b.String()[start:] // the field so far, after its indentation
			describe(b, inner, text[strings.LastIndexByte(text, '\n')+1:], d)
		}
		b.WriteString(",\n")
	}
	b.WriteString(indent)
	b.WriteString("}")
}

// describe appends .describe(d) to a field whose last line so far is last
// (the first line without its indentation, indent): on that line when it
// fits, else with the text on lines of its own.
func describe(b *strings.Builder, indent, last, d string) {
	lit := tslayout.String(d)
	// Whether last + ".describe(" + lit + ")," fits.
	if utf8.RuneCountInString(indent)+utf8.RuneCountInString(last)+len(".describe(),")+utf8.RuneCountInString(lit) <= tslayout.Width {
		b.WriteString(".describe(")
		b.WriteString(lit)
		b.WriteString(")")
		return
	}
	inner := indent + "  "
	b.WriteString(".describe(\n")
	for i, p := range tslayout.Pieces(d) {
		if i > 0 {
			b.WriteString(" +\n")
		}
		b.WriteString(inner)
		b.WriteString(p)
	}
	b.WriteString(",\n")
	b.WriteString(indent)
	b.WriteString(")")
}

func (f *File) expr(b *strings.Builder, t *model.Type, indent string) {
	z := f.z
	switch t.Kind {
	case model.String:
		switch {
		case t.MinLength != nil && t.MaxLength != nil:
			f.helper(b, "runes", *t.MinLength, *t.MaxLength)
		case t.MinLength != nil:
			f.helper(b, "minRunes", *t.MinLength)
		case t.MaxLength != nil:
			f.helper(b, "maxRunes", *t.MaxLength)
		default:
			b.WriteString(z)
			b.WriteString(".string()")
		}
		for _, p := range t.Patterns {
			b.WriteString(".regex(")
			b.WriteString(f.literal(p.Regexp))
			b.WriteString(")")
		}
		for _, c := range t.Checks {
			b.WriteString(".check(")
			b.WriteString(f.check(c))
			b.WriteString(")")
		}
	case model.Number, model.Integer:
		b.WriteString(z)
		b.WriteString(".number()")
		if t.Kind == model.Integer {
			b.WriteString(".int()")
		}
		if m := t.Minimum; m != nil {
			bound(b, ".gte(", ".gt(", m)
		}
		if m := t.Maximum; m != nil {
			bound(b, ".lte(", ".lt(", m)
		}
	case model.Boolean:
		b.WriteString(z)
		b.WriteString(".boolean()")
	case model.Enum:
		vs := make([]string, len(t.Enum))
		for i, v := range t.Enum {
			vs[i] = tslayout.String(v)
		}
		b.WriteString(tslayout.Call(indent, z+".enum([", vs, "])"))
	case model.Literal:
		b.WriteString(z)
		b.WriteString(".literal(")
		b.WriteString(tslayout.String(t.Literal))
		b.WriteString(")")
	case model.Array:
		b.WriteString(z)
		b.WriteString(".array(")
		f.expr(b, t.Items, indent)
		b.WriteString(")")
		if t.MinItems != nil || t.MaxItems != nil {
			b.WriteString(".check(")
			if t.MinItems != nil {
				f.helper(b, "minItems", *t.MinItems)
			}
			if t.MaxItems != nil {
				if t.MinItems != nil {
					b.WriteString(", ")
				}
				f.helper(b, "maxItems", *t.MaxItems)
			}
			b.WriteString(")")
		}
	case model.Object:
		b.WriteString(z)
		b.WriteString(".object(")
		f.shape(b, t, indent)
		b.WriteString(")")
	default:
		panic(fmt.Sprintf("zod: unknown kind %q", t.Kind)) // the loader admits no other kind
	}
}

// bound writes a numeric bound's check: inclusive(v) or exclusive(v).
func bound(b *strings.Builder, inclusive, exclusive string, m *model.Bound) {
	if m.Exclusive {
		b.WriteString(exclusive)
	} else {
		b.WriteString(inclusive)
	}
	b.WriteString(js.Number(m.Value))
	b.WriteString(")")
}

// helper writes a helper call with integer arguments and records its use.
func (f *File) helper(b *strings.Builder, name string, args ...int) {
	f.helpers[name] = true
	b.WriteString(name)
	b.WriteString("(")
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(a))
	}
	b.WriteString(")")
}

// check returns the identifier of named check c's const ("isRelativePath"),
// recording c for Decls. Two checks with one name (definitions at
// different paths) get distinct identifiers.
func (f *File) check(c *model.Check) string {
	if id, ok := f.idents[c]; ok {
		return id
	}
	base := "is" + names.TSPascal(c.Name)
	id := base
	for n := 2; f.taken[id]; n++ {
		id = fmt.Sprintf("%s%d", base, n)
	}
	f.taken[id] = true
	f.idents[c] = id
	f.helpers["named"] = true
	f.checks = append(f.checks, c)
	return id
}

// jsdoc keeps text from closing a /** */ comment.
func jsdoc(s string) string { return strings.ReplaceAll(s, "*/", "*\\/") }

// literal returns the regex literal of a pattern the loader accepted;
// js.Check reports the (unexpected) patterns that do not translate, which
// match nothing here.
func (f *File) literal(re string) string {
	lit, err := js.RegexLiteral(re)
	if err != nil {
		return "/(?!)/u"
	}
	return lit
}
