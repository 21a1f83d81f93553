// Package names is the one place where spec names become identifiers in
// each target language: Go and TypeScript naming, initialisms, keyword
// escaping and file-name mangling.
package names

import (
	"fmt"
	"go/token"
	"go/types"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/agentc-dev/agentc/gen/tslayout"
)

// goInitialisms are written in capitals in Go names (as golint does).
var goInitialisms = map[string]bool{
	"API": true, "ASCII": true, "CPU": true, "CSS": true, "DNS": true, "EOF": true,
	"HTML": true, "HTTP": true, "HTTPS": true, "ID": true, "IP": true, "JSON": true,
	"MCP": true, "SQL": true, "SSE": true, "SSH": true, "TCP": true, "TLS": true,
	"TTL": true, "UI": true, "UID": true, "URI": true, "URL": true, "UTF8": true,
	"UUID": true, "XML": true,
}

// words splits s into words at non-alphanumerics, lower→upper case changes
// and letter↔digit changes are kept together ("claude-opus-4.6" →
// claude, opus, 4, 6; "workspacePath" → workspace, Path).
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && len(cur) > 0 && (unicode.IsLower(cur[len(cur)-1]) ||
			(i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(cur[len(cur)-1]))):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

// ident concatenates the words of s, each as word cases it (i is its
// index), putting '_' between two digits that would otherwise run together
// ("4", "6" → "4_6").
func ident(s string, word func(i int, w string) string) string {
	var b strings.Builder
	for i, w := range words(s) {
		w = word(i, w)
		if last, _ := utf8.DecodeLastRuneInString(b.String()); isDigit(last) && isDigit(firstRune(w)) {
			b.WriteByte('_')
		}
		b.WriteString(w)
	}
	return b.String()
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func capitalize(w string) string {
	rs := []rune(strings.ToLower(w))
	if len(rs) > 0 {
		rs[0] = unicode.ToUpper(rs[0])
	}
	return string(rs)
}

// GoExported returns the exported Go identifier for a spec name:
// "save_snapshot" → "SaveSnapshot", "run_id" → "RunID",
// "claude-opus-4.6" → "ClaudeOpus4_6". A name starting with a digit or a
// letter without case ("名前") gets an "X" prefix. It returns "" for a name
// with no letters or digits.
func GoExported(s string) string {
	id := ident(s, func(_ int, w string) string {
		if up := strings.ToUpper(w); goInitialisms[up] {
			return up
		}
		return capitalize(w)
	})
	if r := firstRune(id); id != "" && (isDigit(r) || !unicode.IsUpper(r)) {
		// A digit cannot start an identifier, and a letter without case
		// ("名") would leave it unexported.
		id = "X" + id
	}
	return id
}

// TSCamel returns a camelCase TypeScript identifier: "save_snapshot" →
// "saveSnapshot", "automation.complete" → "automationComplete". Reserved
// words get a trailing '_'.
func TSCamel(s string) string {
	id := ident(s, func(i int, w string) string {
		if i == 0 {
			return strings.ToLower(w)
		}
		return capitalize(w)
	})
	if id != "" && isDigit(firstRune(id)) {
		id = "_" + id
	}
	if slices.Contains(tsReserved, id) {
		id += "_"
	}
	return id
}

// TSPascal returns a PascalCase TypeScript type name.
func TSPascal(s string) string {
	id := ident(s, func(_ int, w string) string { return capitalize(w) })
	if id != "" && isDigit(firstRune(id)) {
		id = "T" + id
	}
	return id
}

// TSProperty returns a property key as TypeScript source: the name itself
// when it is an identifier (ASCII letters, digits, '_' and '$', not
// starting with a digit: a subset of ECMAScript's IdentifierName), else a
// string literal (tslayout.String): JSON, which escapes U+2028 and U+2029
// too, without HTML escaping.
func TSProperty(s string) string {
	other := func(r rune) bool {
		return r != '_' && r != '$' && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && !isDigit(r)
	}
	if s != "" && !isDigit(firstRune(s)) && !strings.ContainsFunc(s, other) {
		return s
	}
	return tslayout.String(s)
}

// FileName returns the OpenCode tool file base name (and so OpenCode's tool
// id) for a tool name: every character outside [A-Za-z0-9_-] becomes '_'
// ("automation.complete" → "automation_complete").
func FileName(tool string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || isDigit(r) {
			return r
		}
		return '_'
	}, tool)
}

// Singular returns a naive English singular for naming list element types
// ("commands" → "command", "keys" → "key", "files" → "file",
// "suggestions" → "suggestion", "entries" → "entry").
func Singular(s string) string {
	switch {
	case strings.HasSuffix(s, "ies") && len(s) > 3:
		return s[:len(s)-3] + "y"
	case strings.HasSuffix(s, "sses"), strings.HasSuffix(s, "shes"), strings.HasSuffix(s, "ches"), strings.HasSuffix(s, "xes"):
		return s[:len(s)-2]
	case strings.HasSuffix(s, "ss"):
		return s
	case strings.HasSuffix(s, "s") && len(s) > 1:
		return s[:len(s)-1]
	}
	return s + "Item"
}

// tsReserved are ECMAScript/TypeScript reserved words (and a few globals the
// generated modules use) that a binding name must not take.
var tsReserved = []string{
	"break", "case", "catch", "class", "const", "continue", "debugger", "default",
	"delete", "do", "else", "enum", "export", "extends", "false", "finally", "for",
	"function", "if", "import", "in", "instanceof", "new", "null", "return", "super",
	"switch", "this", "throw", "true", "try", "typeof", "var", "void", "while", "with",
	"as", "implements", "interface", "let", "package", "private", "protected", "public",
	"static", "yield", "await", "any", "boolean", "number", "string", "symbol", "type",
	"undefined", "unknown", "never", "object", "z", "tool",
}

// IsGoReserved reports whether id is a Go keyword or predeclared identifier
// (of the Go that builds agentc, as go/token and go/types know them).
func IsGoReserved(id string) bool { return token.IsKeyword(id) || types.Universe.Lookup(id) != nil }

// GoEnumValue returns the suffix that names an enum value's Go constant
// (appended to the enum's type name): each run of ASCII letters and digits
// starts with a capital, "needs_human" → "NeedsHuman". Other characters
// are readable where that is obvious: an accented Latin letter is its base
// letter ("café" → "Cafe"), a Greek letter its English name ("π" → "Pi");
// any other letter or digit is its code point ("中" → "U4E2D"). The empty
// string is "Empty"; a value with no letters or digits at all is spelled by
// its code points ("-" → "U002D"). Distinct values can still meet ("a-b"
// and "a_b"); the caller reports such clashes.
func GoEnumValue(v string) string {
	if v == "" {
		return "Empty"
	}
	var b strings.Builder
	up := true
	word := func(w string) {
		b.WriteString(w)
		up = true
	}
	letter := func(r rune) {
		if up {
			r = unicode.ToUpper(r)
		}
		b.WriteRune(r)
		up = false
	}
	for _, r := range v {
		switch {
		case r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			letter(r)
		case r < utf8.RuneSelf:
			up = true
		case greekNames[unicode.ToLower(r)] != "":
			word(greekNames[unicode.ToLower(r)])
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if base := latinBase(r); base != 0 {
				letter(base)
			} else {
				word(fmt.Sprintf("U%04X", r))
			}
		default:
			up = true
		}
	}
	if b.Len() == 0 {
		for _, r := range v {
			fmt.Fprintf(&b, "U%04X", r)
		}
	}
	return b.String()
}

// latinBase returns the ASCII letter an accented Latin letter decomposes
// to ('é' → 'e'), or 0.
func latinBase(r rune) rune {
	d := norm.NFD.String(string(r))
	base, size := utf8.DecodeRuneInString(d)
	if base >= utf8.RuneSelf || !unicode.IsLetter(base) {
		return 0
	}
	for _, m := range d[size:] {
		if !unicode.Is(unicode.Mn, m) {
			return 0
		}
	}
	return base
}

// greekNames are the English names of the Greek letters, by lower-case
// letter (final sigma too).
var greekNames = map[rune]string{
	'α': "Alpha", 'β': "Beta", 'γ': "Gamma", 'δ': "Delta", 'ε': "Epsilon", 'ζ': "Zeta",
	'η': "Eta", 'θ': "Theta", 'ι': "Iota", 'κ': "Kappa", 'λ': "Lambda", 'μ': "Mu",
	'ν': "Nu", 'ξ': "Xi", 'ο': "Omicron", 'π': "Pi", 'ρ': "Rho", 'σ': "Sigma", 'ς': "Sigma",
	'τ': "Tau", 'υ': "Upsilon", 'φ': "Phi", 'χ': "Chi", 'ψ': "Psi", 'ω': "Omega",
}
