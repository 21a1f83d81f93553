package jsonwrite

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// jsonSamples are documents whose encoding the writer must get exactly as
// encoding/json does: escapes of every kind, nesting, empty and nil
// containers, numbers spelled every way, and values it hands on
// (structs, floats).
var jsonSamples = []string{
	`null`, `true`, `0`, `-0`, `1.50`, `1e21`, `-2.5E-7`, `""`,
	`"<a & b> \"q\" \\ \/ \u0000\u0001\u001f\b\f\n\r\t\u007f é \u2028\u2029 😀 \ud800"`,
	`{}`, `[]`, `{"a":{}, "b":[], "c":[{}], "d":[[]]}`,
	`{"b":1,"a":{"d":[2,"x",true,null,{"z":0,"y":[1,2]}],"c":1e21},"":"empty key","é":"k","\n":"nl","A":"upper"}`,
	`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["deep"]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
}

// decodeNumbers decodes doc as the emitters read JSON: numbers as
// json.Number.
func decodeNumbers(t testing.TB, doc []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil || d.More() {
		return nil, false
	}
	return v, true
}

// checkJSON fails unless Marshal(v) and encoding/json agree: the same bytes,
// or both an error with the same message.
func checkJSON(t *testing.T, v any) {
	t.Helper()
	got, gotErr := Marshal(v)
	want, wantErr := EncodingJSON(v)
	switch {
	case (gotErr != nil) != (wantErr != nil) || gotErr != nil && gotErr.Error() != wantErr.Error():
		t.Errorf("Marshal(%#v): error %v, encoding/json's %v", v, gotErr, wantErr)
	case !bytes.Equal(got, want):
		t.Errorf("Marshal(%#v) =\n%s\nencoding/json:\n%s", v, got, want)
	}
}

// TestJSONAsEncodingJSON: the writer writes what encoding/json writes, for
// decoded documents, for the typed values emitters hand it, for values it
// passes to encoding/json at any depth, and for invalid numbers (the same
// error).
func TestJSONAsEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, doc := range jsonSamples {
		v, ok := decodeNumbers(t, []byte(doc))
		if !ok {
			t.Fatalf("sample %s does not decode", doc)
		}
		checkJSON(t, v)
		var f any // numbers as float64: handed to encoding/json
		if err := json.Unmarshal([]byte(doc), &f); err != nil {
			t.Fatal(err)
		}
		checkJSON(t, f)
	}
	type inner struct {
		X float64 `json:"x"`
		Y []int   `json:"y,omitempty"`
		Z any     `json:"z"`
	}
	for _, v := range []any{
		map[string]string{"b": "2", "a": "<1>"}, map[string]string{}, map[string]string(nil),
		[]string{"x", "\u2028"}, []string{}, []string(nil), []any(nil), map[string]any(nil),
		map[string]any{"s": []string{"a"}, "m": map[string]string{"k": "v"}, "i": 42, "n": -7},
		map[string]any{"in": []any{inner{X: 1e-7, Y: []int{1}, Z: map[string]any{"q": json.Number("1")}}, inner{}}},
		json.Number(""), json.Number("01"), json.Number("1."), json.Number(".5"), json.Number("1e"), json.Number("--1"), json.Number("null"),
		map[string]any{"bad": []any{json.Number("1"), json.Number("NaN")}},
		map[string]any{"f": func() {}},
		strings.Repeat("x", 100) + "\x80\xff",
	} {
		checkJSON(t, v)
	}
}

// FuzzJSON: for any document encoding/json decodes, and for any string,
// the writer writes encoding/json's bytes.
func FuzzJSON(f *testing.F) {
	for _, doc := range jsonSamples {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if v, ok := decodeNumbers(t, data); ok {
			checkJSON(t, v)
		}
		checkJSON(t, string(data))
		if utf8.Valid(data) {
			checkJSON(t, map[string]any{string(data): []any{string(data), json.Number(data)}})
		}
	})
}
