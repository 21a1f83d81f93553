package emitters_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/emitters"
	"github.com/agentc-dev/agentc/gen/internal/cputime"
	"github.com/agentc-dev/agentc/gen/internal/synth"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
)

// nonGo are the emitters that write no Go validators: what a gen runs
// besides "go". Together they share each tool's JSON Schema (jsonschema
// and mcp).
var nonGo = []string{"docs", "jsonschema", "mcp", "opencode", "proxy", "ts"}

// BenchmarkEmitters runs every emitter agentc ships on the synthetic spec
// of 6, 100 and 1,000 tools: each alone (tools=N/<emitter>), the non-Go
// emitters together (tools=N/non-go: cpu-ns/op is their summed cost, with
// what they share computed once), and all of them (tools=N/all), both
// through emit.Generate, concurrently as gen runs them. Besides
// ns/op (wall) it reports cpu-ns/op, the process's user+system CPU per op
// (garbage collection included), where the platform says. Run it with
// -benchmem.
func BenchmarkEmitters(b *testing.B) {
	for _, n := range []int{6, 100, 1000} {
		s, err := load.Load(load.Bytes("spec", synth.Files(n)))
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Tools) != n {
			b.Fatalf("loaded %d tools, want %d", len(s.Tools), n)
		}
		for _, e := range emitters.All() {
			b.Run(fmt.Sprintf("tools=%d/%s", n, e.Name), func(b *testing.B) {
				run(b, s, e.Name)
			})
		}
		b.Run(fmt.Sprintf("tools=%d/non-go", n), func(b *testing.B) {
			run(b, s, nonGo...)
		})
		b.Run(fmt.Sprintf("tools=%d/all", n), func(b *testing.B) {
			run(b, s)
		})
	}
}

// run measures generating s with the named emitters (all when none are
// named): through emit.Generate when several or none are named, the
// emitter's own run when one is.
func run(b *testing.B, s *model.Spec, names ...string) {
	all := emitters.All()
	var one *emit.Emitter
	for _, e := range all {
		if len(names) == 1 && e.Name == names[0] {
			one = e
		}
	}
	if len(names) == 1 && one == nil {
		b.Fatalf("no emitter %s", names[0])
	}
	var cpu time.Duration
	for b.Loop() {
		c0 := cputime.Used()
		var err error
		if one != nil {
			_, err = one.Run(&emit.Pass{Spec: s})
		} else {
			_, err = emit.Generate(s, all, emit.Options{Only: names})
		}
		if err != nil {
			b.Fatal(err)
		}
		cpu += cputime.Used() - c0
	}
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
