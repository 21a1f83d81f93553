package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	cueload "cuelang.org/go/cue/load"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/internal/synth"
)

// BenchmarkWatchEdit measures what gen --watch does after a one-line edit
// of a 100-tool spec (a tool's description, alternating between two
// texts): load, generate, compare and write the changed files, with the
// state a watching agentc keeps from run to run. The peer, in the same
// iterations, is CUE's own evaluation of the same spec in process (what
// cue vet does, without its process start); x-cue is the ratio. Both run
// with the collector's target a watch sets (watchGC). The target is under
// 100 ms per edit (regen-ms/op).
func BenchmarkWatchEdit(b *testing.B) {
	for _, n := range []int{100} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "spec")
			if err := synth.WriteDir(dir, synth.Files(n)); err != nil {
				b.Fatal(err)
			}
			file := filepath.Join(dir, "synthetic_tools.cue")
			orig, err := os.ReadFile(file)
			if err != nil {
				b.Fatal(err)
			}
			edited := bytes.Replace(orig, []byte("Synthetic tool 7: saves"), []byte("Synthetic tool 7: edited, saves"), 1)
			defer watchGC()()
			sf := &specFlags{specChoice: specChoice{spec: dir}, out: filepath.Join(b.TempDir(), "out"), session: emit.Session{}}
			if _, err := genOnce(sf, nil); err != nil {
				b.Fatal(err)
			}
			var regen, ref []time.Duration
			i := 0
			for b.Loop() {
				data := edited
				if i%2 == 1 {
					data = orig
				}
				i++
				if err := os.WriteFile(file, data, 0o644); err != nil {
					b.Fatal(err)
				}
				t0 := time.Now()
				r, err := genOnce(sf, nil)
				if err != nil {
					b.Fatal(err)
				}
				if len(r.written) == 0 {
					b.Fatal("the edit wrote nothing")
				}
				t1 := time.Now()
				if err := cueEval(dir); err != nil {
					b.Fatal(err)
				}
				regen = append(regen, t1.Sub(t0))
				ref = append(ref, time.Since(t1))
			}
			ms := func(ds []time.Duration) float64 { return float64(median(ds)) / float64(time.Millisecond) }
			b.ReportMetric(ms(regen), "regen-ms/op")
			b.ReportMetric(ms(ref), "cue-eval-ms/op")
			b.ReportMetric(float64(median(regen))/float64(median(ref)), "x-cue")
		})
	}
}

// cueEval is CUE's evaluation of the spec in dir, as cue vet -c=false does
// it.
func cueEval(dir string) error {
	insts := cueload.Instances([]string{"."}, &cueload.Config{Dir: dir})
	if err := insts[0].Err; err != nil {
		return err
	}
	return cuecontext.New().BuildInstance(insts[0]).Validate(cue.Concrete(false))
}
