package cli

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/internal/synth"
)

// BenchmarkCommands runs the built agentc's vet, gen (into an empty
// directory), check, and gen after a one-line edit, against the real
// `cue vet -c=false` (bin/cue), as processes, on the same synthetic spec of
// 6, 100 and 1,000 tools, in the same iterations. For each command it
// reports the median wall time of its runs (<cmd>-ms), its ratio to cue
// vet's median (<cmd>-x-cue: the target is 2), the peak resident memory over the runs
// (<cmd>-MB), and for gen the time per tool (gen-ms/tool). gen-edit is gen
// after a one-line edit of the spec, into the directory of the gen before
// (the spec author's loop without --watch); check checks that directory.
//
// files-ms is the floor of gen's writing on this filesystem, now: the
// time to create gen's files (same paths and sizes, one goroutine, plain
// os.WriteFile) in an empty directory, measured in each iteration. It
// varies more than anything agentc does: ext4 skips the inodes of files
// deleted in the last minutes when it allocates one, so creating files
// after many were deleted can cost ten times as much (perf: most of the
// time in ext4's recently_deleted). The outputs are therefore kept until
// the whole benchmark ends, not deleted between sizes.
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
	// Every output stays until the end (files-ms above): one directory
	// per run, numbered.
	outs := b.TempDir()
	newOut := func() string {
		d, err := os.MkdirTemp(outs, "out")
		if err != nil {
			b.Fatal(err)
		}
		return d
	}
	for _, n := range []int{6, 100, 1000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			dir := filepath.Join(newOut(), "spec")
			if err := synth.WriteDir(dir, synth.Files(n)); err != nil {
				b.Fatal(err)
			}
			tools := filepath.Join(dir, "synthetic_tools.cue")
			orig, err := os.ReadFile(tools)
			if err != nil {
				b.Fatal(err)
			}
			edited := false
			same := filepath.Join(newOut(), "same")
			measure(b, dir, agentc, "gen", "--spec", ".", "--out", same)
			generated := readTree(b, same)
			if len(generated) == 0 {
				b.Fatalf("gen wrote nothing under %s", same)
			}
			type cmd struct {
				name  string
				args  func() []string
				walls []time.Duration
				rss   int64 // KiB
			}
			cmds := []*cmd{
				{name: "cue-vet", args: func() []string { return []string{cue, "vet", "-c=false", "."} }},
				{name: "vet", args: func() []string { return []string{agentc, "vet", "."} }},
				{name: "gen", args: func() []string {
					return []string{agentc, "gen", "--spec", ".", "--out", filepath.Join(newOut(), "out")}
				}},
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
			var files []time.Duration
			for b.Loop() {
				for _, c := range cmds {
					args := c.args()
					wall, rss := measure(b, dir, args[0], args[1:]...)
					c.walls = append(c.walls, wall)
					c.rss = max(c.rss, rss)
				}
				files = append(files, writeTree(b, filepath.Join(newOut(), "files"), generated))
			}
			ms := func(walls []time.Duration) float64 { return float64(median(walls)) / float64(time.Millisecond) }
			byName := map[string]*cmd{}
			for _, c := range cmds {
				byName[c.name] = c
			}
			ref := median(byName["cue-vet"].walls)
			for _, c := range cmds {
				b.ReportMetric(ms(c.walls), c.name+"-ms")
				b.ReportMetric(float64(c.rss)/1024, c.name+"-MB")
				if c.name != "cue-vet" {
					b.ReportMetric(float64(median(c.walls))/float64(ref), c.name+"-x-cue")
				}
			}
			b.ReportMetric(ms(byName["gen"].walls)/float64(n), "gen-ms/tool")
			b.ReportMetric(ms(files), "files-ms")
		})
	}
}

// median returns the middle of ds (the mean of the two middle ones when
// their number is even): one slow run, the machine busy for a moment,
// does not move it.
func median(ds []time.Duration) time.Duration {
	s := slices.Sorted(slices.Values(ds))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// measure runs name with args in dir and returns its wall time and peak resident memory (KiB). It starts the
// command through a launcher, this test binary freshly started (launch):
// a process's peak, as wait4 reports it, counts the memory of the process
// it was forked from, and this benchmark's own process holds far more than
// a freshly started one.
func measure(b *testing.B, dir, name string, args ...string) (time.Duration, int64) {
	b.Helper()
	cmd := exec.Command(os.Args[0], append([]string{name}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "AGENTC_BENCH_LAUNCH=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, stderr.Bytes())
	}
	var wall time.Duration
	var rss int64
	if _, err := fmt.Sscanf(stdout.String(), "%d %d", &wall, &rss); err != nil {
		b.Fatalf("launcher's report %q: %v", stdout.String(), err)
	}
	return wall, rss
}

// launch runs args as a command, its output going to stderr, and prints
// its wall time (ns) and peak resident memory (KiB) on stdout. It is
// measure's launcher: forked from a small process, the command's peak is
// its own.
func launch(args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	began := time.Now()
	err := cmd.Run()
	wall := time.Since(began)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("%d %d\n", wall, peakRSS(cmd.ProcessState))
	return 0
}

// writeTree creates files (readTree's) under root, which must not exist,
// one after the other in order of path, and returns how long that took.
func writeTree(b *testing.B, root string, files map[string]string) time.Duration {
	b.Helper()
	began := time.Now()
	made := map[string]bool{}
	for _, rel := range slices.Sorted(maps.Keys(files)) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if d := filepath.Dir(p); !made[d] {
			if err := os.MkdirAll(d, 0o755); err != nil {
				b.Fatal(err)
			}
			made[d] = true
		}
		if err := os.WriteFile(p, []byte(files[rel]), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(began)
}
