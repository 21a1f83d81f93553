// Package jsonwrite writes JSON as agentc's files and messages carry it:
// the bytes of encoding/json with two-space indentation and no HTML
// escaping, written directly (Writer) for generated documents, and the
// rules of encoding/json that the loader and the emitters need (string
// escapes, number literals).
package jsonwrite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Marshal encodes v as the emitters write JSON files: two-space indentation,
// map keys sorted (as encoding/json writes them), no HTML escaping and a
// final newline — the bytes of an encoding/json Encoder with
// SetEscapeHTML(false) and SetIndent("", "  "), and its errors. It writes
// maps, slices, strings, json.Number, booleans, ints and Value
// implementations itself (Writer.Value) and hands any other value to
// encoding/json.
func Marshal(v any) ([]byte, error) {
	var w Writer
	if err := w.Value(v); err != nil {
		return nil, err
	}
	return w.Bytes(), nil
}

// EncodingJSON is Marshal by encoding/json alone: the reference the writer
// matches (and its tests compare with), and the encoding of values that
// are read by programs and people rather than written into files.
func EncodingJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Value is a value that writes itself as JSON (for Marshal and
// Writer.Value): generated manifests write their fields straight into
// the file, with no reflection. WriteJSON must write exactly one value.
type Value interface {
	WriteJSON(w *Writer) error
}

// Writer writes one JSON document as JSON formats it, value by value,
// into a growing buffer: a direct writer for generated documents (JSON
// Schemas, manifests) that encoding/json would first reflect over, then
// sort, then indent again. The caller writes an object's keys in the order
// encoding/json sorts them (byte order); the writer indents, separates and
// escapes. The zero value is ready to use.
type Writer struct {
	buf []byte
	// open holds, per open object or array, whether it has an element yet.
	open []bool
	// afterKey is set between a key and its value.
	afterKey bool
}

// indent is the indentation of the deepest levels written at once.
const indent = "                                                                "

// Grow makes room for n more bytes.
func (w *Writer) Grow(n int) { w.buf = slices.Grow(w.buf, n) }

// Bytes returns the document with its final newline. The writer must not
// be used after.
func (w *Writer) Bytes() []byte { return append(w.buf, '\n') }

// newline starts a line at the current depth.
func (w *Writer) newline() {
	n := 2 * len(w.open)
	w.buf = append(w.buf, '\n')
	for n > len(indent) {
		w.buf = append(w.buf, indent...)
		n -= len(indent)
	}
	w.buf = append(w.buf, indent[:n]...)
}

// elem starts an element of the innermost array or object, or a key's
// value.
func (w *Writer) elem() {
	if w.afterKey {
		w.afterKey = false
		return
	}
	if len(w.open) == 0 {
		return
	}
	if last := &w.open[len(w.open)-1]; *last {
		w.buf = append(w.buf, ',')
	} else {
		*last = true
	}
	w.newline()
}

// Key starts an object member: its key, then the value written next.
func (w *Writer) Key(k string) {
	w.elem()
	w.buf = AppendString(w.buf, k)
	w.buf = append(w.buf, ':', ' ')
	w.afterKey = true
}

// BeginObject opens an object; EndObject closes it.
func (w *Writer) BeginObject() { w.begin('{') }

// EndObject closes the innermost object.
func (w *Writer) EndObject() { w.end('}') }

// BeginArray opens an array; EndArray closes it.
func (w *Writer) BeginArray() { w.begin('[') }

// EndArray closes the innermost array.
func (w *Writer) EndArray() { w.end(']') }

func (w *Writer) begin(c byte) {
	w.elem()
	w.buf = append(w.buf, c)
	w.open = append(w.open, false)
}

func (w *Writer) end(c byte) {
	nonEmpty := w.open[len(w.open)-1]
	w.open = w.open[:len(w.open)-1]
	if nonEmpty {
		w.newline()
	}
	w.buf = append(w.buf, c)
}

// String writes a string.
func (w *Writer) String(s string) {
	w.elem()
	w.buf = AppendString(w.buf, s)
}

// Int writes an integer.
func (w *Writer) Int(i int) {
	w.elem()
	w.buf = strconv.AppendInt(w.buf, int64(i), 10)
}

// Bool writes true or false.
func (w *Writer) Bool(b bool) {
	w.elem()
	w.buf = strconv.AppendBool(w.buf, b)
}

// Null writes null.
func (w *Writer) Null() {
	w.elem()
	w.buf = append(w.buf, "null"...)
}

// Number writes n as it is, as encoding/json writes a json.Number ("" is
// 0); n must be a JSON number, else it writes nothing and returns
// encoding/json's error.
func (w *Writer) Number(n json.Number) error {
	s := string(n)
	if s == "" {
		s = "0"
	}
	if !ValidNumber(s) {
		return fmt.Errorf("json: invalid number literal %q", s)
	}
	w.elem()
	w.buf = append(w.buf, s...)
	return nil
}

// Value writes v: maps from string keys (keys sorted), slices, strings,
// json.Number, booleans, ints, nil and Value implementations by
// itself; anything else as encoding/json encodes it (with its errors).
func (w *Writer) Value(v any) error {
	switch v := v.(type) {
	case nil:
		w.Null()
	case string:
		w.String(v)
	case json.Number:
		return w.Number(v)
	case bool:
		w.Bool(v)
	case int:
		w.Int(v)
	case Value:
		return v.WriteJSON(w)
	case map[string]any:
		return writeMap(w, v, w.Value)
	case map[string]string:
		return writeMap(w, v, func(s string) error { w.String(s); return nil })
	case []any:
		if v == nil {
			w.Null()
			return nil
		}
		w.BeginArray()
		for _, e := range v {
			if err := w.Value(e); err != nil {
				return err
			}
		}
		w.EndArray()
	case []string:
		if v == nil {
			w.Null()
			return nil
		}
		w.BeginArray()
		for _, e := range v {
			w.String(e)
		}
		w.EndArray()
	default:
		return w.encode(v)
	}
	return nil
}

// writeMap writes m's members sorted by key, as encoding/json does.
func writeMap[V any](w *Writer, m map[string]V, value func(V) error) error {
	if m == nil {
		w.Null()
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w.BeginObject()
	for _, k := range keys {
		w.Key(k)
		if err := value(m[k]); err != nil {
			return err
		}
	}
	w.EndObject()
	return nil
}

// encode writes v as encoding/json encodes it, indented to the current
// depth.
func (w *Writer) encode(v any) error {
	var compact bytes.Buffer
	e := json.NewEncoder(&compact)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimSuffix(compact.Bytes(), []byte("\n")), indentOf(len(w.open)), "  "); err != nil {
		return err
	}
	w.elem()
	w.buf = append(w.buf, out.Bytes()...)
	return nil
}

func indentOf(depth int) string { return strings.Repeat("  ", depth) }

// MarshalsAsIs reports whether json.Marshal writes s as it is between its
// quotes: printable ASCII with nothing to escape, HTML escaping included.
func MarshalsAsIs(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20, c >= utf8.RuneSelf, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// AppendString appends s as a JSON string, escaped as encoding/json
// escapes it without HTML escaping: '"', '\\' and control characters, each
// byte of invalid UTF-8 as \ufffd, and U+2028 and U+2029.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// ValidNumber reports whether s is a JSON number, encoding/json's test
// for a json.Number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func ValidNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
