package tsgen_test

import (
	"bufio"
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/emitters"
	"github.com/agentc-dev/agentc/gen/tslayout"
)

// lineSpecs are the specs whose TypeScript the line-width rule covers:
// the default, the first contract version and the coverage spec.
var lineSpecs = []string{"", "../../spec/testdata/v0", "testdata/coverage"}

// loneLiteral is a line that holds only a string literal, possibly
// followed by " +" (a piece of a concatenation) or "," (a call argument).
var loneLiteral = regexp.MustCompile(`^\s*("(?:[^"\\]|\\.)*")(?: \+|,)?$`)

// overlong reports why line breaks the rule, or "" when it keeps it: at
// most tslayout.Width characters, unless the line is a lone string literal
// that cannot be split (it holds no line break, except at its end).
func overlong(line string) string {
	n := utf8.RuneCountInString(line)
	if n <= tslayout.Width {
		return ""
	}
	m := loneLiteral.FindStringSubmatch(line)
	if m == nil {
		return "a line of code"
	}
	if inner := strings.TrimSuffix(m[1][1:len(m[1])-1], `\n`); strings.Contains(inner, `\n`) {
		return "a string literal that could be split at its line breaks"
	}
	return ""
}

// TestOverlong: the rule itself, on lines it must accept and reject.
func TestOverlong(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", tslayout.Width)
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{strings.Repeat("y", tslayout.Width), true},
		{"    " + strings.Repeat("é", tslayout.Width-4), true},
		{"a" + long, false},
		{`  "` + long + `"`, true},
		{`  "` + long + `\n" +`, true},
		{`  "` + long + `",`, true},
		{`  "a\nb` + long + `"`, false},
		{`  name: "` + long + `",`, false},
		{`  "` + long + `" + x`, false},
		{`  "` + long + `" + "b"`, false},
	} {
		if got := overlong(tc.line) == ""; got != tc.ok {
			t.Errorf("overlong(%.40q…) accepts = %v, want %v", tc.line, got, tc.ok)
		}
	}
}

// TestLineWidth: no generated TypeScript line (tool files, runtime,
// plugin, modules for TS consumers) is wider than tslayout.Width, except a
// lone string literal that cannot be split.
func TestLineWidth(t *testing.T) {
	t.Parallel()
	for _, dir := range lineSpecs {
		t.Run(specName(dir), func(t *testing.T) {
			s := loadSpec(t, dir)
			files, err := emit.Generate(s, emitters.All(), emit.Options{Only: []string{"opencode", "ts", "proxy"}})
			if err != nil {
				t.Fatal(err)
			}
			checked := 0
			for _, f := range files {
				if !strings.HasSuffix(f.Path, ".ts") {
					continue
				}
				checked++
				sc := bufio.NewScanner(bytes.NewReader(f.Data))
				sc.Buffer(nil, 1<<24)
				for n := 1; sc.Scan(); n++ {
					if why := overlong(sc.Text()); why != "" {
						t.Errorf("%s:%d: %d characters, %s: %.100s…", f.Path, n, utf8.RuneCountInString(sc.Text()), why, sc.Text())
					}
				}
			}
			if want := len(s.Tools) + 5; checked < want {
				t.Errorf("checked %d .ts files, want at least %d (tools, runtime, plugin, 3 modules)", checked, want)
			}
		})
	}
}
