package js_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	"github.com/agentc-dev/agentc/gen/js"
)

// TestKeyOrder: KeyOrder orders keys as node enumerates the keys of an
// object given them in turn, array indices and their look-alikes included.
func TestKeyOrder(t *testing.T) {
	t.Parallel()
	node := nodetool.Node(t)
	sets := [][]string{
		{"b", "a"},
		{"b", "7", "1", "10", "a"},
		{"01", "1", "-1", "1.0", "4294967295", "4294967294", "0", "00", "+1", "1e3", " 1", "٣"},
		{"z", "2", "y", "10", "x", "3"},
	}
	in, _ := json.Marshal(sets)
	cmd := exec.Command(node, "-e", `const sets = `+string(in)+`
console.log(JSON.stringify(sets.map((keys) => { const o = {}; for (const k of keys) o[k] = 1; return Object.keys(o) })))`)
	cmd.Dir = filepath.Dir(nodetool.Dir(t))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var want [][]string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for i, keys := range sets {
		got := js.KeyOrder(slices.Clone(keys), func(k string) string { return k })
		if !slices.Equal(got, want[i]) {
			t.Errorf("KeyOrder(%q) = %q, JavaScript enumerates %q", keys, got, want[i])
		}
	}
	if keys := []string{"b", "a"}; &js.KeyOrder(keys, func(k string) string { return k })[0] != &keys[0] {
		t.Error("KeyOrder copied keys that hold no array index")
	}
}
