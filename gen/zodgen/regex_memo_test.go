package zodgen

import (
	"fmt"
	"testing"
)

// TestRegexSourceRemembers: RegexSource answers as translate does, the
// first time and from its memory, errors included, and its memory stays
// within maxTranslated patterns however many it has seen.
func TestRegexSourceRemembers(t *testing.T) {
	for _, re := range []string{`^a/b$`, `(?i)k`, `[`, `\pL+`} {
		want, wantErr := translate(re)
		for range 2 {
			got, err := RegexSource(re)
			if got != want || fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Errorf("RegexSource(%q) = %q, %v; want %q, %v", re, got, err, want, wantErr)
			}
		}
	}
	for i := range 3 * maxTranslated {
		if _, err := RegexSource(fmt.Sprintf("^x%d$", i)); err != nil {
			t.Fatal(err)
		}
		translated.Lock()
		n := len(translated.m)
		translated.Unlock()
		if n > maxTranslated {
			t.Fatalf("after %d patterns, %d remembered; at most %d", i+1, n, maxTranslated)
		}
	}
}
