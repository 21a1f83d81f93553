package jsonschemagen

import (
	"bytes"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"weak"

	"github.com/agentc-dev/agentc/gen/internal/synth"
	"github.com/agentc-dev/agentc/gen/internal/testspecs"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
)

// pending returns how many schemas of s wait for their other consumer.
func pending(s *model.Spec) int {
	shared.Lock()
	defer shared.Unlock()
	return len(shared.specs[weak.Make(s)])
}

// same reports whether a and b are one computation's bytes.
func same(a, b []byte) bool { return len(a) > 0 && len(b) > 0 && &a[0] == &b[0] }

// TestSharedSchemaOnce: within one generation the second consumer gets
// the bytes the first computed, and the entry is then dropped; an emitter
// that asks again (its next run) computes afresh.
func TestSharedSchemaOnce(t *testing.T) {
	s := testspecs.Load(t, "")
	tool := s.Tools[0]
	first, err := SharedSchema(s, tool, ForJSONSchema)
	if err != nil {
		t.Fatal(err)
	}
	if n := pending(s); n != 1 {
		t.Errorf("after one consumer, %d schemas pending, want 1", n)
	}
	second, err := SharedSchema(s, tool, ForMCP)
	if err != nil {
		t.Fatal(err)
	}
	if !same(first, second) {
		t.Error("the second consumer computed the schema again")
	}
	if n := pending(s); n != 0 {
		t.Errorf("after both consumers, %d schemas pending, want 0", n)
	}
	want, err := Schema(tool)
	if err != nil || !bytes.Equal(first, want) {
		t.Errorf("shared schema %s, want Schema's %s (%v)", first, want, err)
	}
	again, _ := SharedSchema(s, tool, ForJSONSchema)
	again2, _ := SharedSchema(s, tool, ForJSONSchema)
	if same(again, again2) || !bytes.Equal(again, want) || !bytes.Equal(again2, want) {
		t.Error("a consumer's second run reused its first run's schema, or got other bytes")
	}
}

// TestSharedSchemaConcurrent: both consumers asking for every tool at once
// (as the two emitters run) each get Schema's bytes, computed once per
// tool, and nothing is left pending.
func TestSharedSchemaConcurrent(t *testing.T) {
	s, err := load.Load(load.Bytes("spec", synth.Files(100)))
	if err != nil {
		t.Fatal(err)
	}
	got := [consumers][][]byte{}
	var wg sync.WaitGroup
	for c := range consumers {
		got[c] = make([][]byte, len(s.Tools))
		wg.Go(func() {
			for i, tool := range s.Tools {
				data, err := SharedSchema(s, tool, c)
				if err != nil {
					t.Error(err)
				}
				got[c][i] = data
			}
		})
	}
	wg.Wait()
	for i, tool := range s.Tools {
		want, err := Schema(tool)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[ForJSONSchema][i], want) || !bytes.Equal(got[ForMCP][i], want) {
			t.Errorf("%s: a consumer got other bytes than Schema's", tool.Name)
		}
		if !same(got[ForJSONSchema][i], got[ForMCP][i]) {
			t.Errorf("%s: computed twice", tool.Name)
		}
	}
	if n := pending(s); n != 0 {
		t.Errorf("%d schemas pending after both consumers", n)
	}
}

// TestSharedSchemaNewSpec: a schema one consumer left for a spec is not
// what the other consumer gets for the next spec (gen --watch after an
// edit), even for a tool of the same name and fingerprint.
func TestSharedSchemaNewSpec(t *testing.T) {
	old := testspecs.Load(t, "")
	if _, err := SharedSchema(old, old.Tools[0], ForJSONSchema); err != nil {
		t.Fatal(err)
	}
	edited := testspecs.Load(t, "")
	tool := edited.Tools[0]
	tool.Args.Fields[0].Type.Doc = "Edited between two runs."
	got, err := SharedSchema(edited, tool, ForMCP)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "Edited between two runs.") {
		t.Errorf("the edited spec's schema is the old one:\n%s", got)
	}
	runtime.KeepAlive(old)
}

// TestSharedSchemaForgetsCollectedSpecs: a schema no second consumer
// read is dropped with its spec, so that a long-running agentc does not
// hold every spec it loaded.
func TestSharedSchemaForgetsCollectedSpecs(t *testing.T) {
	key := func() weak.Pointer[model.Spec] {
		s := testspecs.Load(t, "")
		if _, err := SharedSchema(s, s.Tools[0], ForMCP); err != nil {
			t.Fatal(err)
		}
		return weak.Make(s)
	}()
	for deadline := time.Now().Add(30 * time.Second); ; {
		runtime.GC()
		shared.Lock()
		_, held := shared.specs[key]
		shared.Unlock()
		if !held {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("a collected spec's schemas are still held")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
