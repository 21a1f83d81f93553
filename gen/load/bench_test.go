package load_test

import (
	"fmt"
	"testing"
	"time"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	cueload "cuelang.org/go/cue/load"

	"github.com/agentc-dev/agentc/gen/internal/cputime"
	"github.com/agentc-dev/agentc/gen/internal/synth"
	"github.com/agentc-dev/agentc/gen/load"
)

var sizes = []int{5, 100, 1000}

// cueVet is CUE's own evaluation of the same spec, in process: what
// `cue vet -c=false` does (load, build, validate non-concretely).
func cueVet(dir string) error {
	insts := cueload.Instances([]string{"."}, &cueload.Config{Dir: dir})
	if err := insts[0].Err; err != nil {
		return err
	}
	v := cuecontext.New().BuildInstance(insts[0])
	return v.Validate(cue.Concrete(false))
}

// BenchmarkVet measures agentc's load+vet of a spec against CUE's own
// evaluation of the same files, in process, in the same run; the x-cue
// metric is agentc's time over CUE's.
func BenchmarkVet(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			files := synth.Files(n)
			dir := b.TempDir()
			if err := synth.WriteDir(dir, files); err != nil {
				b.Fatal(err)
			}
			if err := cueVet(dir); err != nil {
				b.Fatalf("cue rejects the synthetic spec: %v", err)
			}
			var agentc, ref, agentcCPU, refCPU time.Duration
			for b.Loop() {
				t0, c0 := time.Now(), cputime.Used()
				s, err := load.Load(load.Bytes("spec", files))
				if err != nil {
					b.Fatal(err)
				}
				if len(s.Tools) != n {
					b.Fatalf("loaded %d tools, want %d", len(s.Tools), n)
				}
				t1, c1 := time.Now(), cputime.Used()
				if err := cueVet(dir); err != nil {
					b.Fatal(err)
				}
				agentc += t1.Sub(t0)
				ref += time.Since(t1)
				agentcCPU += c1 - c0
				refCPU += cputime.Used() - c1
			}
			b.ReportMetric(float64(agentc.Nanoseconds())/float64(b.N), "agentc-ns/op")
			b.ReportMetric(float64(ref.Nanoseconds())/float64(b.N), "cue-ns/op")
			b.ReportMetric(float64(agentc)/float64(ref), "x-cue")
			// CPU time (all threads, the collector's included) is steadier
			// than wall time on a machine shared with other work.
			if agentcCPU > 0 && refCPU > 0 {
				b.ReportMetric(float64(agentcCPU)/float64(refCPU), "x-cue-cpu")
			}
		})
	}
}
