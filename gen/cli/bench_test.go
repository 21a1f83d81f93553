package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/internal/synth"
)

// BenchmarkCommands runs the built agentc's vet, gen (into an empty
// directory), gen again on an unchanged spec, and check, against the real
// `cue vet -c=false` (bin/cue), as processes, on the same synthetic spec of
// 6, 100 and 1,000 tools, in the same iterations. For each command it
// reports the wall time per run (<cmd>-ms), its ratio to cue vet
// (<cmd>-x-cue: the target is 2), the peak resident memory over the runs
// (<cmd>-MB), and for gen the time per tool (gen-ms/tool). gen-same-x-vet
// is an unchanged gen over vet. gen-edit is gen after a one-line edit of
// the spec, into the same directory (the spec author's loop without
// --watch). The commands keep their cache (package stamp) in a directory of
// the test's (TestMain).
//
// Skipped without bin/cue (`make tools`); fails under CI.
func BenchmarkCommands(b *testing.B) {
	root, err := filepath.Abs("../..")
	if err != nil {
		b.Fatal(err)
	}
	cue := filepath.Join(root, "bin", "cue")
	if _, err := os.Stat(cue); err != nil {
		if os.Getenv("CI") != "" {
			b.Fatalf("bin/cue is missing under CI: run `make tools` first")
		}
		b.Skipf("bin/cue is missing: run `make tools` to benchmark against cue vet")
	}
	agentc := filepath.Join(b.TempDir(), "agentc")
	build := exec.Command("go", "build", "-o", agentc, "./cmd/agentc")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building agentc: %v\n%s", err, out)
	}
	for _, n := range []int{6, 100, 1000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "spec")
			if err := synth.WriteDir(dir, synth.Files(n)); err != nil {
				b.Fatal(err)
			}
			tools := filepath.Join(dir, "synthetic_tools.cue")
			orig, err := os.ReadFile(tools)
			if err != nil {
				b.Fatal(err)
			}
			edited := false
			same := filepath.Join(b.TempDir(), "same")
			measure(b, dir, agentc, "gen", "--spec", ".", "--out", same)
			type cmd struct {
				name string
				args func() []string
				wall time.Duration
				rss  int64 // KiB
			}
			cmds := []*cmd{
				{name: "cue-vet", args: func() []string { return []string{cue, "vet", "-c=false", "."} }},
				{name: "vet", args: func() []string { return []string{agentc, "vet", "."} }},
				{name: "gen", args: func() []string {
					return []string{agentc, "gen", "--spec", ".", "--out", filepath.Join(b.TempDir(), "out")}
				}},
				{name: "gen-same", args: func() []string { return []string{agentc, "gen", "--spec", ".", "--out", same} }},
				{name: "check", args: func() []string { return []string{agentc, "check", "--spec", ".", "--out", same} }},
				{name: "gen-edit", args: func() []string {
					// A one-line edit, then gen: the spec author's loop without --watch.
					edited = !edited
					data := orig
					if edited {
						data = bytes.Replace(orig, []byte("Synthetic tool 0: saves"), []byte("Synthetic tool 0: now saves"), 1)
					}
					if err := os.WriteFile(tools, data, 0o644); err != nil {
						b.Fatal(err)
					}
					return []string{agentc, "gen", "--spec", ".", "--out", same}
				}},
			}
			// Run gen-edit twice first (an edit and back), so that every
			// measured run starts from a tree the run before generated.
			for range 2 {
				args := cmds[len(cmds)-1].args()
				measure(b, dir, args[0], args[1:]...)
			}
			runs := 0
			for b.Loop() {
				for _, c := range cmds {
					args := c.args()
					wall, rss := measure(b, dir, args[0], args[1:]...)
					c.wall += wall
					c.rss = max(c.rss, rss)
				}
				runs++
			}
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(runs) }
			ref := cmds[0].wall
			for _, c := range cmds {
				b.ReportMetric(ms(c.wall), c.name+"-ms")
				b.ReportMetric(float64(c.rss)/1024, c.name+"-MB")
				if c.name != "cue-vet" {
					b.ReportMetric(float64(c.wall)/float64(ref), c.name+"-x-cue")
				}
			}
			b.ReportMetric(ms(cmds[2].wall)/float64(n), "gen-ms/tool")
			b.ReportMetric(float64(cmds[3].wall)/float64(cmds[1].wall), "gen-same-x-vet")
		})
	}
}

// measure runs name with args in dir and returns its wall time and peak
// resident memory (KiB).
func measure(b *testing.B, dir, name string, args ...string) (time.Duration, int64) {
	b.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	began := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(began)
	if err != nil {
		b.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
	return d, peakRSS(cmd.ProcessState)
}
