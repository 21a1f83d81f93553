package agentrt

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"
)

func TestScanPlain(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"abcdefghijklmnop\"", 16}, {"abc", 3}, {"abcdefgh\\", 8}, {"abcdefg\x1f", 7}, {"abcdefghijé", 10}, {"\"", 0},
	} {
		if got := scanPlain([]byte(tc.s), 0); got != tc.want {
			t.Errorf("scanPlain(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}

// TestReadStringReplacement: invalid UTF-8 becomes one U+FFFD per maximal
// subpart (as a WHATWG decoder reads it); lone surrogates become U+FFFD.
func TestReadStringReplacement(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\"\xF0\x90\x80\"", "\uFFFD"},
		{"\"\xE0\x80\"", "\uFFFD\uFFFD"},
		{"\"a\xFFb\"", "a\uFFFDb"},
		{`"\ud800x"`, "\uFFFDx"},
		{`"\ud83d\ude00"`, "😀"},
		{`"\ude00\ud83d"`, "\uFFFD\uFFFD"},
		{`"\u00e9\n\/"`, "é\n/"},
		{"\"\xC3(\"", "\uFFFD("},
		{"\"\xE1\x80\"", "\uFFFD"},
		{"\"\xED\xA0\x80\"", "\uFFFD\uFFFD\uFFFD"}, // an encoded surrogate
		{"\"\xF1\x80\x80\"", "\uFFFD"},
		{"\"\xF4\x90\x80\x80\"", "\uFFFD\uFFFD\uFFFD\uFFFD"}, // beyond U+10FFFF
	} {
		d := Decoder{data: []byte(tc.in)}
		text, ok := d.readString(0)
		got := string(text)
		if !ok || got != tc.want || !utf8.ValidString(got) {
			t.Errorf("readString(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

// TestReadStringErrors: a string that JSON.parse refuses is a syntax
// error at the offending byte.
func TestReadStringErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\"a\x01\"", "invalid JSON at offset 2: control character in string"},
		{`"a\`, "invalid JSON at offset 2: unterminated escape"},
		{`"\u12G4"`, "invalid JSON at offset 3: invalid \\u escape"},
		{`"\u12"`, "invalid JSON at offset 3: invalid \\u escape"},
		{`"\x"`, "invalid JSON at offset 2: invalid escape"},
		{`"abc`, "invalid JSON at offset 4: unterminated string"},
	} {
		d := Decoder{data: []byte(tc.in)}
		if _, ok := d.readString(0); ok || d.err == nil || d.err.Error() != tc.want {
			t.Errorf("readString(%q): ok %v, error %v; want %q", tc.in, ok, d.err, tc.want)
		}
	}
}

func TestSkipDeep(t *testing.T) {
	in := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	d := Decoder{data: []byte(in)}
	if k := d.skip(); k != kindArray || d.err != nil || d.pos != len(in) {
		t.Errorf("skip = %q, err %v, pos %d", k, d.err, d.pos)
	}
	d = Decoder{data: []byte(`{"a":[1,{"b":2]}`)}
	if d.skip(); d.err == nil || d.err.Error() != "invalid JSON at offset 14: expected ',' or '}'" {
		t.Errorf("skip of a mismatched bracket: %v", d.err)
	}
}

func TestAppendJSString(t *testing.T) {
	got := string(appendJSString(nil, "a\"\\\b\f\n\r\t\x01<>&\u2028é"))
	want := `"a\"\\\b\f\n\r\t\u0001<>&` + "\u2028é\""
	if got != want {
		t.Errorf("appendJSString = %s, want %s", got, want)
	}
}

// TestStringConstraints: the runtime's string checks count code points
// (an emoji is one) and report zod's issues, in call order.
func TestStringConstraints(t *testing.T) {
	re := regexp.MustCompile(`^\S`)
	c := &NamedCheck{Message: "no dots", Reject: []*regexp.Regexp{regexp.MustCompile(`\.`)}}
	for _, tc := range []struct {
		s    string
		want []string
	}{
		{"ab", nil},
		{"😀", []string{"too_small >=2"}},
		{"😀😀😀", []string{"too_big <=2"}},
		{" .", []string{"invalid_format /^\\S/u", "custom no dots"}},
		{"", []string{"too_small >=2", "invalid_format /^\\S/u"}},
	} {
		var d Decoder
		d.MinRunes(tc.s, 2)
		d.MaxRunes(tc.s, 2)
		d.Pattern(tc.s, re, "/^\\S/u")
		d.Check(tc.s, c)
		var got []string
		for _, is := range d.issues {
			msg := is.Message
			for _, p := range []string{"Too small: expected string to have ", "Too big: expected string to have ",
				"Invalid string: must match pattern "} {
				msg = strings.TrimPrefix(msg, p)
			}
			got = append(got, is.Code+" "+msg)
		}
		for i := range got {
			got[i] = strings.TrimSuffix(got[i], " characters")
		}
		if strings.Join(got, "; ") != strings.Join(tc.want, "; ") {
			t.Errorf("%q: issues %q, want %q", tc.s, got, tc.want)
		}
	}
}

// TestNamedCheck: a named check fails, with its one custom issue, when
// any of its !~ patterns matches or any of its =~ patterns does not.
func TestNamedCheck(t *testing.T) {
	c := &NamedCheck{Message: "a relative path",
		Reject: []*regexp.Regexp{regexp.MustCompile(`^/`), regexp.MustCompile(`\.\.`)},
		Match:  []*regexp.Regexp{regexp.MustCompile(`^[a-z]`), regexp.MustCompile(`[a-z]$`)}}
	for s, ok := range map[string]bool{"src/app": true, "/src": false, "a/../b": false, "1src": false, "src/": false, "": false} {
		var d Decoder
		d.Check(s, c)
		var got []string
		for _, is := range d.issues {
			got = append(got, is.Code+": "+is.Message)
		}
		want := []string{"custom: a relative path"}
		if ok {
			want = nil
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: issues %q, want %q", s, got, want)
		}
	}
}

// TestDeepPath: a path deeper than the Decoder holds in itself continues
// in a slice, and an issue at any depth carries the whole path; leaving a
// deep path and entering another reuses the slice.
func TestDeepPath(t *testing.T) {
	var d Decoder
	d.Reset(nil) // nothing to read: only the path is exercised
	var want []any
	for i := range 2*inlinePath + 3 {
		if i%2 == 0 {
			d.push(pathElem{key: strconv.Itoa(i), index: -1})
			want = append(want, strconv.Itoa(i))
		} else {
			d.push(pathElem{index: i})
			want = append(want, i)
		}
	}
	d.add(Issue{Code: "custom", Message: "deep"})
	for range 3 {
		d.pop()
	}
	d.push(pathElem{key: "again", index: -1})
	d.add(Issue{Code: "custom", Message: "again"})
	got := d.issues
	if len(got) != 2 || fmt.Sprint(got[0].Path) != fmt.Sprint(want) {
		t.Fatalf("deep issue path %v, want %v", got[0].Path, want)
	}
	again := append(append([]any(nil), want[:len(want)-3]...), "again")
	if fmt.Sprint(got[1].Path) != fmt.Sprint(again) {
		t.Errorf("path after leaving and entering %v, want %v", got[1].Path, again)
	}
	dotted := func(path []any) string {
		var parts []string
		for _, p := range path {
			parts = append(parts, fmt.Sprint(p))
		}
		return strings.Join(parts, ".")
	}
	if err, want := d.End(), dotted(want)+": deep, "+dotted(again)+": again"; err == nil || err.Error() != want {
		t.Errorf("End = %v, want %s", err, want)
	}
}

// TestIssuesError: each issue is "<path>: <message>" (keys and indices
// joined with "."), one at the root its message alone, joined with ", ".
func TestIssuesError(t *testing.T) {
	tests := []struct {
		issues Issues
		want   string
	}{
		{Issues{{Message: "Invalid input: expected object, received string"}},
			"Invalid input: expected object, received string"},
		{Issues{{Path: []any{"commands", 0, "name"}, Message: "Too small"}, {Path: []any{"commands", 12, "command"}, Message: "Invalid input"}},
			"commands.0.name: Too small, commands.12.command: Invalid input"},
		{Issues{{Path: []any{"a.b", ""}, Message: "odd keys"}, {Message: "root"}},
			"a.b.: odd keys, root"},
	}
	for _, tc := range tests {
		if got := tc.issues.Error(); got != tc.want {
			t.Errorf("Issues.Error() = %q, want %q", got, tc.want)
		}
	}
}

// TestIssueJSON: an issue alone is written as zod's JSON.stringify writes
// it, its path's keys quoted and indices bare, and a list of issues is
// the array of them.
func TestIssueJSON(t *testing.T) {
	is := Issue{Code: "custom", Path: []any{"commands", 0, `na"me`}, Message: "bad"}
	want := `{"code":"custom","path":["commands",0,"na\"me"],"message":"bad"}`
	if b, err := json.Marshal(is); err != nil || string(b) != want {
		t.Errorf("Marshal(%+v) = %s, %v; want %s", is, b, err, want)
	}
	if b, _ := (Issues{is, is}).MarshalJSON(); string(b) != "["+want+","+want+"]" {
		t.Errorf("Issues.MarshalJSON = %s", b)
	}
	// zod's key order for a failed pattern.
	var d Decoder
	d.Pattern("b", regexp.MustCompile(`^a`), "/^a/u")
	want = `{"origin":"string","code":"invalid_format","format":"regex","pattern":"/^a/u","path":[],"message":"Invalid string: must match pattern /^a/u"}`
	if b, err := json.Marshal(d.issues[0]); err != nil || string(b) != want {
		t.Errorf("Marshal of a pattern's issue = %s, %v; want %s", b, err, want)
	}
}

// TestOpt: an Opt field tagged omitzero is left out when absent and
// written when present, even as its zero value; unmarshalling sets it
// present, and an absent key leaves it absent, as generated types rely on
// for their results and for a gateway that reads arguments back with
// encoding/json.
func TestOpt(t *testing.T) {
	type fields struct {
		N Opt[int]    `json:"n,omitzero"`
		S Opt[string] `json:"s,omitzero"`
	}
	for _, c := range []struct {
		v    fields
		want string
	}{
		{fields{}, `{}`},
		{fields{N: Some(0)}, `{"n":0}`},
		{fields{N: Some(2), S: Some("")}, `{"n":2,"s":""}`},
	} {
		b, err := json.Marshal(c.v)
		if err != nil || string(b) != c.want {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", c.v, b, err, c.want)
		}
		var back fields
		if err := json.Unmarshal(b, &back); err != nil || back != c.v {
			t.Errorf("Unmarshal(%s) = %+v, %v; want %+v", b, back, err, c.v)
		}
	}
	if b, err := json.Marshal(Opt[int]{}); err != nil || string(b) != "null" {
		t.Errorf("Marshal of an absent Opt alone = %s, %v; want null", b, err)
	}
}

// TestNumberChecks: a number field's checks as the generated decoders call
// them (Num, then Int, then the bounds) record zod 4's issues, written as
// zod's JSON.stringify writes them, and stop at a syntax error.
func TestNumberChecks(t *testing.T) {
	// decode runs the checks of an int field >=1 and <10 on in.
	decode := func(in string) error {
		var d Decoder
		d.Reset([]byte(in))
		var f float64
		if d.Num(&f) && d.Int(f) {
			d.Gte(f, 1, "1")
			d.Lt(f, 10, "10")
		}
		return d.End()
	}
	for _, c := range []struct{ in, want string }{
		{`5`, ``},
		{`1`, ``},
		{`0`, `[{"origin":"number","code":"too_small","minimum":1,"inclusive":true,"path":[],"message":"Too small: expected number to be >=1"}]`},
		{`10`, `[{"origin":"number","code":"too_big","maximum":10,"inclusive":false,"path":[],"message":"Too big: expected number to be <10"}]`},
		{`1.5`, `[{"expected":"int","format":"safeint","code":"invalid_type","path":[],"message":"Invalid input: expected int, received number"}]`},
		{`1e300`, `[{"code":"too_big","maximum":9007199254740991,"note":"Integers must be within the safe integer range.","origin":"int","path":[],"message":"Too big: expected int to be <9007199254740991"},` +
			`{"origin":"number","code":"too_big","maximum":10,"inclusive":false,"path":[],"message":"Too big: expected number to be <10"}]`},
		{`-1e300`, `[{"code":"too_small","minimum":-9007199254740991,"note":"Integers must be within the safe integer range.","origin":"int","path":[],"message":"Too small: expected int to be >-9007199254740991"},` +
			`{"origin":"number","code":"too_small","minimum":1,"inclusive":true,"path":[],"message":"Too small: expected number to be >=1"}]`},
		{`1e400`, `[{"expected":"number","code":"invalid_type","received":"Infinity","path":[],"message":"Invalid input: expected number, received number"}]`},
		{`"5"`, `[{"expected":"number","code":"invalid_type","path":[],"message":"Invalid input: expected number, received string"}]`},
	} {
		err := decode(c.in)
		var got []byte
		if issues, ok := err.(Issues); ok {
			got, _ = issues.MarshalJSON()
		} else if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("%s: issues\n%s\nwant\n%s", c.in, got, c.want)
		}
	}
	// The other two bounds: exclusive minimum, inclusive maximum.
	var d Decoder
	d.Gt(2, 1, "1")
	d.Lte(2, 2, "2")
	d.Gt(1, 1, "1")
	d.Lte(3, 2, "2")
	got, _ := d.End().(Issues).MarshalJSON()
	if want := `[{"origin":"number","code":"too_small","minimum":1,"inclusive":false,"path":[],"message":"Too small: expected number to be >1"},` +
		`{"origin":"number","code":"too_big","maximum":2,"inclusive":true,"path":[],"message":"Too big: expected number to be <=2"}]`; string(got) != want {
		t.Errorf("Gt and Lte: issues\n%s\nwant\n%s", got, want)
	}
	for _, c := range []struct{ in, want string }{
		{`1 2`, "invalid JSON at offset 2: unexpected data after the value"},
		{`1.`, "invalid JSON at offset 2: invalid number"},
		{`-`, "invalid JSON at offset 1: invalid number"},
		{`1e+`, "invalid JSON at offset 3: invalid number"},
	} {
		var syntax *SyntaxError
		if err := decode(c.in); !errors.As(err, &syntax) || err.Error() != c.want {
			t.Errorf("%s: %v, want the syntax error %q", c.in, err, c.want)
		}
	}
}

// TestEnumAndEmptyObject: an enum matches a value however it is escaped
// and holds values' own element; another string or another type is zod's
// invalid_value. An object of no fields strips every key and refuses
// another type with invalid_type.
func TestEnumAndEmptyObject(t *testing.T) {
	values := []string{"a", "é"}
	const msg = `Invalid option: expected one of "a"|"é"`
	for _, c := range []struct{ in, want, issues string }{
		{`"a"`, "a", ``},
		{`"\u00e9"`, "é", ``},
		{`"b"`, "", `[{"code":"invalid_value","values":["a","é"],"path":[],"message":"` + strings.ReplaceAll(msg, `"`, `\"`) + `"}]`},
		{`["a"]`, "", `[{"code":"invalid_value","values":["a","é"],"path":[],"message":"` + strings.ReplaceAll(msg, `"`, `\"`) + `"}]`},
	} {
		var d Decoder
		d.Reset([]byte(c.in))
		var v string
		ok := d.Enum(&v, values, msg)
		var got []byte
		if issues, isIssues := d.End().(Issues); isIssues {
			got, _ = issues.MarshalJSON()
		}
		if ok != (c.want != "") || v != c.want || string(got) != c.issues {
			t.Errorf("Enum(%s) = %v, %q, issues %s; want %q, issues %s", c.in, ok, v, got, c.want, c.issues)
		}
		if c.want != "" && unsafe.StringData(v) != unsafe.StringData(values[slices.Index(values, c.want)]) {
			t.Errorf("Enum(%s) holds a copy, not values' element", c.in)
		}
	}
	for _, in := range []string{`"\u00`, `[1,}`} {
		var d Decoder
		d.Reset([]byte(in))
		var v string
		var syntax *SyntaxError
		if d.Enum(&v, values, msg) || !errors.As(d.End(), &syntax) {
			t.Errorf("Enum(%s): no syntax error (issues %v)", in, d.issues)
		}
	}
	for _, c := range []struct{ in, issues string }{
		{` { "a" : [1, {"b": null}], "c": "d" } `, ``},
		{`{}`, ``},
		{`[]`, `[{"expected":"object","code":"invalid_type","path":[],"message":"Invalid input: expected object, received array"}]`},
	} {
		var d Decoder
		d.Reset([]byte(c.in))
		d.Object(nil, nil, nil)
		err := d.End()
		var got []byte
		if issues, isIssues := err.(Issues); isIssues {
			got, _ = issues.MarshalJSON()
		} else if err != nil {
			t.Errorf("Object(nil, nil, nil) of %s: %v", c.in, err)
		}
		if string(got) != c.issues {
			t.Errorf("Object(nil, nil, nil) of %s: issues %s, want %s", c.in, got, c.issues)
		}
	}
	var d Decoder
	d.Reset([]byte(`{"a":}`))
	if d.Object(nil, nil, nil); d.End() == nil {
		t.Error("Object(nil, nil, nil) of a broken member: no syntax error")
	}
}
