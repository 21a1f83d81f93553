package agentrt

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// outer and inner are argument objects decoded as the generated decoders
// decode them, through Object and Array: outer has a required string a,
// an optional number b, a required list c of inner and a boolean d that
// defaults to true; inner a required string x and an optional list y of
// one or two strings.
type outer struct {
	A string
	B Opt[float64]
	C []inner
	D bool
}

type inner struct {
	X string
	Y []string
}

func undefined(expected string) Issue {
	return Issue{Code: "invalid_type", Expected: expected, Message: "Invalid input: expected " + expected + ", received undefined"}
}

var (
	keysOuter    = []string{"a", "b", "c", "d"}
	missingOuter = []Issue{undefined("string"), {}, undefined("array"), {}}
	keysInner    = []string{"x", "y"}
	missingInner = []Issue{undefined("string"), {}}
)

func decodeOuter(d *Decoder, v *outer) {
	seen, ok := d.Object(keysOuter, missingOuter, func(i int) {
		switch i {
		case 0:
			v.A = ""
			d.Str(&v.A)
		case 1:
			v.B = Opt[float64]{Set: true}
			d.Num(&v.B.Value)
		case 2:
			v.C = nil
			Array(d, &v.C, func(e *inner) {
				decodeInner(d, e)
			})
		case 3:
			v.D = false
			d.Bool(&v.D)
		}
	})
	if ok && seen&0x8 == 0 {
		v.D = true
	}
}

func decodeInner(d *Decoder, v *inner) {
	d.Object(keysInner, missingInner, func(i int) {
		switch i {
		case 0:
			v.X = ""
			d.Str(&v.X)
		case 1:
			v.Y = nil
			n, ok := Array(d, &v.Y, func(e *string) {
				d.Str(e)
			})
			if ok {
				d.MinItems(n, 1)
				d.MaxItems(n, 2)
			}
		}
	})
}

// issueText is an issue as "<path> <code>" (the path dotted).
func issueText(is Issue) string {
	var path []string
	for _, p := range is.Path {
		path = append(path, fmt.Sprint(p))
	}
	return strings.Join(path, ".") + " " + is.Code
}

// TestObject: Object and Array decode as JSON.parse and the zod schema
// do: the last of repeated keys wins, with its issues only; unknown keys
// are stripped; absent required fields are reported in field order, and
// every issue comes out in field order whatever the order of the keys;
// defaults apply to an object only; a value of another type is one
// invalid_type issue.
func TestObject(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		value    string // outer, as %+v prints it
		issues   string // issueText, joined by "; "
	}{
		{"minimal", `{"a":"x","c":[]}`, `{A:x B:{Value:0 Set:false} C:[] D:true}`, ""},
		{"full", `{"d":false,"c":[{"x":"p","y":["q"]},{"x":"r"}],"b":2.5,"a":"x"}`,
			`{A:x B:{Value:2.5 Set:true} C:[{X:p Y:[q]} {X:r Y:[]}] D:false}`, ""},
		{"unknown keys", `{"z":{"deep":[1,{"q":null}]},"a":"x","c":[],"zz":1,"A":2}`,
			`{A:x B:{Value:0 Set:false} C:[] D:true}`, ""},
		{"escaped keys", `{"\u0061":"x","c":[],"\u0064":false,"\u0061\u0062":1,"é😀":2}`,
			`{A:x B:{Value:0 Set:false} C:[] D:false}`, ""},
		{"empty", `{}`, `{A: B:{Value:0 Set:false} C:[] D:true}`, "a invalid_type; c invalid_type"},
		{"field order", `{"d":1,"zz":0,"c":[{"y":[]},{"y":[1,"a","b"],"x":2}],"b":"s","a":2}`, "",
			"a invalid_type; b invalid_type; c.0.x invalid_type; c.0.y too_small; " +
				"c.1.x invalid_type; c.1.y.0 invalid_type; c.1.y too_big; d invalid_type"},
		{"repeated keys", `{"a":1,"a":"ok","b":"bad","b":2,"c":[{}],"c":[{"x":"p","x":"q","y":[1],"y":["r"]}],"d":false,"d":true}`,
			`{A:ok B:{Value:2 Set:true} C:[{X:q Y:[r]}] D:true}`, ""},
		{"repeated key, last bad", `{"c":[],"a":"ok","d":true,"a":1}`, "", "a invalid_type"},
		{"repeated key between others", `{"c":[{}],"b":"s","c":[{"x":"v"}],"a":"x"}`, "", "b invalid_type"},
		{"null", `null`, `{A: B:{Value:0 Set:false} C:[] D:false}`, " invalid_type"},
		{"array", `[{"a":"x"}]`, "", " invalid_type"},
		{"string", `"{}"`, "", " invalid_type"},
		{"not an array", `{"a":"x","c":{"0":{}}}`, "", "c invalid_type"},
		{"not an object in an array", `{"a":"x","c":[null,{"x":"y"},"s"]}`, "", "c.0 invalid_type; c.2 invalid_type"},
	} {
		var d Decoder
		var v outer
		d.Reset([]byte(tc.in))
		decodeOuter(&d, &v)
		err := d.End()
		var got []string
		if err != nil {
			var issues Issues
			if !errors.As(err, &issues) {
				t.Errorf("%s: %v", tc.name, err)
				continue
			}
			for _, is := range issues {
				got = append(got, issueText(is))
			}
		}
		if s := strings.Join(got, "; "); s != tc.issues {
			t.Errorf("%s: issues %q, want %q", tc.name, s, tc.issues)
		}
		if s := fmt.Sprintf("%+v", v); tc.value != "" && s != tc.value {
			t.Errorf("%s: value %s, want %s", tc.name, s, tc.value)
		}
	}
}

// TestObjectSyntaxError: decoding stops at the first syntax error, in an
// object or array at any depth: Object and Array report !ok, defaults are
// not applied, and End returns the *SyntaxError.
func TestObjectSyntaxError(t *testing.T) {
	for _, in := range []string{
		`{"a":"x",}`, `{"a" 1}`, `{"a":"x"`, `{"b":1,"a":tru}`, `{"zz":[1,}`, `{"c":[{"x":"p"},]}`,
		`{"c":[{"y":["a" "b"]}],"d":true}`, `{"c":[{"x":1]`, `{1:2}`, `{"a":"x"} {}`, `{"zz":{1:2}}`, `{"zz":[x]}`,
	} {
		var d Decoder
		var v outer
		d.Reset([]byte(in))
		decodeOuter(&d, &v)
		var syntax *SyntaxError
		if err := d.End(); !errors.As(err, &syntax) {
			t.Errorf("%s: End = %v, want a syntax error", in, err)
		}
		if v.D && in != `{"a":"x"} {}` {
			t.Errorf("%s: the default was applied", in)
		}
	}
}

// TestObjectResults: Object's seen has a bit per present field; ok is
// false for a value that is not an object and after a syntax error.
func TestObjectResults(t *testing.T) {
	for _, tc := range []struct {
		in   string
		seen uint64
		ok   bool
	}{
		{`{}`, 0, true},
		{`{"b":1,"zz":1,"d":true}`, 0xa, true},
		{`{"d":1,"d":2,"a":"x","c":[],"b":1}`, 0xf, true},
		{`null`, 0, false},
		{`{"a":"x","c":[}`, 0x5, false},
	} {
		var d Decoder
		d.Reset([]byte(tc.in))
		seen, ok := d.Object(keysOuter, missingOuter, func(int) { d.skip() })
		if seen != tc.seen || ok != tc.ok {
			t.Errorf("%s: Object = %#x, %v; want %#x, %v", tc.in, seen, ok, tc.seen, tc.ok)
		}
	}
}

// TestObject64: an object of 64 fields, the most seen holds, reports
// exactly its absent required fields.
func TestObject64(t *testing.T) {
	keys := make([]string, 64)
	missing := make([]Issue, 64)
	for i := range keys {
		keys[i] = fmt.Sprintf("f%d", i)
	}
	missing[0], missing[63] = undefined("string"), undefined("string")
	for _, tc := range []struct{ in, want string }{
		{`{"f0":"","f63":""}`, ""},
		{`{"f0":""}`, "f63 invalid_type"},
		{`{"f63":"","f5":""}`, "f0 invalid_type"},
	} {
		var d Decoder
		d.Reset([]byte(tc.in))
		d.Object(keys, missing, func(int) { d.skip() })
		var got []string
		for _, is := range d.issues {
			got = append(got, issueText(is))
		}
		if s := strings.Join(got, "; "); s != tc.want {
			t.Errorf("%s: issues %q, want %q", tc.in, s, tc.want)
		}
	}
}

// TestObjectAllocs: decoding valid input into a preallocated value
// allocates nothing: the callbacks live on the stack, a key without
// escapes is compared in place, and an unknown member is skipped without
// building its keys' and strings' text.
func TestObjectAllocs(t *testing.T) {
	data := []byte(`{"a":"","zz":{"q\n":[1],"r\t":["\u00e9\ud800"]},"c":[],"b":1,"d":false}`)
	allocs := testing.AllocsPerRun(100, func() {
		var d Decoder
		var v outer
		d.Reset(data)
		decodeOuter(&d, &v)
		if d.End() != nil {
			t.Fatal("valid input refused")
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per decode, want 0", allocs)
	}
}
