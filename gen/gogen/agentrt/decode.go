package agentrt

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Opt is a value that may be absent: the Go form of an optional field.
// Present and zero ("", 0, false) is distinct from absent.
type Opt[T any] struct {
	// Value is the value when Set; the zero value otherwise.
	Value T
	// Set reports whether the field was present.
	Set bool
}

// Some returns a present Opt holding v.
func Some[T any](v T) Opt[T] { return Opt[T]{Value: v, Set: true} }

// IsZero reports whether o is absent (for the omitzero JSON option).
func (o Opt[T]) IsZero() bool { return !o.Set }

// MarshalJSON encodes the value (an absent Opt is omitted by omitzero).
func (o Opt[T]) MarshalJSON() ([]byte, error) {
	if !o.Set {
		return []byte("null"), nil
	}
	return json.Marshal(o.Value)
}

// UnmarshalJSON decodes a present value.
func (o *Opt[T]) UnmarshalJSON(b []byte) error {
	o.Set = true
	return json.Unmarshal(b, &o.Value)
}

// Issue is one validation problem exactly as zod 4 reports it. Code, Path
// and Message are always set; the other fields belong to particular codes
// and are empty otherwise. MarshalJSON writes the keys zod writes, in zod's
// order, so the JSON of an issue list equals JSON.stringify(error.issues).
type Issue struct {
	// Code is zod's issue code: invalid_type, too_small, too_big,
	// invalid_value, invalid_format or custom.
	Code string
	// Path locates the value: object keys (string) and array indices (int).
	Path []any
	// Message is zod's message (English locale), or a named check's.
	Message string
	// Expected is the expected type of an invalid_type issue ("string",
	// "number", "int", "boolean", "array", "object").
	Expected string
	// Received is "Infinity" for a number that is not finite.
	Received string
	// Format is "safeint" for a fractional integer, "regex" for a pattern.
	Format string
	// Origin is what a size or format issue measured: "string", "array",
	// "number" or "int".
	Origin string
	// Minimum and Maximum are the bounds of too_small and too_big, as
	// JavaScript prints them.
	Minimum json.Number
	Maximum json.Number
	// Inclusive tells whether the bound admits equality.
	Inclusive bool
	// Note explains a safe-integer range issue.
	Note string
	// Values are the accepted values of an invalid_value issue.
	Values []string
	// Pattern is the failed ECMAScript regex literal ("/^a/u").
	Pattern string
}

// MarshalJSON writes the issue as zod's JSON.stringify does.
func (is Issue) MarshalJSON() ([]byte, error) { return is.appendJSON(nil), nil }

func (is Issue) appendJSON(b []byte) []byte {
	key := func(k string) {
		b = append(b, '"')
		b = append(b, k...)
		b = append(b, `":`...)
	}
	str := func(k, v string) {
		key(k)
		b = append(appendJSString(b, v), ',')
	}
	num := func(k string, v json.Number) {
		key(k)
		b = append(append(b, v...), ',')
	}
	b = append(b, '{')
	switch is.Code {
	case "invalid_type":
		str("expected", is.Expected)
		if is.Format != "" {
			str("format", is.Format)
		}
		str("code", is.Code)
		if is.Received != "" {
			str("received", is.Received)
		}
	case "too_small", "too_big":
		bound, v := "minimum", is.Minimum
		if is.Code == "too_big" {
			bound, v = "maximum", is.Maximum
		}
		if is.Note != "" {
			str("code", is.Code)
			num(bound, v)
			str("note", is.Note)
			str("origin", is.Origin)
		} else {
			str("origin", is.Origin)
			str("code", is.Code)
			num(bound, v)
			key("inclusive")
			b = append(strconv.AppendBool(b, is.Inclusive), ',')
		}
	case "invalid_value":
		str("code", is.Code)
		key("values")
		b = append(appendList(b, is.Values, appendJSString), ',')
	case "invalid_format":
		str("origin", is.Origin)
		str("code", is.Code)
		str("format", is.Format)
		str("pattern", is.Pattern)
	default:
		str("code", is.Code)
	}
	key("path")
	b = appendList(b, is.Path, func(b []byte, p any) []byte {
		if i, ok := p.(int); ok {
			return strconv.AppendInt(b, int64(i), 10)
		}
		name, _ := p.(string)
		return appendJSString(b, name)
	})
	b = append(b, `,"message":`...)
	b = appendJSString(b, is.Message)
	return append(b, '}')
}

// Issues is the error a decoder returns when the input is well-formed JSON
// that fails validation: every issue, in zod's order.
type Issues []Issue

// Error states each issue as "<path>: <message>", the path's keys and
// indices joined with "." ("commands.0.name: Too small: …"; an issue at
// the root is its message alone), and joins the issues with ", " as the
// seed's handlers join their messages. The generated OpenCode stubs state
// zod's issues the same way (formatIssues in their runtime.ts), so a model
// reads one text whichever side refused its call; the path is what lets it
// fix the call.
func (l Issues) Error() string {
	var b strings.Builder
	for i, is := range l {
		if i > 0 {
			b.WriteString(", ")
		}
		if len(is.Path) > 0 {
			b.WriteString(is.pathText())
			b.WriteString(": ")
		}
		b.WriteString(is.Message)
	}
	return b.String()
}

// pathText is the issue's path as Issues.Error states it: its keys and
// indices joined with "." ("commands.0.name").
func (is Issue) pathText() string {
	var b strings.Builder
	for j, p := range is.Path {
		if j > 0 {
			b.WriteByte('.')
		}
		fmt.Fprint(&b, p) // a key as it is, an index in decimal
	}
	return b.String()
}

// MarshalJSON writes the list as zod's JSON.stringify(error.issues) does.
func (l Issues) MarshalJSON() ([]byte, error) {
	return appendList(nil, l, func(b []byte, is Issue) []byte { return is.appendJSON(b) }), nil
}

// appendList appends the JSON array of l's elements, each appended by
// elem.
func appendList[T any](b []byte, l []T, elem func([]byte, T) []byte) []byte {
	b = append(b, '[')
	for i, v := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, v)
	}
	return append(b, ']')
}

// SyntaxError is the error a decoder returns for input that is not JSON
// (where JSON.parse throws before zod runs).
type SyntaxError struct {
	// Offset is the byte offset of the problem.
	Offset int
	// Msg describes it.
	Msg string
}

// Error gives the offset and what was wrong there.
func (e *SyntaxError) Error() string {
	return "invalid JSON at offset " + strconv.Itoa(e.Offset) + ": " + e.Msg
}

// appendJSString appends s as JSON.stringify quotes it: only '"', '\\' and
// control characters are escaped (\b \f \n \r \t, others as \u00xx).
func appendJSString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// inlinePath is how many steps of the current path a Decoder holds in
// itself; a deeper path continues in a slice. Schemas nest less than this
// but for rare specs, so the path costs no allocation.
const inlinePath = 16

// maxSafeInteger is JavaScript's Number.MAX_SAFE_INTEGER.
const maxSafeInteger = 1<<53 - 1

// Value kinds as the scanner reports them, named as zod's messages name a
// received value's type.
const (
	kindNone   = ""
	kindNull   = "null"
	kindBool   = "boolean"
	kindNumber = "number"
	kindString = "string"
	kindArray  = "array"
	kindObject = "object"
)

// pathElem is one step of the current path: a key, or an index when key
// is empty and index >= 0.
type pathElem struct {
	key   string
	index int
}

// Decoder decodes and validates one JSON document in one pass; the
// generated decoders drive it, a function per argument object. It lives on
// its caller's stack; only issues (on invalid input) and the decoded values
// allocate. Start it with Reset and finish it with End.
type Decoder struct {
	data   []byte
	pos    int
	err    *SyntaxError
	issues []Issue
	depth  int
	path   [inlinePath]pathElem
	// deep holds the steps of the path beyond inlinePath.
	deep []pathElem
}

// Reset starts decoding data, forgetting any earlier document.
func (d *Decoder) Reset(data []byte) {
	d.data, d.pos, d.err, d.issues, d.depth = data, 0, nil, nil, 0
}

// End checks that only whitespace follows the document and returns what
// decoding found: a *SyntaxError for input that is not JSON, Issues for
// well-formed JSON that failed validation, nil otherwise.
func (d *Decoder) End() error {
	if d.peek(); d.err == nil && d.pos != len(d.data) {
		d.fail("unexpected data after the value")
	}
	if d.err != nil {
		return d.err
	}
	if len(d.issues) > 0 {
		return Issues(d.issues)
	}
	return nil
}

// fail records the first syntax error; decoding stops at it.
func (d *Decoder) fail(msg string) {
	if d.err == nil {
		d.err = &SyntaxError{Offset: d.pos, Msg: msg}
	}
	d.pos = len(d.data)
}

// peek skips whitespace and returns the next byte (0 at the end).
func (d *Decoder) peek() byte {
	for ; d.pos < len(d.data); d.pos++ {
		switch c := d.data[d.pos]; c {
		case ' ', '\t', '\n', '\r':
		default:
			return c
		}
	}
	return 0
}

// push enters the member or element e of the current object or array.
func (d *Decoder) push(e pathElem) {
	if d.depth < len(d.path) {
		d.path[d.depth] = e
	} else {
		d.deep = append(d.deep[:d.depth-len(d.path)], e)
	}
	d.depth++
}

// pop leaves the member or element last entered.
func (d *Decoder) pop() { d.depth-- }

// at returns is with its Path set to the current path.
func (d *Decoder) at(is Issue) Issue {
	is.Path = make([]any, d.depth)
	for i := range d.depth {
		var step pathElem
		if i < len(d.path) {
			step = d.path[i]
		} else {
			step = d.deep[i-len(d.path)]
		}
		if step.index >= 0 {
			is.Path[i] = step.index
		} else {
			is.Path[i] = step.key
		}
	}
	return is
}

// add records an issue at the current path.
func (d *Decoder) add(is Issue) { d.issues = append(d.issues, d.at(is)) }

// wrongType skips the value at pos and records zod's invalid_type issue
// for it.
func (d *Decoder) wrongType(expected string) {
	if got := d.skip(); d.err == nil {
		d.add(Issue{
			Code:     "invalid_type",
			Expected: expected,
			Message:  "Invalid input: expected " + expected + ", received " + got,
		})
	}
}

// skip validates and skips one value, returning its kind. Nesting is
// tracked in a stack of closing bytes, not recursion, so any depth
// JSON.parse accepts is accepted here.
func (d *Decoder) skip() string {
	var small [64]byte
	stack := small[:0] // the closing byte of each open container, innermost last
	first := d.peek()
	for {
		// A value.
		switch c := d.peek(); c {
		case '{', '[':
			d.pos++
			if d.peek() == c+2 { // '}' or ']'
				d.pos++
				break
			}
			stack = append(stack, c+2)
			if c == '{' {
				d.key(strSkip) // a syntax error: the value below is at the end, and returns
			}
			continue
		case '"':
			d.readString(strSkip)
		case 't', 'f', 'n':
			d.literal(c)
		default:
			if c == '-' || (c >= '0' && c <= '9') {
				d.numberEnd()
			} else {
				d.fail("unexpected character")
			}
		}
		// After a value: close containers or move to the next member.
		for {
			if d.err != nil {
				return kindNone
			}
			if len(stack) == 0 {
				return kindOf(first)
			}
			end := stack[len(stack)-1]
			if !d.next(end) {
				stack = stack[:len(stack)-1] // closed, or a syntax error ends the loop
				continue
			}
			if end == '}' {
				d.key(strSkip)
			}
			break
		}
	}
}

func kindOf(c byte) string {
	switch c {
	case '{':
		return kindObject
	case '[':
		return kindArray
	case '"':
		return kindString
	case 't', 'f':
		return kindBool
	case 'n':
		return kindNull
	}
	return kindNumber
}

// literal scans the literal true, false or null at pos, which its first
// byte c ('t', 'f' or 'n') names.
func (d *Decoder) literal(c byte) {
	lit := "null"
	switch c {
	case 't':
		lit = "true"
	case 'f':
		lit = "false"
	}
	if len(d.data)-d.pos >= len(lit) && string(d.data[d.pos:d.pos+len(lit)]) == lit {
		d.pos += len(lit)
		return
	}
	d.fail("invalid literal")
}

// numberEnd scans a JSON number at pos (RFC 8259 grammar, as JSON.parse)
// and returns its start.
func (d *Decoder) numberEnd() int {
	start, p, data := d.pos, d.pos, d.data
	// digits moves p past a run of digits and reports whether there was one.
	digits := func() bool {
		from := p
		for p < len(data) && data[p] >= '0' && data[p] <= '9' {
			p++
		}
		return p > from
	}
	if p < len(data) && data[p] == '-' {
		p++
	}
	ok := p < len(data) && data[p] == '0' // a leading 0 is the whole integer part
	if ok {
		p++
	} else {
		ok = digits()
	}
	if ok && p < len(data) && data[p] == '.' {
		p++
		ok = digits()
	}
	if ok && p < len(data) && (data[p] == 'e' || data[p] == 'E') {
		p++
		if p < len(data) && (data[p] == '+' || data[p] == '-') {
			p++
		}
		ok = digits()
	}
	d.pos = p
	if !ok {
		d.fail("invalid number")
	}
	return start
}

// number reads a JSON number as JavaScript does (the nearest double; ±Inf
// when out of range). ok is false after a syntax error.
func (d *Decoder) number() (f float64, ok bool) {
	start := d.numberEnd()
	if d.err != nil {
		return 0, false
	}
	// JSON's number grammar is a subset of ParseFloat's: its only error is
	// ErrRange, which comes with the ±Inf JavaScript reads.
	f, _ = strconv.ParseFloat(string(d.data[start:d.pos]), 64)
	return f, true
}

// Num decodes a number field: invalid_type for another kind or a
// non-finite number. ok reports a finite number in *v.
func (d *Decoder) Num(v *float64) bool {
	c := d.peek()
	if c != '-' && (c < '0' || c > '9') {
		d.wrongType("number")
		return false
	}
	f, ok := d.number()
	if !ok {
		return false
	}
	if math.IsInf(f, 0) {
		d.add(Issue{
			Code:     "invalid_type",
			Expected: "number",
			Received: "Infinity",
			Message:  "Invalid input: expected number, received number",
		})
		return false
	}
	*v = f
	return true
}

// The numeric bounds, each one call in the generated decoders: >=, >, <=
// and < with the bound as a float64 and as zod writes it (a JavaScript
// number: "1e+21", "0.5").

// Gte checks f >= min: zod's too_small, inclusive.
func (d *Decoder) Gte(f, min float64, js string) { d.bound(f >= min, ">=", js) }

// Gt checks f > min: zod's too_small, exclusive.
func (d *Decoder) Gt(f, min float64, js string) { d.bound(f > min, ">", js) }

// Lte checks f <= max: zod's too_big, inclusive.
func (d *Decoder) Lte(f, max float64, js string) { d.bound(f <= max, "<=", js) }

// Lt checks f < max: zod's too_big, exclusive.
func (d *Decoder) Lt(f, max float64, js string) { d.bound(f < max, "<", js) }

// bound records, unless ok, the issue of a number outside the bound js.
func (d *Decoder) bound(ok bool, op, js string) {
	if !ok {
		d.add(sizeIssue(op, js, "number", "number to be "+op+js))
	}
}

// sizeIssue is zod's too_small (op ">=" or ">") or too_big ("<=" or "<")
// issue for a value of origin beyond the bound; expected ends the message
// ("number to be >=1").
func sizeIssue(op, bound, origin, expected string) Issue {
	is := Issue{Code: "too_small", Inclusive: len(op) == 2, Origin: origin}
	if op[0] == '>' {
		is.Minimum, is.Message = json.Number(bound), "Too small: expected "+expected
	} else {
		is.Code, is.Maximum, is.Message = "too_big", json.Number(bound), "Too big: expected "+expected
	}
	return is
}

// Int is zod's .int(): false when the value is not integral (the
// bound checks are then skipped); a range issue for an unsafe integer.
func (d *Decoder) Int(f float64) bool {
	if f != math.Trunc(f) {
		d.add(Issue{
			Code:     "invalid_type",
			Expected: "int",
			Format:   "safeint",
			Message:  "Invalid input: expected int, received number",
		})
		return false
	}
	var is Issue
	switch {
	case f > maxSafeInteger:
		is = sizeIssue("<", "9007199254740991", "int", "int to be <9007199254740991")
	case f < -maxSafeInteger:
		is = sizeIssue(">", "-9007199254740991", "int", "int to be >-9007199254740991")
	default:
		return true
	}
	is.Note = "Integers must be within the safe integer range."
	d.add(is)
	return true
}

// Bool decodes a boolean field.
func (d *Decoder) Bool(v *bool) bool {
	c := d.peek()
	if c != 't' && c != 'f' {
		d.wrongType("boolean")
		return false
	}
	*v = c == 't'
	d.literal(c)
	return d.err == nil
}

// Str decodes a string field.
func (d *Decoder) Str(v *string) bool {
	if d.peek() != '"' {
		d.wrongType("string")
		return false
	}
	s, ok := d.readString(0)
	*v = string(s)
	return ok
}

// Enum decodes a string that must be one of values (zod reports a value of
// another type as invalid_value too). A string without escapes is
// compared in place, without allocating; *v then holds the matching
// element of values.
func (d *Decoder) Enum(v *string, values []string, message string) bool {
	if d.peek() == '"' {
		text, ok := d.readString(0)
		if !ok {
			return false
		}
		for _, x := range values {
			if string(text) == x {
				*v = x
				return true
			}
		}
	} else if d.skip(); d.err != nil {
		return false
	}
	d.add(Issue{Code: "invalid_value", Values: values, Message: message})
	return false
}

// open enters a container that starts with c ('[' or '{') and reports
// whether it has elements; when the value is of another kind it records
// invalid_type (expected kind) and returns ok false.
func (d *Decoder) open(c byte, kind string) (more, ok bool) {
	if d.peek() != c {
		d.wrongType(kind)
		return false, false
	}
	d.pos++
	if d.peek() == c+2 { // ']' or '}'
		d.pos++
		return false, true
	}
	return true, true
}

// next consumes ',' (true) or the container's closing byte end (false).
func (d *Decoder) next(end byte) bool {
	switch d.peek() {
	case ',':
		d.pos++
		return true
	case end:
		d.pos++
		return false
	}
	d.fail("expected ',' or '" + string(end) + "'")
	return false
}

// Object decodes an object of the fields keys (at most 64; none for an
// object whose schema has no fields), in the order zod checks them, at
// the current path; field decodes the value of field
// i, the path then at its key. It does what every object decoder does, as
// the generated zod schema parses JSON.parse's object: a key repeated
// replaces the earlier value and its issues (JSON.parse keeps the last),
// unknown keys are stripped, an absent field contributes missing[i] unless
// that issue's Code is empty (or missing is nil: no field is required),
// and the issues come out in field order. seen
// has bit i set when field i was present; ok is false when the value was
// not an object (invalid_type) or decoding stopped at a syntax error: its
// defaults are then not applied. field must reset the field it decodes,
// which a repeated key has set before.
func (d *Decoder) Object(keys []string, missing []Issue, field func(i int)) (seen uint64, ok bool) {
	more, ok := d.open('{', kindObject)
	if !ok {
		return 0, false
	}
	start := len(d.issues)
	depth := d.depth // where the members' keys are in their issues' paths
	next := 0
	for more {
		key := d.key(0)
		if d.err != nil {
			return seen, false
		}
		i := fieldIndex(keys, key, next)
		next = i + 1
		switch {
		case i < 0:
			// Unknown keys are stripped, as zod does.
			d.skip()
		case seen&(1<<i) != 0:
			d.dropIssues(start, depth, keys[i])
			fallthrough
		default:
			seen |= 1 << i
			d.push(pathElem{key: keys[i], index: -1})
			field(i)
			d.pop()
		}
		more = d.next('}') // false after a syntax error
	}
	if d.err != nil {
		return seen, false
	}
	if len(d.issues) != start || missingAny(seen, missing) {
		d.fieldOrder(start, depth, seen, keys, missing)
	}
	return seen, true
}

// dropIssues drops the issues recorded since start at the member key (the
// step depth of their paths) of an object: a repeated key's value replaces
// the earlier one, and its issues the earlier one's.
func (d *Decoder) dropIssues(start, depth int, key string) {
	kept := slices.DeleteFunc(d.issues[start:], func(is Issue) bool { return is.Path[depth] == key })
	d.issues = d.issues[:start+len(kept)]
}

// fieldIndex is the index of key in keys, or -1: a linear scan that
// starts at next and wraps around. Keys mostly come in field order (as a
// model writes them from the schema), so with next the field after the
// last key's, one comparison mostly finds a key.
func fieldIndex(keys []string, key []byte, next int) int {
	for j := range keys {
		i := next + j
		if i >= len(keys) {
			i -= len(keys)
		}
		if keys[i] == string(key) {
			return i
		}
	}
	return -1
}

// fieldOrder puts the issues recorded since start, all at members of an
// object whose keys are step depth of their paths, into the order of the
// object's fields (keys), each field's in the order recorded, and adds
// missing[i] for each absent field i whose missing issue has a Code (none
// when missing is nil).
func (d *Decoder) fieldOrder(start, depth int, seen uint64, keys []string, missing []Issue) {
	found := d.issues[start:]
	out := make([]Issue, 0, len(found)+len(keys))
	for i, key := range keys {
		if seen&(1<<i) == 0 {
			if missing != nil && missing[i].Code != "" {
				d.push(pathElem{key: key, index: -1})
				out = append(out, d.at(missing[i]))
				d.pop()
			}
			continue
		}
		for j := range found {
			if found[j].Path[depth] == key {
				out = append(out, found[j])
			}
		}
	}
	d.issues = append(d.issues[:start], out...)
}

// missingAny reports whether a field absent from seen has a missing issue.
func missingAny(seen uint64, missing []Issue) bool {
	for absent := ^seen & (1<<len(missing) - 1); absent != 0; absent &= absent - 1 {
		if missing[bits.TrailingZeros64(absent)].Code != "" {
			return true
		}
	}
	return false
}

// Array decodes an array at the current path into *s, each element by
// elem, the path then at its index; [] decodes to an empty slice, not
// nil. n is the number of elements; ok is false when the value was not an
// array (invalid_type) or decoding stopped at a syntax error: the array's
// own checks (MinItems, MaxItems) then do not run.
func Array[T any](d *Decoder, s *[]T, elem func(e *T)) (n int, ok bool) {
	more, ok := d.open('[', kindArray)
	if !ok {
		return 0, false
	}
	if *s == nil {
		*s = []T{} // no allocation
	}
	for ; more; n++ {
		var zero T
		*s = append(*s, zero)
		d.push(pathElem{index: n})
		elem(&(*s)[n]) // in place: a pointer to a local would escape
		d.pop()
		more = d.next(']') // false after a syntax error
	}
	return n, d.err == nil
}

// MinItems checks that an array has at least min elements: zod's too_small.
func (d *Decoder) MinItems(n, min int) { d.count(n >= min, ">=", min, "array", "items") }

// MaxItems checks that an array has at most max elements: zod's too_big.
func (d *Decoder) MaxItems(n, max int) { d.count(n <= max, "<=", max, "array", "items") }

// count records, unless ok, the issue of an array or string (origin) whose
// count of unit ("items", "characters") is beyond the bound n.
func (d *Decoder) count(ok bool, op string, n int, origin, unit string) {
	if !ok {
		m := strconv.Itoa(n)
		d.add(sizeIssue(op, m, origin, origin+" to have "+op+m+" "+unit))
	}
}

// key reads a member's key, in readString's mode, and the ':' after it.
// Keys compare by their decoded text.
func (d *Decoder) key(mode int) []byte {
	if d.peek() != '"' {
		d.fail("expected a string key")
		return nil
	}
	k, ok := d.readString(mode)
	switch {
	case !ok:
	case d.peek() != ':':
		d.fail("expected ':'")
	default:
		d.pos++
	}
	return k
}

// Modes of readString. The first two are for comparing strings as
// JavaScript does rather than reading them as a Go handler does.
const (
	// strLoneSurrogates keeps a lone surrogate escape ("\ud800") as its
	// three WTF-8 bytes (ED A0 80) instead of U+FFFD, so that two strings
	// are equal exactly when JSON.parse makes equal JavaScript strings
	// (the same UTF-16 code units) of them.
	strLoneSurrogates = 1 << iota
	// strInvalidBytes keeps invalid UTF-8 bytes as they are instead of
	// U+FFFD. With strLoneSurrogates, utf8.ValidString then fails for a
	// string that is not a sequence of Unicode scalar values.
	strInvalidBytes
	// strSkip only scans the string: its text is not built.
	strSkip
)

// readString decodes the string at pos (which holds '"'), in the modes
// above. Escaped UTF-16 surrogate pairs combine; a lone surrogate and each
// maximal invalid UTF-8 subsequence become U+FFFD (as a WHATWG UTF-8
// decoder would read the bytes). The text of a string of valid UTF-8
// without escapes is data's own bytes, so that reading it does not
// allocate; ok is false after a syntax error.
func (d *Decoder) readString(mode int) (text []byte, ok bool) {
	data := d.data
	p := d.pos + 1
	want := mode&strSkip == 0
	// buf holds the text up to run once a byte of it had to be rewritten
	// (an escape, an invalid sequence); until then the text is data's own
	// bytes from run.
	var buf []byte
	for run := p; ; run = p {
		// The plain run: valid UTF-8 without escapes, scanned eight bytes
		// at a time.
		for {
			p = scanPlain(data, p)
			if p >= len(data) || data[p] < 0x80 {
				break
			}
			r, size := utf8.DecodeRune(data[p:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			p += size
		}
		if p >= len(data) {
			d.pos = p
			d.fail("unterminated string")
			return nil, false
		}
		c := data[p]
		if c == '"' {
			d.pos = p + 1
			if buf == nil {
				return data[run:p], true
			}
			return append(buf, data[run:p]...), true
		}
		if want {
			buf = append(buf, data[run:p]...)
		}
		switch {
		case c < 0x20:
			d.pos = p
			d.fail("control character in string")
			return nil, false
		case c >= 0x80: // an invalid UTF-8 sequence
			size := invalidLen(data[p:])
			if want && mode&strInvalidBytes != 0 {
				buf = append(buf, data[p:p+size]...)
			} else if want {
				buf = utf8.AppendRune(buf, utf8.RuneError)
			}
			p += size
		default: // '\\'
			if p+1 >= len(data) {
				d.pos = p
				d.fail("unterminated escape")
				return nil, false
			}
			e := data[p+1]
			p += 2
			var r rune
			switch e {
			case '"', '\\', '/':
				r = rune(e)
			case 'b':
				r = '\b'
			case 'f':
				r = '\f'
			case 'n':
				r = '\n'
			case 'r':
				r = '\r'
			case 't':
				r = '\t'
			case 'u':
				u, ok := hex4(data, p)
				if !ok {
					d.pos = p
					d.fail("invalid \\u escape")
					return nil, false
				}
				p += 4
				r = rune(u)
				if utf16.IsSurrogate(r) {
					r = utf8.RuneError
					if u < 0xDC00 && p+6 <= len(data) && data[p] == '\\' && data[p+1] == 'u' {
						if lo, ok := hex4(data, p+2); ok && lo >= 0xDC00 && lo <= 0xDFFF {
							r = utf16.DecodeRune(rune(u), rune(lo))
							p += 6
						}
					}
					if r == utf8.RuneError && mode&strLoneSurrogates != 0 {
						if want {
							buf = append(buf, 0xE0|byte(u>>12), 0x80|byte(u>>6)&0x3F, 0x80|byte(u)&0x3F)
						}
						continue
					}
				}
			default:
				d.pos = p - 1
				d.fail("invalid escape")
				return nil, false
			}
			if want {
				buf = utf8.AppendRune(buf, r)
			}
		}
	}
}

// scanPlain returns the index of the first byte at or after p that ends
// the plain run of a string: '"', '\\', a control character or a byte of a
// multi-byte sequence. It tests eight bytes per step (SWAR).
func scanPlain(data []byte, p int) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	for p+8 <= len(data) {
		x := binary.LittleEndian.Uint64(data[p:])
		q := x ^ (lo * '"')
		bs := x ^ (lo * '\\')
		special := ((x - lo*0x20) & ^x) | ((q - lo) & ^q) | ((bs - lo) & ^bs) | x
		if special&hi != 0 {
			break
		}
		p += 8
	}
	for p < len(data) {
		c := data[p]
		if c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
			return p
		}
		p++
	}
	return p
}

// invalidLen returns the length of the maximal subpart of an invalid UTF-8
// sequence at the start of b (at least 1), per the WHATWG decoder: its
// longest prefix that a valid sequence starts with. Such a prefix, filled
// up with continuation bytes (0x80), decodes as a rune longer than itself.
func invalidLen(b []byte) int {
	for n := min(len(b), 3); n > 1; n-- {
		buf := [4]byte{0x80, 0x80, 0x80, 0x80}
		copy(buf[:], b[:n])
		if _, size := utf8.DecodeRune(buf[:]); size > n {
			return n
		}
	}
	return 1
}

// hex4 reads the four hexadecimal digits of a \u escape at b[p:].
func hex4(b []byte, p int) (uint16, bool) {
	if p+4 > len(b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[p:p+4]), 16, 16) // no sign, no prefix, no '_' in base 16
	return uint16(v), err == nil
}

// The string constraints, each one call in the generated decoders, in the
// order zod runs its checks: strings.MinRunes, strings.MaxRunes, =~ and
// named checks. Lengths count code points, as CUE and JSON Schema do (zod
// counts UTF-16 code units; the generated zod schema counts code points
// too), and a lone surrogate, decoded as U+FFFD, is one.

// MinRunes checks strings.MinRunes(min): zod's too_small. n bytes hold at
// most n code points, and at least n/4: the count is skipped when the
// bytes alone decide.
func (d *Decoder) MinRunes(s string, min int) {
	d.count(len(s) >= 4*min || utf8.RuneCountInString(s) >= min, ">=", min, "string", "characters")
}

// MaxRunes checks strings.MaxRunes(max): zod's too_big.
func (d *Decoder) MaxRunes(s string, max int) {
	d.count(len(s) <= max || utf8.RuneCountInString(s) <= max, "<=", max, "string", "characters")
}

// Pattern checks =~ re; literal is the ECMAScript regex zod reports
// ("/^a/u"), which matches the same strings.
func (d *Decoder) Pattern(s string, re *regexp.Regexp, literal string) {
	if re.MatchString(s) {
		return
	}
	d.add(Issue{
		Code:    "invalid_format",
		Format:  "regex",
		Message: "Invalid string: must match pattern " + literal,
		Origin:  "string",
		Pattern: literal,
	})
}

// NamedCheck is a spec's named check (#Name: string & !~"…" … @check("…")).
type NamedCheck struct {
	// Message is zod's custom issue message.
	Message string
	// Reject are the !~ patterns, none of which may match; Match the =~
	// patterns, all of which must.
	Reject, Match []*regexp.Regexp
}

// Check runs a named check: zod's custom issue when it fails.
func (d *Decoder) Check(s string, c *NamedCheck) {
	ok := true
	for _, re := range c.Reject {
		ok = ok && !re.MatchString(s)
	}
	for _, re := range c.Match {
		ok = ok && re.MatchString(s)
	}
	if !ok {
		d.add(Issue{Code: "custom", Message: c.Message})
	}
}
