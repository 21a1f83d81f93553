package jsonschema_test

import (
	"testing"

	"github.com/agentc-dev/agentc/gen/jsonschema"
)

// The expected strings are what node 20 prints (String(x) and
// new RegExp(s).source).
func TestJSNumber(t *testing.T) {
	t.Parallel()
	for f, want := range map[float64]string{
		0: "0", 1: "1", -1.5: "-1.5", 0.1: "0.1", 1e21: "1e+21", 1e20: "100000000000000000000",
		1e-7: "1e-7", 1e-6: "0.000001", 9007199254740991: "9007199254740991", -1e20: "-100000000000000000000",
		123.456e-10: "1.23456e-8", 5e-324: "5e-324",
	} {
		if got := jsonschema.JSNumber(f); got != want {
			t.Errorf("JSNumber(%v) = %q, want %q", f, got, want)
		}
	}
}

func TestRegExpSource(t *testing.T) {
	t.Parallel()
	for re, want := range map[string]string{
		"":        "(?:)",
		"a/b":     `a\/b`,
		`a\/b`:    `a\/b`,
		"[/]":     "[/]",
		`[\]/]/`:  `[\]/]\/`,
		"a\nb":    `a\nb`,
		`^a\\/`:   `^a\\\/`,
		"^[A-Z]$": "^[A-Z]$",
	} {
		if got := jsonschema.RegExpSource(re); got != want {
			t.Errorf("RegExpSource(%q) = %q, want %q", re, got, want)
		}
	}
}

func TestCanonical(t *testing.T) {
	t.Parallel()
	got, err := jsonschema.Canonical([]byte(`{"b":1.0,"a":{"d":[2e0,"<>"],"c":1e21}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": {\n    \"c\": 1e+21,\n    \"d\": [\n      2,\n      \"<>\"\n    ]\n  },\n  \"b\": 1\n}\n"
	if string(got) != want {
		t.Errorf("Canonical = %q, want %q", got, want)
	}
}
