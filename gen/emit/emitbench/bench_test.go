package emitbench_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/internal/cputime"
	"github.com/agentc-dev/agentc/gen/internal/synth"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"

	// Every emitter agentc ships, as the CLI registers them.
	_ "github.com/agentc-dev/agentc/gen/docgen"
	_ "github.com/agentc-dev/agentc/gen/gogen"
	_ "github.com/agentc-dev/agentc/gen/jsonschemagen"
	_ "github.com/agentc-dev/agentc/gen/mcpgen"
	_ "github.com/agentc-dev/agentc/gen/proxygen"
	_ "github.com/agentc-dev/agentc/gen/tsgen"
)

// nonGo are the emitters that write no Go validators: what a gen runs
// besides "go". Together they share each tool's JSON Schema (jsonschema
// and mcp).
var nonGo = []string{"docs", "jsonschema", "mcp", "opencode", "proxy", "ts"}

// BenchmarkEmitters runs every registered emitter on the synthetic spec of
// 6, 100 and 1,000 tools: each alone (tools=N/<emitter>), the non-Go
// emitters one after the other as one op (tools=N/non-go: their summed
// cost, with what they share computed once), and all of them through
// emit.Generate, concurrently as gen runs them (tools=N/all). Besides
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
		for _, e := range emit.Emitters() {
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
// named): in turn when several are named, concurrently when none are.
func run(b *testing.B, s *model.Spec, names ...string) {
	var fns []emit.Func
	for _, e := range emit.Emitters() {
		for _, name := range names {
			if e.Name == name {
				fns = append(fns, e.Fn)
			}
		}
	}
	if len(fns) != len(names) {
		b.Fatalf("emitters %v: %d registered", names, len(fns))
	}
	var cpu time.Duration
	for b.Loop() {
		c0 := cputime.Used()
		if len(names) == 0 {
			if _, err := emit.Generate(s); err != nil {
				b.Fatal(err)
			}
		}
		for _, fn := range fns {
			if _, err := fn(s); err != nil {
				b.Fatal(err)
			}
		}
		cpu += cputime.Used() - c0
	}
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
