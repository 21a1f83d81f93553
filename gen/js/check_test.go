package js

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestInfiniteNumber: the first number of a JSON value beyond a float64's
// range, however it is written and wherever it sits; none in a string.
func TestInfiniteNumber(t *testing.T) {
	t.Parallel()
	long := "1" + strings.Repeat("0", 309) // 1e309
	for raw, want := range map[string]string{
		`"x"`: "", `"1e999"`: "", `1`: "", `-2.5`: "", `1e308`: "", `{"e": 1}`: "", `null`: "", ``: "", long[:309]: "",
		`1e309`: "1e309", `-1E400`: "-1E400", `[1, {"a": 2e999}, 3e999]`: "2e999", long: long,
	} {
		n, ok := infiniteNumber(json.RawMessage(raw))
		if n != want || ok != (want != "") {
			t.Errorf("infiniteNumber(%.20s) = %q, %v; want %q", raw, n, ok, want)
		}
	}
}

// TestInherited: the properties every JavaScript object inherits are
// refused as field names; an own name is not.
func TestInherited(t *testing.T) {
	for name, want := range map[string]bool{
		"constructor": true, "__proto__": true, "toString": true, "hasOwnProperty": true,
		"name": false, "proto": false, "ToString": false,
	} {
		if got := slices.Contains(inherited, name); got != want {
			t.Errorf("inherited holds %q: %v, want %v", name, got, want)
		}
	}
}
