package tsgen_test

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	"github.com/agentc-dev/agentc/spec"
)

// BenchmarkGenVsCueVet runs, in the same process and the same iterations,
// the built agentc binary's `gen` (load, check, every emitter, write into a
// fresh directory) and the real `cue vet -c=false` (load and check against
// the metaschema; argument schemas are not concrete, hence -c=false) on the
// same synthesized spec of 6, 100 and 1000 tools, and reports each one's
// wall time per run and their ratio (agentc/cue).
//
// The cue binary is bin/cue from `make tools`; without it the benchmark is
// skipped (failed under CI).
func BenchmarkGenVsCueVet(b *testing.B) {
	root := nodetool.ModuleRoot(b)
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
		dir := synthSpec(b, n)
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			var tAgentc, tCue time.Duration
			runs := 0
			for b.Loop() {
				out, err := os.MkdirTemp(b.TempDir(), "out")
				if err != nil {
					b.Fatal(err)
				}
				tAgentc += timeRun(b, "", agentc, "gen", "--spec", dir, "--out", out)
				tCue += timeRun(b, dir, cue, "vet", "-c=false", ".")
				runs++
			}
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(runs) }
			b.ReportMetric(ms(tAgentc), "agentc-gen-ms/op")
			b.ReportMetric(ms(tCue), "cue-vet-ms/op")
			b.ReportMetric(float64(tAgentc)/float64(tCue), "agentc/cue")
		})
	}
}

// timeRun runs name with args in dir ("" for the current directory) and
// returns its wall time.
func timeRun(b *testing.B, dir, name string, args ...string) time.Duration {
	b.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	began := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(began)
	if err != nil {
		b.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
	return d
}

// synthSpec writes the default spec (metaschema and cue.mod included, so
// that cue vet sees what agentc sees) plus enough generated tools to make
// n in all.
func synthSpec(b *testing.B, n int) string {
	b.Helper()
	dir := filepath.Join(b.TempDir(), fmt.Sprintf("spec%d", n))
	err := fs.WalkDir(spec.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := spec.FS.ReadFile(p)
		if err != nil {
			return err
		}
		writeFile(b, filepath.Join(dir, filepath.FromSlash(p)), data)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	const have = 5 // tools in the default spec
	var s strings.Builder
	s.WriteString("package agentc\n\nimport (\n\t\"list\"\n\t\"strings\"\n)\n")
	for i := have; i < n; i++ {
		fmt.Fprintf(&s, `
tools: synth_%[1]d: {
	execution: "gateway"
	description: "Synthetic tool %[1]d for the benchmark."
	args: {
		// The item's name.
		name: strings.MinRunes(1) & strings.MaxRunes(100)
		// How it ends.
		outcome: "succeeded" | "failed"
		// A count.
		count: *1 | int & >=0
		// Its entries.
		entries?: [...{
			key:   string
			path?: #RelativePath & strings.MaxRunes(500)
		}] & list.MaxItems(10)
	}
	result: {id: string}
}
`, i)
	}
	writeFile(b, filepath.Join(dir, "synth.cue"), []byte(s.String()))
	return dir
}
