package load

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"cuelang.org/go/cue"

	"github.com/agentc-dev/agentc/gen/model"
)

// badRune returns the first rune of s that text in a spec may not hold: a
// control character other than tab and newline, or U+FEFF (a byte order
// mark). Generated Go cannot hold U+0000 or U+FEFF in a comment, where
// descriptions and docs go; the other control characters would reach the
// model and the reader as they are, unseen.
func badRune(s string) (rune, bool) {
	i := strings.IndexFunc(s, func(r rune) bool {
		return r == '\uFEFF' || unicode.IsControl(r) && r != '\t' && r != '\n'
	})
	if i < 0 {
		return 0, false
	}
	return []rune(s[i:])[0], true
}

// textRule says what badRune refuses, in findings.
const textRule = "text may hold tabs and newlines but no other control character, and no U+FEFF"

// text returns the string v, a text of the spec — a description, a
// prompt, a goal — and reports, at v (at the character when v's literal
// holds it as it is), one that holds a character badRune refuses.
func (l *loader) text(v cue.Value) string {
	s := str(v)
	if r, ok := badRune(s); ok {
		pos := l.textPos(v, func(raw string) int { return runeIndex(raw, r) })
		l.errs.Add(pos, "text", "%s holds %s; %s", v.Path(), runeName(r), textRule)
	}
	return s
}

// docOf returns the doc comment of the field v came from, read from the
// syntax, and reports one that holds a character badRune refuses.
func (l *loader) docOf(v cue.Value) string {
	doc := l.syn.docs[v.Pos()]
	if op, args := l.expr(v); op == cue.AndOp {
		// A field declared in several places (a template's and a tool's;
		// query: string in one file, its doc comment on query: _ in
		// another): v's position is one declaration's, and CUE's doc is
		// every declaration's, in the order of its conjuncts (Value.Doc,
		// quadratic in a file's size, would say so).
		var docs []string
		for _, a := range append(slices.Clone(args), v) {
			if d := l.syn.docs[a.Pos()]; d != "" && !slices.Contains(docs, d) {
				docs = append(docs, d)
			}
		}
		doc = strings.Join(docs, "\n\n")
	}
	if r, ok := badRune(doc); ok {
		l.errorf(v, "text", "the doc comment of %s holds %s; %s", v.Path(), runeName(r), textRule)
	}
	return doc
}

// nameText reports, at pos, a name the spec gives (a field's, a model's)
// that holds U+0000 or U+FEFF, which generated Go cannot hold in the
// comments that show it. (Other control characters are the key's own:
// every target escapes them where they are code.)
func (l *loader) nameText(pos model.Pos, name, what string) {
	if i := strings.IndexAny(name, "\x00\uFEFF"); i >= 0 {
		l.errs.Add(pos, "text", "%s %q holds %s, which a name may not: generated Go shows names in comments, where Go refuses it", what, name, runeName([]rune(name[i:])[0]))
	}
}

// patternText reports, at pos, a pattern that holds U+0000 or U+FEFF as it
// is, which generated Go cannot hold in the comments that show patterns;
// RE2 matches the character written as an escape.
func (l *loader) patternText(pos model.Pos, re string) {
	if i := strings.IndexAny(re, "\x00\uFEFF"); i >= 0 {
		r := []rune(re[i:])[0]
		l.errs.Add(pos, "text", "pattern %q holds %s as it is; write it as the escape \\x{%X}", re, runeName(r), r)
	}
}

// runeIndex returns the offset in raw, a string literal as written, of the
// first place that writes r: as it is or as an escape (\u0000, \x00, \r).
func runeIndex(raw string, r rune) int {
	forms := []string{string(r), fmt.Sprintf(`\u%04X`, r), fmt.Sprintf(`\u%04x`, r), fmt.Sprintf(`\U%08X`, r), fmt.Sprintf(`\U%08x`, r)}
	if r < 0x80 {
		forms = append(forms, fmt.Sprintf(`\x%02X`, r), fmt.Sprintf(`\x%02x`, r))
	}
	if c := strings.IndexRune("\a\b\f\r\v", r); c >= 0 {
		forms = append(forms, `\`+string("abfrv"[c]))
	}
	first := -1
	for _, f := range forms {
		first = earlier(first, strings.Index(raw, f))
	}
	return first
}

// runeName names r in a message: U+0000, U+FEFF (a byte order mark).
func runeName(r rune) string {
	if r == '\uFEFF' {
		return "U+FEFF (a byte order mark)"
	}
	return fmt.Sprintf("%U, a control character", r)
}
