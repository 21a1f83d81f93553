package tsgen_test

import (
	"bytes"
	"testing"

	"github.com/agentc-dev/agentc/gen/jsonwrite"
	"github.com/agentc-dev/agentc/gen/opencodelayout"
)

// TestInjectionJSON: a manifest writes itself (Injection.WriteJSON) as
// encoding/json encodes the struct — every mode's manifest of every spec,
// the zero manifest (null lists) and one with strings to escape.
func TestInjectionJSON(t *testing.T) {
	t.Parallel()
	var manifests []opencodelayout.Injection
	for _, dir := range specs {
		s := loadSpec(t, dir)
		for _, m := range s.Modes {
			manifests = append(manifests, opencodelayout.Inject(s, m))
		}
	}
	manifests = append(manifests, opencodelayout.Injection{}, opencodelayout.Injection{
		Mode:   "m<&>\u2028",
		Tools:  []string{},
		Write:  []opencodelayout.InjectFile{{Path: "a\"b", Source: "\x01"}},
		Remove: []string{"x"},
		Env:    map[string]string{"B": "2", "A": "1", "": ""},
	})
	for _, inj := range manifests {
		got, err := jsonwrite.Marshal(inj)
		if err != nil {
			t.Fatal(err)
		}
		want, err := jsonwrite.EncodingJSON(inj)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("mode %q: manifest\n%s\nencoding/json:\n%s", inj.Mode, got, want)
		}
	}
}
