package docgen

import (
	"encoding/json"
	"strings"
	"testing"
)

var oneLineSamples = []string{
	"", " ", "a", "a b", "a  b", " a", "a ", "a\tb", "a\nb", "a\r\nb", "a\vb\fc",
	"é b", "≥ 1 characters; ≤ 2", "a\u3000b", "\xff x", "a\u00a0b", "a\u0085b", "a\u2028b", "a | b", "\x00 x", "word", "two words here",
}

// TestOneLine: oneLine, with its shortcut for text already on one line,
// is strings.Fields joined by single spaces.
func TestOneLine(t *testing.T) {
	t.Parallel()
	for _, s := range oneLineSamples {
		if got, want := oneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", s, got, want)
		}
	}
}

// FuzzOneLine: the same for any text.
func FuzzOneLine(f *testing.F) {
	for _, s := range oneLineSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := oneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", s, got, want)
		}
	})
}

// FuzzJSONString: jsonString, with its shortcut for plain ASCII, is
// encoding/json's quoting (HTML escapes included) without the quotes.
func FuzzJSONString(f *testing.F) {
	for _, s := range append(oneLineSamples, `a"`, "<&>", `back\slash`, "\x7f", "") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, _ := json.Marshal(s)
		if got, want := jsonString(s), strings.Trim(string(b), `"`); got != want {
			t.Errorf("jsonString(%q) = %q, want %q", s, got, want)
		}
	})
}
