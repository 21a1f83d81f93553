package specfuzz

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentc-dev/agentc/gen/model"
)

// An argCase is one argument input for one tool: the JSON text and the
// kind of probe it is (for grouping what differs).
type argCase struct {
	kind, input string
}

// jv is a JSON value with ordered keys: obj, []jv, raw (JSON text as is),
// string or float64.
type jv any

type member struct {
	key string
	val jv
}

type obj []member

type raw string

func render(v jv) string {
	switch v := v.(type) {
	case raw:
		return string(v)
	case obj:
		var parts []string
		for _, m := range v {
			k, _ := json.Marshal(m.key)
			parts = append(parts, string(k)+":"+render(m.val))
		}
		return "{" + strings.Join(parts, ",") + "}"
	case []jv:
		var parts []string
		for _, x := range v {
			parts = append(parts, render(x))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case string:
		b, _ := json.Marshal(v)
		return string(b)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	panic(fmt.Sprintf("render %T", v))
}

// setAt returns v with the value at path replaced by fn(old).
func setAt(v jv, path []any, fn func(jv) jv) jv {
	if len(path) == 0 {
		return fn(v)
	}
	switch v := v.(type) {
	case obj:
		out := slices.Clone(v)
		for i, m := range out {
			if m.key == path[0] {
				out[i].val = setAt(m.val, path[1:], fn)
			}
		}
		return out
	case []jv:
		out := slices.Clone(v)
		if i := path[0].(int); i < len(out) {
			out[i] = setAt(out[i], path[1:], fn)
		}
		return out
	}
	return v
}

// stringCandidates are tried, in order, for a valid value of a string with
// patterns or named checks.
var stringCandidates = []string{"abc", "Abc", "a_1", "123", "ab", "https://x", "é", "a-b", "a", "x/y"}

// validString reports whether s satisfies t's lengths, patterns and checks
// (RE2, as CUE reads them).
func validString(t *model.Type, s string) bool {
	n := utf8.RuneCountInString(s)
	if t.MinLength != nil && n < *t.MinLength || t.MaxLength != nil && n > *t.MaxLength {
		return false
	}
	for _, p := range t.Patterns {
		if re, err := regexp.Compile(p.Regexp); err != nil || !re.MatchString(s) {
			return false
		}
	}
	for _, c := range t.Checks {
		for _, p := range c.Reject {
			if re, err := regexp.Compile(p.Regexp); err != nil || re.MatchString(s) {
				return false
			}
		}
		for _, p := range c.Match {
			if re, err := regexp.Compile(p.Regexp); err != nil || !re.MatchString(s) {
				return false
			}
		}
	}
	return true
}

func bound(b *model.Bound) float64 {
	f, _ := strconv.ParseFloat(string(b.Value), 64)
	return f
}

// inRange reports whether f satisfies t's numeric bounds.
func inRange(t *model.Type, f float64) bool {
	if b := t.Minimum; b != nil && (f < bound(b) || b.Exclusive && f == bound(b)) {
		return false
	}
	if b := t.Maximum; b != nil && (f > bound(b) || b.Exclusive && f == bound(b)) {
		return false
	}
	return true
}

// valid returns a valid value of t (full: with the optional fields).
func valid(t *model.Type, full bool) jv {
	switch t.Kind {
	case model.String:
		n := 1
		if t.MinLength != nil {
			n = max(n, *t.MinLength)
		}
		if t.MaxLength != nil {
			n = min(n, *t.MaxLength)
		}
		if s := strings.Repeat("a", n); validString(t, s) {
			return s
		}
		for _, c := range stringCandidates {
			if validString(t, c) {
				return c
			}
		}
		return "a"
	case model.Literal:
		return t.Literal
	case model.Enum:
		return t.Enum[0]
	case model.Number, model.Integer:
		for _, f := range []float64{1, 0, 2, 0.5, -1, 100} {
			if inRange(t, f) && (t.Kind == model.Number || f == math.Trunc(f)) {
				return f
			}
		}
		if t.Minimum != nil {
			return bound(t.Minimum) + 1
		}
		return float64(0)
	case model.Boolean:
		return raw("true")
	case model.Array:
		n := 1
		if t.MinItems != nil {
			n = max(n, *t.MinItems)
		}
		if t.MaxItems != nil {
			n = min(n, *t.MaxItems)
		}
		out := []jv{}
		for range n {
			out = append(out, valid(t.Items, full))
		}
		return out
	case model.Object:
		o := obj{}
		for _, f := range t.Fields {
			if f.Presence == model.Required || full {
				o = append(o, member{f.Name, valid(f.Type, full)})
			}
		}
		return o
	}
	return raw("null")
}

// wrongValues are values of every JSON kind, for wrong-type cases.
var wrongValues = []struct {
	v    jv
	kind model.Kind
}{
	{raw("null"), ""},
	{raw("true"), model.Boolean},
	{raw("0"), model.Integer},
	{raw("-1.5"), model.Number},
	{"s", model.String},
	{raw("[]"), model.Array},
	{raw("{}"), model.Object},
}

// extraKeys are keys a tool does not declare: plain, inherited from
// Object.prototype, integer-like and case twins.
var extraKeys = []string{"extra_unknown", "__proto__", "constructor", "toString", "0", "1", "-1", "01"}

// units are string units for length cases: JSON string content and its
// code points.
var units = []struct {
	text string
	cps  int
}{{"a", 1}, {"😀", 1}, {`\ud83d\ude00`, 1}, {"e\u0301", 2}, {`\ud800`, 1}, {`\n`, 1}}

// argCases derives a tool's argument cases: valid values, each
// constraint's boundaries, wrong types, missing, null and repeated keys,
// extra keys, every field wrong at once (so that issue order shows), and
// JSON that does not parse; at most limit of them, sampled with r.
func argCases(r *rand.Rand, tool *model.Tool, limit int) []argCase {
	full := valid(tool.Args, true)
	var cs []argCase
	add := func(kind string, v jv) { cs = append(cs, argCase{kind, render(v)}) }
	add("valid-minimal", valid(tool.Args, false))
	add("valid-full", full)
	var walk func(t *model.Type, path []any)
	walk = func(t *model.Type, path []any) {
		set := func(v jv) jv { return setAt(full, path, func(jv) jv { return v }) }
		for _, w := range wrongValues {
			if w.kind != t.Kind && !(w.kind == model.String && (t.Kind == model.Enum || t.Kind == model.Literal)) &&
				!(w.kind == model.Integer && t.Kind == model.Number) {
				add("wrong-type", set(w.v))
			}
		}
		switch t.Kind {
		case model.String:
			var lengths []int
			if t.MinLength != nil {
				lengths = append(lengths, *t.MinLength-1, *t.MinLength)
			}
			if t.MaxLength != nil {
				lengths = append(lengths, *t.MaxLength, *t.MaxLength+1)
			}
			if len(lengths) == 0 {
				lengths = []int{0, 2}
			}
			for _, u := range units {
				for _, n := range lengths {
					if n >= 0 && n%u.cps == 0 {
						add("string-length", set(raw(`"`+strings.Repeat(u.text, n/u.cps)+`"`)))
					}
				}
			}
			if len(t.Patterns) > 0 || len(t.Checks) > 0 {
				for _, s := range append(slices.Clone(stringCandidates), "", "..", "/a", "a/../b", "ab\n", "\nab", "ÀBC", "١٢٣", "a b") {
					add("string-pattern", set(s))
				}
			}
		case model.Number, model.Integer:
			texts := []string{"-0", "1.5", "1e400", "9007199254740993", `"1"`}
			for _, b := range []*model.Bound{t.Minimum, t.Maximum} {
				if b != nil {
					f := bound(b)
					texts = append(texts, string(b.Value), render(f-1), render(f+1),
						render(math.Nextafter(f, math.Inf(1))), render(math.Nextafter(f, math.Inf(-1))))
				}
			}
			for _, x := range texts {
				add("number-bound", set(raw(x)))
			}
		case model.Boolean:
			add("bool", set(raw("false")))
		case model.Enum:
			for _, e := range t.Enum {
				add("enum", set(e))
				add("enum-near", set(strings.ToUpper(e)))
				add("enum-near", set(e+" "))
			}
			add("enum-near", set(""))
		case model.Literal:
			add("literal-near", set(t.Literal+"x"))
		case model.Array:
			item := valid(t.Items, true)
			counts := []int{0, 2}
			if t.MinItems != nil {
				counts = append(counts, *t.MinItems-1, *t.MinItems)
			}
			if t.MaxItems != nil {
				counts = append(counts, *t.MaxItems, *t.MaxItems+1)
			}
			for _, n := range counts {
				if n >= 0 {
					add("array-count", set(slices.Repeat([]jv{item}, n)))
				}
			}
			n := 3
			if t.MaxItems != nil {
				n = *t.MaxItems + 1 // items and count wrong: every issue, in order
			}
			add("array-all-wrong", set(slices.Repeat([]jv{raw("null")}, n)))
			walk(t.Items, append(slices.Clone(path), 0))
		case model.Object:
			for _, k := range extraKeys {
				add("extra-key", setAt(full, path, func(v jv) jv { o, _ := v.(obj); return append(slices.Clone(o), member{k, raw(`{"x":1}`)}) }))
			}
			add("empty-object", set(obj{}))
			var allNull, allWrong obj
			for _, f := range t.Fields {
				allNull = append(allNull, member{f.Name, raw("null")})
				allWrong = append(allWrong, member{f.Name, raw(`[{}]`)})
				without := func(v jv) jv {
					o, _ := v.(obj)
					return slices.DeleteFunc(slices.Clone(o), func(m member) bool { return m.key == f.Name })
				}
				add("missing", setAt(full, path, without))
				add("case-twin-key", setAt(full, path, func(v jv) jv {
					return append(without(v).(obj), member{strings.ToUpper(f.Name), valid(f.Type, true)})
				}))
				add("null", setAt(full, path, func(v jv) jv {
					return append(without(v).(obj), member{f.Name, raw("null")})
				}))
				add("repeated-key", setAt(full, path, func(v jv) jv {
					return append(obj{{f.Name, raw("null")}}, v.(obj)...)
				}))
				if f.Presence == model.Defaulted {
					add("default-given", setAt(full, path, func(v jv) jv {
						return append(without(v).(obj), member{f.Name, raw(string(f.Default))})
					}))
				}
			}
			if len(t.Fields) > 0 {
				add("all-null", set(allNull))
				add("all-wrong", set(allWrong))
				rev := slices.Clone(allWrong)
				slices.Reverse(rev)
				add("all-wrong-reversed", set(rev))
			}
			for _, f := range t.Fields {
				walk(f.Type, append(slices.Clone(path), f.Name))
			}
		}
	}
	walk(tool.Args, nil)
	for _, bad := range []string{"", "{", `{"a":1,}`, "[]", "null", `"x"`, "1", "NaN", ` {} `, `{} x`, `{"a":01}`} {
		cs = append(cs, argCase{"syntax", bad})
	}
	// Valid cases first, always; the rest sampled.
	head, rest := cs[:2], cs[2:]
	r.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	return append(head, rest[:min(len(rest), limit-2)]...)
}

// customPrompts are custom system prompts for the prompt builders, by kind:
// none, blank, plain, with surrounding line breaks.
var customPrompts = []struct{ kind, text string }{
	{"no-custom", ""},
	{"blank-custom", " "},
	{"newline-custom", "\n"},
	{"custom", "Be brief."},
	{"custom-trailing-newline", "Be brief.\n"},
	{"custom-surrounding-newlines", "\n\nBe brief.\n\n"},
	{"custom-trailing-space", "Be brief. "},
}

// textValues are values for prompt parameters, session attributes and IDs.
var textValues = []string{"", "web", "é", "😀", "a\"b", "\\", "${x}", "\n", "{{repoName}}", "constructor", "__proto__", "toString", "\u2028"}
