package load_test

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentc-dev/agentc/gen/internal/synth"
	"github.com/agentc-dev/agentc/gen/load"
)

// TestFastPathsAgree loads every spec of the corpora — the default spec, the
// corpus's base and each broken case, the stored fuzz inputs, the accepted
// cases, the first contract version, the coverage spec and a synthetic spec
// — with each of the loader's fast paths (answers read from the syntax
// instead of asking CUE) checked against the general way it stands in for,
// and fails on any difference. Each fast path must also have been taken.
func TestFastPathsAgree(t *testing.T) {
	specs := corpora(t)
	specs["synthetic"] = synth.Files(40)

	var name string
	taken := crossCheck(func(what string, fast, slow any) {
		t.Errorf("%s: %s: the fast path found %v, the general way %v", name, what, fast, slow)
	})
	defer load.CrossCheck(nil)
	for _, name = range slices.Sorted(maps.Keys(specs)) {
		_, _ = load.Load(load.Bytes("spec", specs[name]))
	}
	for _, kind := range []string{"position", "closedness", "constraints", "requiredness", "list operand", "items", "fingerprint", "tool field", "tool fields", "object fields", "aliases", "dry run"} {
		if taken[kind] == 0 {
			t.Errorf("the fast path for %s was never taken", kind)
		}
	}
	t.Logf("fast paths taken: %v", taken)
}

// crossCheck makes each fast path of the loader also find its answer the
// general way, and calls differ for each answer that differs. It returns
// the number of times each kind of fast path was taken.
func crossCheck(differ func(what string, fast, slow any)) map[string]int {
	taken := map[string]int{}
	load.CrossCheck(func(what string, fast, slow any) {
		kind, _, _ := strings.Cut(what, " of ")
		taken[kind]++
		if !reflect.DeepEqual(fast, slow) {
			differ(what, fast, slow)
		}
	})
	return taken
}
