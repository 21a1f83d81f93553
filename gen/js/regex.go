package js

import (
	"fmt"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/rangetable"
)

// RegexSource translates an RE2 pattern (Go regexp syntax, as the spec
// writes it and as CUE and the generated Go evaluate it) into the source of
// an ECMAScript regular expression with the "u" flag that matches exactly the
// same strings.
//
// The translation works on the parsed syntax tree (regexp/syntax, with the
// Perl flags Go's regexp.Compile uses), so every construct is spelled out in
// a form both engines read alike:
//   - literals and classes become explicit code points (\u{…}); Perl and
//     Unicode classes (\d, \s, \w, \pL, [[:alpha:]]) are expanded to Go's own
//     ranges, because ECMAScript's \s, \w and Unicode tables differ;
//   - (?i) becomes explicit case-fold classes ([kKK]), never the i flag;
//   - "." becomes [^\n] ("[^]" under (?s)), since ECMAScript's "." also
//     excludes \r, U+2028 and U+2029;
//   - ^ and $ under (?m) become (?<![^\n]) and (?![^\n]) (ECMAScript's m flag
//     knows four line terminators, RE2 only \n); without (?m) they are ^ and
//     $, which mean the start and end of the input in both;
//   - groups become non-capturing; \b and \B stay (ASCII in both without i);
//   - "/" is escaped and no line terminator appears raw, so the source is
//     the same text in a regex literal and in RegExp.prototype.source.
//
// Go decodes a lone UTF-16 surrogate (\ud800 in JSON) to U+FFFD, while
// JavaScript keeps it as the code point U+D800; so every class containing
// U+FFFD also contains U+D800–U+DFFF, and no class contains a surrogate
// otherwise. A string then matches in Go exactly when it matches in
// JavaScript.
//
// Every pattern translates: the loader admits only patterns that
// regexp.Compile accepts, which parses them as here (syntax.Perl) and
// fails on nothing else.
func RegexSource(re string) string {
	r, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		panic(fmt.Sprintf("js: pattern %q, which the loader admits no model with: %v", re, err))
	}
	var b strings.Builder
	writeRegex(&b, r, false)
	return b.String()
}

// RegexLiteral returns the ECMAScript regex literal for an RE2 pattern:
// "/" + RegexSource(re) + "/u". It is also the text zod reports as an
// issue's "pattern" (RegExp.prototype.toString).
func RegexLiteral(re string) string { return "/" + RegexSource(re) + "/u" }

// writeRegex writes r, a tree syntax.Parse made, each of whose operators
// (every exported syntax.Op) has a case here; atom says r's text must form
// one atom (it is the operand of a quantifier).
func writeRegex(b *strings.Builder, r *syntax.Regexp, atom bool) {
	open := func(need bool) func() {
		if !need {
			return func() {}
		}
		b.WriteString("(?:")
		return func() { b.WriteString(")") }
	}
	switch r.Op {
	case syntax.OpNoMatch:
		b.WriteString("[]")
	case syntax.OpEmptyMatch:
		b.WriteString("(?:)")
	case syntax.OpLiteral:
		closeG := open(atom && len(r.Rune) > 1)
		for _, c := range r.Rune {
			if r.Flags&syntax.FoldCase != 0 {
				if orbit := foldOrbit(c); len(orbit) > 2 {
					writeClass(b, orbit)
					continue
				}
			}
			writeLiteralRune(b, c)
		}
		closeG()
	case syntax.OpCharClass:
		writeClass(b, r.Rune)
	case syntax.OpAnyCharNotNL:
		writeClass(b, []rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune})
	case syntax.OpAnyChar:
		b.WriteString("[^]")
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		closeG := open(atom)
		b.WriteString(map[syntax.Op]string{
			syntax.OpBeginLine:      `(?<![^\n])`,
			syntax.OpEndLine:        `(?![^\n])`,
			syntax.OpBeginText:      "^",
			syntax.OpEndText:        "$",
			syntax.OpWordBoundary:   `\b`,
			syntax.OpNoWordBoundary: `\B`,
		}[r.Op])
		closeG()
	case syntax.OpCapture:
		b.WriteString("(?:")
		writeRegex(b, r.Sub[0], false)
		b.WriteString(")")
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		closeG := open(atom)
		writeRegex(b, r.Sub[0], true)
		switch r.Op {
		case syntax.OpStar:
			b.WriteString("*")
		case syntax.OpPlus:
			b.WriteString("+")
		case syntax.OpQuest:
			b.WriteString("?")
		default:
			switch {
			case r.Max == -1:
				fmt.Fprintf(b, "{%d,}", r.Min)
			case r.Min == r.Max:
				fmt.Fprintf(b, "{%d}", r.Min)
			default:
				fmt.Fprintf(b, "{%d,%d}", r.Min, r.Max)
			}
		}
		if r.Flags&syntax.NonGreedy != 0 {
			b.WriteString("?")
		}
		closeG()
	case syntax.OpConcat:
		closeG := open(atom && len(r.Sub) != 1)
		for _, s := range r.Sub {
			writeRegex(b, s, s.Op == syntax.OpAlternate)
		}
		closeG()
	case syntax.OpAlternate:
		closeG := open(atom)
		for i, s := range r.Sub {
			if i > 0 {
				b.WriteString("|")
			}
			writeRegex(b, s, false)
		}
		closeG()
	}
}

// foldOrbit returns the ranges of c's simple case-folding orbit (as RE2's
// (?i) matches it), sorted.
func foldOrbit(c rune) []rune {
	rs := []rune{c}
	for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
		rs = append(rs, f)
	}
	slices.Sort(rs)
	var out []rune
	for _, r := range rs {
		out = append(out, r, r)
	}
	return out
}

const (
	surrogateLo = 0xD800
	surrogateHi = 0xDFFF
	replacement = 0xFFFD
	// classSpecial are the characters writeRune escapes inside a class.
	classSpecial = `\]^-[/`
)

// writeClass writes a class of the sorted, non-overlapping ranges rs (pairs
// lo, hi), adjusted for surrogates (see RegexSource).
func writeClass(b *strings.Builder, rs []rune) {
	rs = adjustSurrogates(rs)
	if len(rs) == 2 && rs[0] == rs[1] && rs[0] != replacement {
		writeLiteralRune(b, rs[0])
		return
	}
	neg := false
	if len(rs) > 0 && rs[0] == 0 && rs[len(rs)-1] == unicode.MaxRune {
		rs, neg = complement(rs), true
	}
	if neg && len(rs) == 0 {
		b.WriteString("[^]")
		return
	}
	b.WriteString("[")
	if neg {
		b.WriteString("^")
	}
	for i := 0; i < len(rs); i += 2 {
		lo, hi := rs[i], rs[i+1]
		writeRune(b, lo, classSpecial)
		if hi > lo {
			if hi > lo+1 {
				b.WriteString("-")
			}
			writeRune(b, hi, classSpecial)
		}
	}
	b.WriteString("]")
}

// adjustSurrogates removes surrogates from rs, then adds them back as a
// block exactly when rs holds U+FFFD.
func adjustSurrogates(rs []rune) []rune {
	var out []rune
	hasFFFD := false
	for i := 0; i < len(rs); i += 2 {
		lo, hi := rs[i], rs[i+1]
		if lo <= replacement && replacement <= hi {
			hasFFFD = true
		}
		if hi < surrogateLo || lo > surrogateHi {
			out = append(out, lo, hi)
			continue
		}
		if lo < surrogateLo {
			out = append(out, lo, surrogateLo-1)
		}
		if hi > surrogateHi {
			out = append(out, surrogateHi+1, hi)
		}
	}
	if hasFFFD {
		out = append(out, surrogateLo, surrogateHi)
		out = normalize(out)
	}
	return out
}

// normalize sorts and merges ranges.
func normalize(rs []rune) []rune {
	type rg struct{ lo, hi rune }
	var v []rg
	for i := 0; i < len(rs); i += 2 {
		v = append(v, rg{rs[i], rs[i+1]})
	}
	slices.SortFunc(v, func(a, b rg) int { return int(a.lo - b.lo) })
	var out []rune
	for _, r := range v {
		if n := len(out); n > 0 && r.lo <= out[n-1]+1 {
			out[n-1] = max(out[n-1], r.hi)
			continue
		}
		out = append(out, r.lo, r.hi)
	}
	return out
}

// complement returns the ranges of code points not in rs, within
// 0..MaxRune.
func complement(rs []rune) []rune {
	var out []rune
	next := rune(0)
	for i := 0; i < len(rs); i += 2 {
		if rs[i] > next {
			out = append(out, next, rs[i]-1)
		}
		next = rs[i+1] + 1
	}
	if next <= unicode.MaxRune {
		out = append(out, next, unicode.MaxRune)
	}
	return out
}

// writeLiteralRune writes c outside a class.
func writeLiteralRune(b *strings.Builder, c rune) {
	if c == replacement || (c >= surrogateLo && c <= surrogateHi) {
		writeClass(b, []rune{c, c})
		return
	}
	writeRune(b, c, `\^$.|?*+()[]{}/`)
}

// writeRune writes c escaped when it is one of special (the characters
// that mean something where it stands: outside a class, or inside one),
// printable ASCII as itself, and everything else as \u{X}, so no line
// terminator or invisible character is ever raw.
func writeRune(b *strings.Builder, c rune, special string) {
	switch {
	case strings.ContainsRune(special, c):
		b.WriteByte('\\')
		b.WriteRune(c)
	case c >= 0x20 && c < 0x7f:
		b.WriteRune(c)
	default:
		fmt.Fprintf(b, `\u{%X}`, c)
	}
}

// Blank returns an ECMAScript regex literal that matches exactly the
// strings Go's strings.TrimSpace trims to "": those of nothing but the runes
// unicode.IsSpace holds (its table, unicode.White_Space). JavaScript's own
// white space (\s, String.prototype.trim) differs: it holds U+FEFF and not
// U+0085.
func Blank() string {
	var rs []rune
	rangetable.Visit(unicode.White_Space, func(c rune) { rs = append(rs, c, c) })
	var b strings.Builder
	b.WriteString("/^")
	writeClass(&b, normalize(rs))
	b.WriteString("*$/u")
	return b.String()
}
