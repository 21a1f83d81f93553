package zod

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

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
	helpers map[string]bool
	checks  []*model.Check
	idents  map[*model.Check]string
	taken   map[string]bool
}

// NewFile returns a File whose schemas name zod's namespace z.
func NewFile() *File {
	return &File{helpers: map[string]bool{}, idents: map[*model.Check]string{}, taken: map[string]bool{}}
}

// Helpers returns the names of the helpers the renderings so far call,
// sorted.
func (f *File) Helpers() []string { return slices.Sorted(maps.Keys(f.helpers)) }

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
		doc := "#" + c.Name + ": " + tslayout.JSDoc(c.Doc)
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
				lits = append(lits, js.RegexLiteral(p.Regexp))
			}
			rule = append(rule, part.key+": "+tslayout.Call("  ", "[", lits, "]"))
		}
		// The loader admits no check without a pattern: rule is never empty.
		head := fmt.Sprintf("const %s = named(%s, { ", f.idents[c], tslayout.String(c.Message))
		b.WriteString(tslayout.Call("", head, rule, " })") + "\n\n")
	}
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
	if len(t.Fields) == 0 {
		b.WriteString("{}") // a tool without arguments: not "{\n}"
		return
	}
	b.WriteString("{\n")
	inner := indent + "  "
	for _, fd := range t.Fields {
		var line strings.Builder
		line.WriteString(fd.TSName + ": ")
		f.expr(&line, fd.Type, inner)
		switch fd.Presence {
		case model.Optional:
			line.WriteString(".optional()")
		case model.Defaulted:
			fmt.Fprintf(&line, ".default(%s)", fd.Default)
		}
		text := line.String()
		if d := fd.Type.Description(); d != "" {
			text = describe(inner, text, d)
		}
		b.WriteString(inner + text + ",\n")
	}
	b.WriteString(indent + "}")
}

// describe appends .describe(d) to text, whose last line starts at indent:
// on that line when it fits, else with the text on lines of its own.
func describe(indent, text, d string) string {
	last := text[strings.LastIndexByte(text, '\n')+1:]
	lit := tslayout.String(d)
	if tslayout.Fits(indent, last+".describe("+lit+"),") {
		return text + ".describe(" + lit + ")"
	}
	inner := indent + "  "
	return text + ".describe(\n" + inner + strings.Join(tslayout.Pieces(d), " +\n"+inner) + ",\n" + indent + ")"
}

func (f *File) expr(b *strings.Builder, t *model.Type, indent string) {
	switch t.Kind {
	case model.String:
		switch {
		case t.MinLength != nil && t.MaxLength != nil:
			b.WriteString(f.helper("runes", *t.MinLength, *t.MaxLength))
		case t.MinLength != nil:
			b.WriteString(f.helper("minRunes", *t.MinLength))
		case t.MaxLength != nil:
			b.WriteString(f.helper("maxRunes", *t.MaxLength))
		default:
			b.WriteString("z.string()")
		}
		for _, p := range t.Patterns {
			fmt.Fprintf(b, ".regex(%s)", js.RegexLiteral(p.Regexp))
		}
		for _, c := range t.Checks {
			fmt.Fprintf(b, ".check(%s)", f.check(c))
		}
	case model.Number, model.Integer:
		b.WriteString("z.number()")
		if t.Kind == model.Integer {
			b.WriteString(".int()")
		}
		if m := t.Minimum; m != nil {
			b.WriteString(bound("gte", "gt", m))
		}
		if m := t.Maximum; m != nil {
			b.WriteString(bound("lte", "lt", m))
		}
	case model.Boolean:
		b.WriteString("z.boolean()")
	case model.Enum:
		b.WriteString(tslayout.Call(indent, "z.enum([", tslayout.Strings(t.Enum), "])"))
	case model.Literal:
		fmt.Fprintf(b, "z.literal(%s)", tslayout.String(t.Literal))
	case model.Array:
		b.WriteString("z.array(")
		f.expr(b, t.Items, indent)
		b.WriteString(")")
		var counts []string
		if t.MinItems != nil {
			counts = append(counts, f.helper("minItems", *t.MinItems))
		}
		if t.MaxItems != nil {
			counts = append(counts, f.helper("maxItems", *t.MaxItems))
		}
		if len(counts) > 0 {
			b.WriteString(".check(" + strings.Join(counts, ", ") + ")")
		}
	case model.Object:
		b.WriteString("z.object(")
		f.shape(b, t, indent)
		b.WriteString(")")
	default:
		panic(fmt.Sprintf("zod: unknown kind %q", t.Kind)) // the loader admits no other kind
	}
}

// bound returns a numeric bound's check: .inclusive(v) or .exclusive(v).
func bound(inclusive, exclusive string, m *model.Bound) string {
	if m.Exclusive {
		inclusive = exclusive
	}
	return "." + inclusive + "(" + js.Number(m.Value) + ")"
}

// helper returns a helper call with integer arguments and records its use.
func (f *File) helper(name string, args ...int) string {
	f.helpers[name] = true
	var as []string
	for _, a := range args {
		as = append(as, strconv.Itoa(a))
	}
	return name + "(" + strings.Join(as, ", ") + ")"
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
