package gogen_test

import (
	"fmt"
	"testing"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/gogen"
	"github.com/agentc-dev/agentc/gen/internal/cputime"
	"github.com/agentc-dev/agentc/gen/internal/synth"
	"github.com/agentc-dev/agentc/gen/load"
)

// BenchmarkEmit measures the Go emitter on synthetic specs. cpu-ns/op is
// the processor time of the process per Emit (its GC and its concurrent
// formatting included), which a loaded machine disturbs less than ns/op.
func BenchmarkEmit(b *testing.B) {
	for _, n := range []int{5, 1000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			s, err := load.Load(load.Bytes("spec", synth.Files(n)))
			if err != nil {
				b.Fatal(err)
			}
			c0 := cputime.Used()
			for b.Loop() {
				if _, err := gogen.Emit(&emit.Pass{Spec: s}); err != nil {
					b.Fatal(err)
				}
			}
			if c := cputime.Used() - c0; c > 0 {
				b.ReportMetric(float64(c.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
		})
	}
}

// BenchmarkEmitWatching measures the Go emitter as gen --watch runs it,
// with rendered declarations remembered from the run before (here: the
// same spec, so every unit is remembered): what is left is the fixed
// declarations and assembling the files.
func BenchmarkEmitWatching(b *testing.B) {
	s, err := load.Load(load.Bytes("spec", synth.Files(100)))
	if err != nil {
		b.Fatal(err)
	}
	var m emit.Memo
	if _, err := gogen.Emit(&emit.Pass{Spec: s, Memo: &m}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := gogen.Emit(&emit.Pass{Spec: s, Memo: &m}); err != nil {
			b.Fatal(err)
		}
	}
}
