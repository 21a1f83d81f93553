package jsonschema_test

import (
	"testing"

	"github.com/agentc-dev/agentc/gen/jsonschema"
)

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
