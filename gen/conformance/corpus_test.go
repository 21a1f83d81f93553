package conformance

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentc-dev/agentc/gen/internal/corpus"
	"github.com/agentc-dev/agentc/gen/model"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus/generated_*.txt and testdata/corpus/coverage/generated_*.txt from the model")

// A corpus case: one input for one tool, with the verdict its author meant.
type corpusCase = corpus.Case

// readCorpus reads the default spec's corpus, every testdata/corpus/*.txt
// file (see readCorpusDir).
func readCorpus(t testing.TB) []corpusCase {
	t.Helper()
	return readCorpusDir(t, filepath.Join("testdata", "corpus"))
}

// readCorpusDir reads every *.txt file of dir (corpus.ReadDir).
func readCorpusDir(t testing.TB, dir string) []corpusCase {
	t.Helper()
	cases, err := corpus.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestCorpusUpToDate checks (or with -update rewrites) the generated part
// of the corpus.
func TestCorpusUpToDate(t *testing.T) {
	s := defaultSpec(t)
	for _, tool := range s.Tools {
		path := filepath.Join("testdata", "corpus", "generated_"+tool.FileName+".txt")
		want := renderCases("TestCorpusUpToDate", tool.Name, generateCases(tool))
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is stale; run go test ./gen/conformance -run TestCorpusUpToDate -update", path)
		}
	}
}

// renderCases renders a generated corpus file; test names the test that
// writes it.
func renderCases(test, tool string, cs []genCase) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Generated from the model by %s -update: boundaries, wrong types, keys.\n", test)
	seen := map[string]bool{}
	for _, c := range cs {
		if seen[c.input] {
			continue
		}
		seen[c.input] = true
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", tool, c.name, c.expect, c.input)
	}
	return b.Bytes()
}

type genCase struct{ name, expect, input string }

// jv is a JSON value with ordered keys, rendered by render.
type jv any

type member struct {
	key string
	val jv
}

type obj []member

// raw is JSON text used as is.
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
		return strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(b))
	case bool:
		return fmt.Sprint(v)
	case float64:
		b, _ := json.Marshal(v)
		return string(b)
	}
	panic(fmt.Sprintf("render %T", v))
}

// valid returns a valid value of t; full includes optional fields.
func valid(t *model.Type, full bool) jv {
	switch t.Kind {
	case model.String:
		n := 1
		if t.MinLength != nil && *t.MinLength > n {
			n = *t.MinLength
		}
		s := strings.Repeat("a", n)
		if !validString(t, s) {
			for _, c := range stringExamples {
				if validString(t, c) {
					return c
				}
			}
		}
		return s
	case model.Literal:
		return t.Literal
	case model.Enum:
		return t.Enum[0]
	case model.Number, model.Integer:
		if t.Maximum != nil && !inRange(t, 1) {
			return float64(0)
		}
		return float64(1)
	case model.Boolean:
		return true
	case model.Array:
		n := 1
		if t.MinItems != nil && *t.MinItems > n {
			n = *t.MinItems
		}
		var out []jv
		for range n {
			out = append(out, valid(t.Items, full))
		}
		return out
	case model.Object:
		var o obj
		for _, f := range t.Fields {
			if f.Presence == model.Required || full {
				o = append(o, member{f.Name, valid(f.Type, full)})
			}
		}
		return o
	}
	panic("kind " + t.Kind)
}

// wrongValues are values of every JSON kind, for wrong-type cases.
var wrongValues = []struct {
	name string
	v    jv
	kind model.Kind
}{
	{"null", raw("null"), ""},
	{"true", raw("true"), model.Boolean},
	{"zero", raw("0"), model.Number},
	{"negfrac", raw("-1.5"), model.Number},
	{"huge", raw("1e400"), model.Number},
	{"str", "s", model.String},
	{"emptyarr", raw("[]"), model.Array},
	{"emptyobj", raw("{}"), model.Object},
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
		i := path[0].(int)
		out[i] = setAt(out[i], path[1:], fn)
		return out
	}
	panic("bad path")
}

func pathName(path []any) string {
	var parts []string
	for _, p := range path {
		parts = append(parts, fmt.Sprint(p))
	}
	if len(parts) == 0 {
		return "root"
	}
	return strings.Join(parts, ".")
}

// generateCases derives the systematic cases of a tool.
func generateCases(tool *model.Tool) []genCase {
	full := valid(tool.Args, true)
	var cs []genCase
	add := func(name, expect string, v jv) { cs = append(cs, genCase{name, expect, render(v)}) }
	add("minimal", "ok", valid(tool.Args, false))
	add("full", "ok", full)
	var walk func(t *model.Type, path []any, presence model.Presence)
	walk = func(t *model.Type, path []any, presence model.Presence) {
		at := pathName(path)
		for _, w := range wrongValues {
			right := w.kind == t.Kind || (w.kind == model.String && (t.Kind == model.Literal || t.Kind == model.Enum)) ||
				(w.kind == model.Number && t.Kind == model.Integer && w.name == "zero")
			if right {
				continue
			}
			add("wrongtype-"+at+"-"+w.name, "bad", setAt(full, path, func(jv) jv { return w.v }))
		}
		switch t.Kind {
		case model.String:
			stringCases(t, path, full, add)
		case model.Enum:
			for _, e := range t.Enum {
				add("enum-"+at+"-"+e, "ok", setAt(full, path, func(jv) jv { return e }))
				add("enumcase-"+at+"-"+e, "bad", setAt(full, path, func(jv) jv { return strings.ToUpper(e[:1]) + e[1:] }))
			}
			add("enum-empty-"+at, "bad", setAt(full, path, func(jv) jv { return "" }))
		case model.Literal:
			add("literal-other-"+at, "bad", setAt(full, path, func(jv) jv { return t.Literal + "x" }))
			add("literal-upper-"+at, "bad", setAt(full, path, func(jv) jv { return strings.ToUpper(t.Literal) }))
		case model.Array:
			item := valid(t.Items, true)
			counts := []int{0, 1, 2}
			if t.MinItems != nil {
				counts = append(counts, *t.MinItems-1, *t.MinItems)
			}
			if t.MaxItems != nil {
				counts = append(counts, *t.MaxItems, *t.MaxItems+1)
			}
			for _, n := range counts {
				if n < 0 {
					continue
				}
				expect := "ok"
				if (t.MinItems != nil && n < *t.MinItems) || (t.MaxItems != nil && n > *t.MaxItems) {
					expect = "bad"
				}
				items := make([]jv, n)
				for i := range items {
					items[i] = item
				}
				add(fmt.Sprintf("count-%s-%d", at, n), expect, setAt(full, path, func(jv) jv { return items }))
			}
			// Items that all fail, plus a count failure: every issue, in order.
			if t.MaxItems != nil {
				items := make([]jv, *t.MaxItems+1)
				for i := range items {
					items[i] = raw("null")
				}
				add("count-and-items-"+at, "bad", setAt(full, path, func(jv) jv { return items }))
			}
			walk(t.Items, append(slices.Clone(path), 0), model.Required)
		case model.Object:
			objectCases(t, path, full, add)
			for _, f := range t.Fields {
				walk(f.Type, append(slices.Clone(path), f.Name), f.Presence)
			}
		}
	}
	walk(tool.Args, nil, model.Required)
	return cs
}

func objectCases(t *model.Type, path []any, full jv, add func(string, string, jv)) {
	at := pathName(path)
	add("extra-key-"+at, "ok", setAt(full, path, func(v jv) jv {
		return append(slices.Clone(v.(obj)), member{"extra_unknown", raw(`{"deep":[1,2,{"x":null}]}`)})
	}))
	add("proto-key-"+at, "ok", setAt(full, path, func(v jv) jv { return append(slices.Clone(v.(obj)), member{"__proto__", raw(`{"x":1}`)}) }))
	add("empty-object-"+at, expectEmpty(t), setAt(full, path, func(jv) jv { return obj{} }))
	for i, f := range t.Fields {
		without := func(v jv) jv {
			o := slices.Clone(v.(obj))
			return slices.DeleteFunc(o, func(m member) bool { return m.key == f.Name })
		}
		expect := "ok"
		if f.Presence == model.Required {
			expect = "bad"
		}
		add("missing-"+at+"-"+f.Name, expect, setAt(full, path, without))
		// Case-sensitive keys: the upper-cased key is unknown.
		add("casekey-"+at+"-"+f.Name, expect, setAt(full, path, func(v jv) jv {
			o := without(v).(obj)
			return append(o, member{strings.ToUpper(f.Name), valid(f.Type, true)})
		}))
		// null is not absent.
		add("null-"+at+"-"+f.Name, "bad", setAt(full, path, func(v jv) jv {
			o := slices.Clone(v.(obj))
			o[i].val = raw("null")
			return o
		}))
		// Duplicate keys: the last wins.
		add("dup-last-valid-"+at+"-"+f.Name, "ok", setAt(full, path, func(v jv) jv {
			o := slices.Clone(v.(obj))
			return append(obj{{f.Name, raw("null")}}, o...)
		}))
		add("dup-last-invalid-"+at+"-"+f.Name, "bad", setAt(full, path, func(v jv) jv {
			o := slices.Clone(v.(obj))
			return append(o, member{f.Name, raw("null")})
		}))
	}
}

func expectEmpty(t *model.Type) string {
	for _, f := range t.Fields {
		if f.Presence == model.Required {
			return "bad"
		}
	}
	return "ok"
}

// unit is a string unit for length cases: its JSON text and code points.
type unit struct {
	name string
	text string // JSON string content (escaped as needed)
	cps  int
}

var units = []unit{
	{"ascii", "a", 1},
	{"emoji", "😀", 1},
	{"pair", `\ud83d\ude00`, 1},
	{"combining", "e\u0301", 2},
	{"lone", `\ud800`, 1},
	{"cjk", "漢", 1},
	{"escaped", `\n`, 1},
}

func stringCases(t *model.Type, path []any, full jv, add func(string, string, jv)) {
	at := pathName(path)
	var lengths []int
	if t.MinLength != nil {
		lengths = append(lengths, *t.MinLength-1, *t.MinLength)
	}
	if t.MaxLength != nil {
		lengths = append(lengths, *t.MaxLength, *t.MaxLength+1)
	}
	if len(lengths) == 0 {
		lengths = []int{0, 3}
	}
	for _, u := range units {
		for _, n := range lengths {
			if n < 0 {
				continue
			}
			reps := n / u.cps
			if reps*u.cps != n {
				continue
			}
			text := strings.Repeat(u.text, reps)
			expect := "ok"
			if (t.MinLength != nil && n < *t.MinLength) || (t.MaxLength != nil && n > *t.MaxLength) || failsChecks(t, decodeJSONString(text)) {
				expect = "bad"
			}
			add(fmt.Sprintf("len-%s-%s-%d", at, u.name, n), expect, setAt(full, path, func(jv) jv { return raw(`"` + text + `"`) }))
		}
	}
	if len(t.Checks) > 0 {
		for _, p := range pathVariants {
			expect := "ok"
			dec := decodeJSONString(p)
			if failsChecks(t, dec) || (t.MaxLength != nil && utf8.RuneCountInString(dec) > *t.MaxLength) {
				expect = "bad"
			}
			add(fmt.Sprintf("path-%s-%q", at, dec), expect, setAt(full, path, func(jv) jv { return raw(`"` + p + `"`) }))
		}
	}
}

func decodeJSONString(content string) string {
	var s string
	if err := json.Unmarshal([]byte(`"`+content+`"`), &s); err != nil {
		panic(err)
	}
	return s
}

// failsChecks applies the type's patterns and named checks (their RE2
// definition, as CUE reads them) to the decoded string s.
func failsChecks(t *model.Type, s string) bool {
	for _, p := range t.Patterns {
		if !regexp.MustCompile(p.Regexp).MatchString(s) {
			return true
		}
	}
	for _, c := range t.Checks {
		for _, p := range c.Reject {
			if regexp.MustCompile(p.Regexp).MatchString(s) {
				return true
			}
		}
		for _, p := range c.Match {
			if !regexp.MustCompile(p.Regexp).MatchString(s) {
				return true
			}
		}
	}
	return false
}

// pathVariants are JSON string contents probing a relative-path check.
var pathVariants = []string{
	`..`, `a/../b`, `./..`, `..\\`, `..\\a`, `a\\..\\b`, `a/..`, `a/../`, `/..`, `../a`, `../`, `/`, `/a`, `//a`,
	``, `C:\\x`, `c:/x`, `C:`, `z:`, `1:`, `.`, `./a`, `a/./b`, `a//b`, `a`, `.env`, `.env.local`, `a/b/c.txt`,
	`...`, `..a`, `a..`, `a/.../b`, `a/..b`, `a/b..`, `%2e%2e`, `%2e%2e/a`, `．．`, `．．/a`, `‥`, `a/‥/b`,
	`\u002e\u002e`, `\u002e\u002e/a`, `a\u002f..`, `\u0000`, `..\u0000`, ` ..`, `.. `, `a/ ../b`, `~`, `~/x`,
	`\\\\server\\share`, `\\`, `a\\b`, `\t..`, `\n../a`, `..\n`, `a/..\n`, `é/../b`, `😀/..`, `😀`,
	`a/b/../../..`, `\ud800/..`, `\ud800`, `a:b`, `a/c:`, `./`, `./.`, `.../..`,
}
