package js

import (
	"encoding/json"
	"testing"
)

// TestInfiniteNumberFastPath: infiniteNumber answers as decoding every
// token does, whether or not its shortcut applies.
func TestInfiniteNumberFastPath(t *testing.T) {
	t.Parallel()
	long := "1" // grown to 1e309, beyond a float64
	for range 309 {
		long += "0"
	}
	for _, raw := range []string{`"x"`, `"1e999"`, `1`, `-2.5`, `1e308`, `1e309`, `-1E400`, `[1, {"a": 2e999}]`, `{"e": 1}`, long, long[:309], `null`, ``} {
		n, ok := infiniteNumber(json.RawMessage(raw))
		wn, wok := infiniteNumberSlow(json.RawMessage(raw))
		if n != wn || ok != wok {
			t.Errorf("infiniteNumber(%.20s) = %q, %v; decoding every token: %q, %v", raw, n, ok, wn, wok)
		}
	}
	if _, ok := infiniteNumber(json.RawMessage(long)); !ok {
		t.Error("1e309 written out is within a float64's range")
	}
}
