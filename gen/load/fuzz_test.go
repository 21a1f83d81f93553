package load_test

import (
	"bytes"
	"errors"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/agentc-dev/agentc/gen/diag"
	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/emitters"
	"github.com/agentc-dev/agentc/gen/internal/synth"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
	"github.com/agentc-dev/agentc/spec"
)

// fuzzSets returns the specs FuzzLoad mutates, in a fixed order: the
// embedded default spec, the corpus's base, the base with each broken
// case applied, the base with each accepted case applied, and a synthetic
// spec of 8 tools. For each it also lists the files worth seeding (all of the
// default's and the base's; a case's own files).
func fuzzSets(f testing.TB) (sets []map[string][]byte, seeds [][]string) {
	def := map[string][]byte{}
	err := fs.WalkDir(spec.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		def[p], err = spec.FS.ReadFile(p)
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	base := baseFiles(f)
	sets = append(sets, def, base)
	seeds = append(seeds, slices.Sorted(maps.Keys(def)), slices.Sorted(maps.Keys(base)))

	paths, err := filepath.Glob(filepath.Join("testdata", "broken", "*.txtar"))
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			f.Fatal(err)
		}
		files := maps.Clone(base)
		var own []string
		for _, file := range ar.Files {
			if file.Name != "want" {
				files[file.Name] = file.Data
				own = append(own, file.Name)
			}
		}
		sets = append(sets, files)
		seeds = append(seeds, own)
	}
	// The accepted cases and a small synthetic spec (after the broken
	// cases, so that stored inputs keep their set).
	accepted := acceptedCases(f)
	for _, name := range slices.Sorted(maps.Keys(accepted)) {
		files := accepted[name]
		var own []string
		for _, file := range slices.Sorted(maps.Keys(files)) {
			if !bytes.Equal(files[file], base[file]) {
				own = append(own, file)
			}
		}
		sets = append(sets, files)
		seeds = append(seeds, own)
	}
	sets = append(sets, synth.Files(8))
	seeds = append(seeds, []string{"synthetic_tools.cue"})
	return sets, seeds
}

// loadTimeout bounds one Load: a spec of a few kilobytes that takes longer
// has sent the loader (or CUE) into a loop.
const loadTimeout = 10 * time.Second

// FuzzLoad mutates one file of a known spec — it replaces cut bytes at off
// with insert — and loads the result. (A splice keeps inputs small, so
// that the fuzzer's minimizer is fast, while the mutator still reaches every
// byte of every file.) Load must not panic or hang, must return a model or a
// diag.List of findings (never both, never neither), and every finding must
// have a code, a message and a file; every emitter must generate a spec
// Load accepts.
func FuzzLoad(f *testing.F) {
	sets, seeds := fuzzSets(f)
	for i, names := range seeds {
		all := slices.Sorted(maps.Keys(sets[i]))
		for _, name := range names {
			f.Add(uint16(i), uint8(slices.Index(all, name)), uint32(0), uint16(0), []byte(nil))
		}
	}
	f.Fuzz(func(t *testing.T, set uint16, file uint8, off uint32, cut uint16, insert []byte) {
		files := maps.Clone(sets[int(set)%len(sets)])
		names := slices.Sorted(maps.Keys(files))
		name := names[int(file)%len(names)]
		old := files[name]
		at := int(off % uint32(len(old)+1))
		end := min(len(old), at+int(cut))
		files[name] = slices.Concat(old[:at], insert, old[end:])

		var (
			s    *model.Spec
			err  error
			done = make(chan struct{})
		)
		go func() {
			defer close(done)
			s, err = load.Load(load.Bytes("spec", files))
		}()
		select {
		case <-done:
		case <-time.After(loadTimeout):
			t.Fatalf("Load did not return within %v", loadTimeout)
		}
		switch {
		case s == nil && err == nil:
			t.Fatal("Load returned neither a model nor an error")
		case s != nil && err != nil:
			t.Fatalf("Load returned a model and an error: %v", err)
		case err == nil:
			// What vet accepts (Load, then the emitters' checks), gen
			// generates; the checks' findings are vet's findings.
			all := emitters.All()
			if err = emit.Check(s, all).Err(); err != nil {
				break
			}
			if _, err := emit.Generate(s, all, emit.Options{}); err != nil {
				t.Fatalf("vet accepts the spec but gen fails:\n%v", err)
			}
			return
		}
		var l diag.List
		if !errors.As(err, &l) {
			t.Fatalf("Load's error is a %T, not a diag.List: %v", err, err)
		}
		if len(l) == 0 {
			t.Fatal("Load returned an empty diag.List")
		}
		for _, e := range l {
			if strings.TrimSpace(e.Msg) == "" || e.Code == "" || e.Pos.File == "" {
				t.Errorf("finding without message, code or file: %#v", e)
			}
		}
	})
}
