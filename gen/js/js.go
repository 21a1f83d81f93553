// Package js holds what JavaScript makes of a spec's values, for the
// emitters whose output JavaScript reads (the zod schemas, the JSON
// Schemas) and for the Go decoders that must answer as zod does: the text
// JavaScript gives a number, an RE2 pattern written as an ECMAScript regex
// that matches the same strings (RegexSource), and Check, which finds what
// JavaScript cannot read as Go and CUE do.
package js

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"

	"github.com/agentc-dev/agentc/gen/diag"
	"github.com/agentc-dev/agentc/gen/model"
)

// Number returns the text JavaScript gives the double nearest to n, a
// JSON number (Number.prototype.toString, which JSON.stringify and zod's
// messages use): "1e+21", "0.1", "100", "-5e-7", and "Infinity" beyond a
// double's range, where ParseFloat's only error leaves f infinite.
func Number(n json.Number) string {
	f, _ := strconv.ParseFloat(string(n), 64)
	return FormatNumber(f)
}

// FormatNumber formats f as JavaScript's Number::toString does. For a
// finite number that is encoding/json's text ("as if by ES6 number to
// string conversion": shortest round-trip digits, an exponent below 1e-6
// and from 1e21 on), but for -0, which JavaScript prints as "0".
func FormatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	b, _ := json.Marshal(f) // finite: it cannot fail
	return string(b)
}

// Check finds, each at its position, what JavaScript would not read as Go
// and CUE do, so that vet rejects it before an emitter writes it: a bound
// or default beyond the range of a JavaScript number (zod and JSON Schema
// would read Infinity), and an argument or result field named like a
// property every JavaScript object inherits (zod would read the inherited
// value when the key is absent).
func Check(s *model.Spec) diag.List {
	var l diag.List
	for _, t := range s.Tools {
		checkType(&l, t.Args)
		checkType(&l, t.Result)
	}
	return l
}

// inherited are the properties every JavaScript object inherits from
// Object.prototype: a zod object schema reads the inherited value when such
// a key is absent, so no argument or result field may be called so.
var inherited = []string{"constructor", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable",
	"toLocaleString", "toString", "valueOf", "__proto__", "__defineGetter__", "__defineSetter__",
	"__lookupGetter__", "__lookupSetter__"}

// checkType checks an argument or result type and the types below it.
func checkType(l *diag.List, t *model.Type) {
	if t == nil {
		return
	}
	for _, b := range []*model.Bound{t.Minimum, t.Maximum} {
		if b != nil && !finite(string(b.Value)) {
			l.Add(t.Pos, "number-range", "the bound %s is beyond the range of a JavaScript number "+
				"(±%g), where zod and JSON Schema would read it as Infinity; use a smaller bound or none", b.Value, math.MaxFloat64)
		}
	}
	for _, f := range t.Fields {
		if slices.Contains(inherited, f.Name) {
			l.Add(f.Pos, "js-name", "field name %q is a property every JavaScript object inherits "+
				"(Object.prototype.%s): zod would read the inherited value when the key is absent; rename the field", f.Name, f.Name)
		}
		if f.Presence == model.Defaulted {
			if n, ok := infiniteNumber(f.Default); ok {
				l.Add(f.Pos, "number-range", "the default holds %s, beyond the range of a JavaScript number (±%g); "+
					"use a smaller default", n, math.MaxFloat64)
			}
		}
		checkType(l, f.Type)
	}
	checkType(l, t.Items)
}

// finite reports whether a JSON number is a finite float64, as JavaScript
// and the generated Go read it.
func finite(n string) bool {
	f, err := strconv.ParseFloat(n, 64)
	return err == nil || !math.IsInf(f, 0)
}

// infiniteNumber returns the first number in a JSON value that a float64
// cannot hold.
func infiniteNumber(raw json.RawMessage) (string, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	for {
		tok, err := d.Token()
		if err != nil {
			return "", false
		}
		if n, ok := tok.(json.Number); ok && !finite(string(n)) {
			return string(n), true
		}
	}
}
