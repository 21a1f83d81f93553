package cli

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/internal/cputime"
	"github.com/agentc-dev/agentc/gen/internal/synth"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/gen/write"
)

// BenchmarkWrite measures how gen writes what the emitters produce, three
// ways in the same iterations: "staged", as gen does, while the emitters
// run (emit.GenerateStaged into a write.Run); "after", through a
// write.Run only once every emitter finished; and the peer, the writer
// before write.Run (emit.Generate, then write.Plan and write.Apply). Each
// emits the same spec, loaded once, into a new directory (new-*) and
// again into its last directory after a one-line edit of a tool's
// description (edit-*, alternating between two loaded specs).
// <case>-<way>-ms is the time from the start of emission to the last file
// written, <case>-<way>-tail-ms the part of it after the last emitter
// finished, <case>-<way>-cpu-ms the processor time of the whole (emitting
// included: the same work every way), and <case>-<way>-x-peer the ratio
// of the time to the peer's.
func BenchmarkWrite(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			orig, edited := twoSpecs(b, n)
			type result struct{ total, tail, cpu time.Duration }
			ways := []struct {
				name   string
				staged bool
				put    func(out string, files []emit.File) error
				res    [2]result // new, edit
			}{{name: "staged", staged: true}, {name: "after", put: writeRun}, {name: "peer", put: writePeer}}
			runs := 0
			for b.Loop() {
				for i := range ways {
					w := &ways[i]
					out := filepath.Join(b.TempDir(), "out")
					c0 := cputime.Used()
					total, tail := timed(b, orig, out, w.staged, w.put)
					w.res[0] = result{w.res[0].total + total, w.res[0].tail + tail, w.res[0].cpu + cputime.Used() - c0}
					s := edited
					if runs%2 == 1 {
						// Back and forth: the edit then changes the files
						// the last run's edit changed.
						timed(b, edited, out, w.staged, w.put)
						s = orig
					}
					c0 = cputime.Used()
					total, tail = timed(b, s, out, w.staged, w.put)
					w.res[1] = result{w.res[1].total + total, w.res[1].tail + tail, w.res[1].cpu + cputime.Used() - c0}
				}
				runs++
			}
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(runs) }
			peer := ways[len(ways)-1].res
			for i, c := range []string{"new", "edit"} {
				for _, w := range ways {
					r := w.res[i]
					b.ReportMetric(ms(r.total), c+"-"+w.name+"-ms")
					b.ReportMetric(ms(r.tail), c+"-"+w.name+"-tail-ms")
					b.ReportMetric(ms(r.cpu), c+"-"+w.name+"-cpu-ms")
					if w.name != "peer" {
						b.ReportMetric(float64(r.total)/float64(peer[i].total), c+"-"+w.name+"-x-peer")
					}
				}
			}
		})
	}
}

// twoSpecs loads the synthetic spec of n tools, and the same after a
// one-line edit of a tool's description.
func twoSpecs(b *testing.B, n int) (orig, edited *model.Spec) {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "spec")
	files := synth.Files(n)
	for i := range 2 {
		if i == 1 {
			files["synthetic_tools.cue"] = bytes.Replace(files["synthetic_tools.cue"], []byte("Synthetic tool 0: saves"), []byte("Synthetic tool 0: now saves"), 1)
		}
		if err := synth.WriteDir(dir, files); err != nil {
			b.Fatal(err)
		}
		src, err := specSource(dir)
		if err != nil {
			b.Fatal(err)
		}
		s, err := load.Load(src)
		if err != nil {
			b.Fatal(err)
		}
		orig, edited = edited, s
	}
	return orig, edited
}

// timed emits s and writes the files under out: staged, through a Run
// handed each emitter's files as it succeeds (as gen does), else with
// put once every emitter finished. It returns the time from the start of
// emission to the last file written, and the part of it after the last
// emitter finished.
func timed(b *testing.B, s *model.Spec, out string, staged bool, put func(out string, files []emit.File) error) (total, tail time.Duration) {
	t0 := time.Now()
	var run *write.Run
	var stage func([]emit.File)
	if staged {
		run = write.Begin(out, write.Options{})
		stage = run.Stage
	}
	files, err := emit.GenerateStaged(s, stage)
	if err != nil {
		b.Fatal(err)
	}
	t1 := time.Now()
	if staged {
		_, err = run.Commit(files)
	} else {
		err = put(out, files)
	}
	if err != nil {
		b.Fatal(err)
	}
	return time.Since(t0), time.Since(t1)
}

// writeRun writes files under out through a Run, staged all at once.
func writeRun(out string, files []emit.File) error {
	r := write.Begin(out, write.Options{})
	r.Stage(files)
	_, err := r.Commit(files)
	return err
}

// writePeer writes files under out as gen did before write.Run.
func writePeer(out string, files []emit.File) error {
	changes, err := write.Plan(out, files)
	if err == nil {
		err = write.Apply(write.OS{}, out, changes)
	}
	return err
}

// BenchmarkWriteFiles measures the writing alone, of files emitted once:
// through a write.Run (staged all at once, then committed) against the
// peer, write.Plan and write.Apply, in the same iterations; into a new
// directory (new-*) and over the other spec's files (edit-*: a one-line
// edit of a tool's description). <case>-<way>-ms is the wall time,
// <case>-<way>-cpu-ms the processor time, <case>-run-x-peer the ratio of
// the run's time to the peer's.
func BenchmarkWriteFiles(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			s, t := twoSpecs(b, n)
			orig, err := emit.Generate(s)
			if err != nil {
				b.Fatal(err)
			}
			edited, err := emit.Generate(t)
			if err != nil {
				b.Fatal(err)
			}
			type result struct{ wall, cpu time.Duration }
			ways := []struct {
				name  string
				write func(out string, files []emit.File) error
				res   [2]result // new, edit
			}{{name: "run", write: writeRun}, {name: "peer", write: writePeer}}
			runs := 0
			for b.Loop() {
				for i := range ways {
					w := &ways[i]
					out := filepath.Join(b.TempDir(), "out")
					for c, files := range [][]emit.File{orig, edited} {
						t0, c0 := time.Now(), cputime.Used()
						if err := w.write(out, files); err != nil {
							b.Fatal(err)
						}
						w.res[c].wall += time.Since(t0)
						w.res[c].cpu += cputime.Used() - c0
					}
				}
				runs++
			}
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(runs) }
			for c, name := range []string{"new", "edit"} {
				for _, w := range ways {
					b.ReportMetric(ms(w.res[c].wall), name+"-"+w.name+"-ms")
					b.ReportMetric(ms(w.res[c].cpu), name+"-"+w.name+"-cpu-ms")
				}
				b.ReportMetric(float64(ways[0].res[c].wall)/float64(ways[1].res[c].wall), name+"-run-x-peer")
			}
		})
	}
}
