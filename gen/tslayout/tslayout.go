// Package tslayout lays out generated TypeScript for review: no line wider
// than Width characters except a string or regex literal alone on its line
// that cannot be split (it holds no line break), string literals split at
// their line breaks, and comments wrapped at word boundaries.
//
// The emitters of TypeScript (packages zod, tsgen and proxygen) use it so
// that the generated files read like their spec in a pull request: a
// one-character change in the spec is a one-line change in the file.
package tslayout

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Width is the widest a generated TypeScript line may be, in characters
// (code points), unless it is a lone literal that cannot be split.
const Width = 120

// Fits reports whether text, a line's content after its indentation,
// fits in Width characters on a line indented by indent.
func Fits(indent, text string) bool {
	return utf8.RuneCountInString(indent)+utf8.RuneCountInString(text) <= Width
}

// String quotes s as a JavaScript string literal (JSON is a subset; U+2028
// and U+2029 are escaped by encoding/json; no HTML escaping).
func String(s string) string {
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// JSDoc keeps text from closing the /** */ comment it is written in.
func JSDoc(s string) string { return strings.ReplaceAll(s, "*/", "*\\/") }

// Strings quotes each of vs as a JavaScript string literal (String).
func Strings(vs []string) []string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = String(v)
	}
	return q
}

// Pieces splits s after each line break and quotes each piece, so that
// `pieces.join(" +\n")` is a concatenation that equals s with one line of
// text per line of code. A string without line breaks is one piece.
func Pieces(s string) []string {
	var out []string
	for line := range strings.Lines(s) {
		out = append(out, String(line))
	}
	if len(out) == 0 {
		out = append(out, String(""))
	}
	return out
}

// Call lays out head + args + tail where head ends with an opening
// bracket, args are the comma-separated items inside and tail starts with
// the closing bracket: on one line when it fits at indent, else one item
// per line at indent+2 with a trailing comma. The result has no leading
// indentation and no final newline.
func Call(indent, head string, args []string, tail string) string {
	if len(args) == 0 {
		return strings.TrimRight(head, " ") + strings.TrimLeft(tail, " ")
	}
	one := head + strings.Join(args, ", ") + tail
	if Fits(indent, one) && !strings.Contains(one, "\n") {
		return one
	}
	inner := indent + "  "
	var b strings.Builder
	b.WriteString(strings.TrimRight(head, " ") + "\n")
	for _, a := range args {
		b.WriteString(inner + a + ",\n")
	}
	b.WriteString(indent + strings.TrimLeft(tail, " "))
	return b.String()
}

// Concat lays out the JavaScript concatenation of parts (expressions;
// quoted strings are split at their line breaks) after prefix and before
// suffix, on a line indented by indent: on that line when it fits, else
// one part per line at indent+2, each but the last followed by " +".
// After a prefix that ends in "= " or "=> " the parts start on the next
// line; after any other prefix (such as "return ") they are wrapped in
// parentheses, so that no line break ends the statement early.
func Concat(indent, prefix string, parts []string, suffix string) string {
	one := prefix + strings.Join(parts, " + ") + suffix
	if Fits(indent, one) {
		return one
	}
	var split []string
	for _, p := range parts {
		var s string
		if strings.HasPrefix(p, `"`) && json.Unmarshal([]byte(p), &s) == nil {
			split = append(split, Pieces(s)...)
		} else {
			split = append(split, p)
		}
	}
	inner := indent + "  "
	body := inner + strings.Join(split, " +\n"+inner)
	if strings.HasSuffix(prefix, "= ") || strings.HasSuffix(prefix, "=> ") {
		return strings.TrimRight(prefix, " ") + "\n" + body + suffix
	}
	return prefix + "(\n" + body + "\n" + indent + ")" + suffix
}

// Union lays out a union type after prefix ("export type T = "): on one
// line when it fits at indent, else one member per line, each after "| ".
func Union(indent, prefix string, members []string) string {
	one := prefix + strings.Join(members, " | ")
	if Fits(indent, one) {
		return one
	}
	return strings.TrimRight(prefix, " ") + "\n" + indent + "  | " + strings.Join(members, "\n"+indent+"  | ")
}

// Comment wraps text (lines separated by "\n") at word boundaries into
// comment lines that start with indent+lead (such as " * " or "// ") and
// fit in Width; a word longer than a line stays whole. Trailing spaces are
// trimmed; an empty text line stays an empty comment line.
func Comment(indent, lead, text string) string {
	prefix := indent + lead
	empty := strings.TrimRight(prefix, " ") // an empty line's
	room := Width - utf8.RuneCountInString(prefix)
	var b strings.Builder
	for line := range strings.SplitSeq(text, "\n") {
		n := 0 // characters on the comment line after prefix, 0 before its first word
		for w := range strings.FieldsSeq(line) {
			wn := utf8.RuneCountInString(w)
			switch {
			case n == 0:
				b.WriteString(prefix)
			case n+1+wn <= room:
				b.WriteByte(' ')
				n++
			default:
				b.WriteByte('\n')
				b.WriteString(prefix)
				n = 0
			}
			b.WriteString(w)
			n += wn
		}
		if n == 0 {
			b.WriteString(empty)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
