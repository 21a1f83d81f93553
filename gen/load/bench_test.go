package load_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	cueload "cuelang.org/go/cue/load"

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
			var agentc, ref time.Duration
			for b.Loop() {
				t0 := time.Now()
				s, err := load.Load(load.Bytes("spec", files))
				if err != nil {
					b.Fatal(err)
				}
				if len(s.Tools) != n {
					b.Fatalf("loaded %d tools, want %d", len(s.Tools), n)
				}
				t1 := time.Now()
				if err := cueVet(dir); err != nil {
					b.Fatal(err)
				}
				agentc += t1.Sub(t0)
				ref += time.Since(t1)
			}
			b.ReportMetric(float64(agentc.Nanoseconds())/float64(b.N), "agentc-ns/op")
			b.ReportMetric(float64(ref.Nanoseconds())/float64(b.N), "cue-ns/op")
			b.ReportMetric(float64(agentc)/float64(ref), "x-cue")
		})
	}
}

// BenchmarkVetCommand runs the built `agentc vet DIR` against the real
// `cue vet -c=false DIR` (bin/cue, installed by make tools), as processes,
// alternating in one run. Skipped when bin/cue is missing.
func BenchmarkVetCommand(b *testing.B) {
	cueBin, err := filepath.Abs("../../bin/cue")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(cueBin); err != nil {
		b.Skip("bin/cue missing: run make tools")
	}
	agentcBin := filepath.Join(b.TempDir(), "agentc")
	if out, err := exec.Command("go", "build", "-o", agentcBin, "../../cmd/agentc").CombinedOutput(); err != nil {
		b.Fatalf("building agentc: %v\n%s", err, out)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			if err := synth.WriteDir(dir, synth.Files(n)); err != nil {
				b.Fatal(err)
			}
			run := func(name string, args ...string) time.Duration {
				t0 := time.Now()
				cmd := exec.Command(name, args...)
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%s %v: %v\n%s", name, args, err, out)
				}
				return time.Since(t0)
			}
			var agentc, ref time.Duration
			for b.Loop() {
				agentc += run(agentcBin, "vet", ".")
				ref += run(cueBin, "vet", "-c=false", ".")
			}
			b.ReportMetric(float64(agentc.Nanoseconds())/float64(b.N), "agentc-ns/op")
			b.ReportMetric(float64(ref.Nanoseconds())/float64(b.N), "cue-ns/op")
			b.ReportMetric(float64(agentc)/float64(ref), "x-cue")
		})
	}
}
