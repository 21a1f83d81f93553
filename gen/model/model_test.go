package model

import (
	"strings"
	"testing"
)

// TestJSOrder: array-index keys first, ascending, as JavaScript enumerates
// an object's keys; every other key (a leading zero, beyond 2^32-2, a sign)
// keeps its place.
func TestJSOrder(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"b a", "b a"},
		{"1 09 b a", "1 09 b a"},
		{"b 7 a 1", "1 7 b a"},
		{"09 1 b a", "1 09 b a"},
		{"x 10 9 0 4294967294 4294967295 -1 1.5 00", "0 9 10 4294967294 x 4294967295 -1 1.5 00"},
	} {
		var fields []*Field
		for _, n := range strings.Fields(c.in) {
			fields = append(fields, &Field{Name: n})
		}
		var got []string
		for _, f := range JSOrder(fields) {
			got = append(got, f.Name)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("JSOrder(%s) = %s, want %s", c.in, strings.Join(got, " "), c.want)
		}
	}
}
