package load_test

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/emitters"
	"github.com/agentc-dev/agentc/gen/internal/nodetool"
	"github.com/agentc-dev/agentc/gen/internal/scratch"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
)

// vet loads a spec as agentc vet does: the loader, then every emitter's
// check on the model it built. It returns the model, or nil with vet's
// findings.
func vet(files map[string][]byte) (*model.Spec, error) {
	s, err := load.Load(load.Bytes("spec", files))
	if err != nil {
		return nil, err
	}
	if err := emit.Check(s, emitters.All()).Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// TestVetAcceptsOnlyWhatGenGenerates: for every spec of the corpora that
// agentc vet accepts — the default spec, the corpus's base,
// each broken case, the stored fuzz inputs, the accepted cases in
// testdata/accepted, the first contract version and the coverage spec —
// every emitter succeeds (agentc gen cannot fail on it), and the Go it
// generates builds and vets, and the TypeScript type-checks (tsc --strict),
// all specs' output in one scratch module.
func TestVetAcceptsOnlyWhatGenGenerates(t *testing.T) {
	t.Parallel()
	specs := corpora(t)
	mod := scratch.New(t)
	trees := map[string]string{"": "the scratch module"} // tree → spec
	tsDirs := map[string][]string{}
	accepted := 0
	for _, name := range slices.Sorted(maps.Keys(specs)) {
		s, err := vet(specs[name])
		if err != nil {
			if strings.HasPrefix(name, "accepted/") {
				t.Errorf("%s: vet must accept the case, got:\n%v", name, err)
			}
			continue
		}
		tree := fmt.Sprintf("t%d", accepted)
		accepted++
		// The generated packages live in the scratch module, and import
		// the copies of their runtimes written beside them.
		s.Codegen.GoImport, s.Codegen.GoRuntime = scratch.Path+"/"+tree+"/"+s.Codegen.GoDir, ""
		if s.Codegen.MCP != nil {
			s.Codegen.MCP.CoreImport, s.Codegen.MCP.Runtime = s.Codegen.GoImport, ""
		}
		files, err := emit.Generate(s, emitters.All(), emit.Options{})
		if err != nil {
			t.Errorf("%s: vet accepts the spec but gen fails:\n%v", name, err)
			continue
		}
		mod.Add(t, tree, files)
		trees[tree] = name
		tsDirs[tree] = []string{s.Codegen.OpenCodeDir, s.Codegen.TSDir}
	}
	if want := 2 + len(acceptedCases(t)) + 2; accepted < want {
		t.Errorf("only %d specs loaded, want at least %d (default, base, accepted cases, v0, coverage)", accepted, want)
	}
	t.Logf("%d specs accepted", accepted)
	t.Run("go vet", func(t *testing.T) {
		t.Parallel()
		findings, err := mod.GoVet()
		if err != nil {
			t.Fatal(err)
		}
		for tree, lines := range findings {
			t.Errorf("%s: vet accepts the spec but go vet fails:\n%s", trees[tree], strings.Join(lines, "\n"))
		}
	})
	t.Run("tsc", func(t *testing.T) {
		t.Parallel()
		if err := mod.LinkNodeModules(nodetool.Dir(t)); err != nil {
			t.Fatal(err)
		}
		findings, err := mod.TSC(nodetool.Node(t), nodetool.Tsc(t), tsDirs)
		if err != nil {
			t.Fatal(err)
		}
		for tree, lines := range findings {
			t.Errorf("%s: vet accepts the spec but tsc --strict fails:\n%s", trees[tree], strings.Join(lines, "\n"))
		}
	})
}

// TestEmitterCasesReachTheEmitter: each broken case whose comment names
// emitters ("emitter: go", or several run together) is one they reject:
// without the loader's checks that mirror the emitters the spec loads, and
// generating it with that emitter fails. So every finding those checks add stands for
// a real failure of gen, and the case covers that emitter's error path.
func TestEmitterCasesReachTheEmitter(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob(filepath.Join("testdata", "broken", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, line := range strings.Split(string(ar.Comment), "\n") {
			if v, ok := strings.CutPrefix(line, "emitter:"); ok {
				names = strings.Fields(v)
			}
		}
		if len(names) == 0 {
			continue
		}
		n++
		name := strings.TrimSuffix(filepath.Base(p), ".txtar")
		files := baseFiles(t)
		for _, f := range ar.Files {
			if f.Name != "want" {
				files[f.Name] = f.Data
			}
		}
		s, err := load.LoadWithoutEmitChecks(load.Bytes("spec", files))
		if err != nil {
			t.Errorf("%s: without the emitter checks the spec should load, got:\n%v", name, err)
			continue
		}
		if _, err := emit.Generate(s, emitters.All(), emit.Options{Only: names}); err == nil {
			t.Errorf("%s: emitters %v generate the spec; the case does not reach their error path", name, names)
		} else {
			t.Logf("%s: %v", name, strings.ReplaceAll(err.Error(), "\n", " | ")[:min(len(err.Error()), 200)])
		}
	}
	if n < 6 {
		t.Errorf("%d broken cases name an emitter, want at least 6", n)
	}
}

// corpora returns every spec of the corpora, by name: the default spec,
// the corpus's base, each broken case, the stored fuzz inputs, the accepted
// cases in testdata/accepted, the first contract version and the coverage
// spec.
func corpora(t *testing.T) map[string]map[string][]byte {
	specs := map[string]map[string][]byte{}
	sets, _ := fuzzSets(t)
	for i, set := range sets {
		specs[fmt.Sprintf("fuzz set %d", i)] = set
	}
	for name, in := range storedFuzzInputs(t) {
		specs[name] = in.apply(sets)
	}
	for name, files := range acceptedCases(t) {
		specs["accepted/"+name] = files
	}
	for _, dir := range []string{"../../spec/testdata/v0", "../tsgen/testdata/coverage"} {
		src, err := load.Dir(dir)
		if err != nil {
			t.Fatal(err)
		}
		specs[dir] = src.Files
	}
	return specs
}

// acceptedCases reads testdata/accepted: the base spec with each case's
// files added, specs vet must accept (edge cases of what the emitters
// name and write).
func acceptedCases(t testing.TB) map[string]map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "accepted", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string][]byte{}
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files := baseFiles(t)
		for _, f := range ar.Files {
			files[f.Name] = f.Data
		}
		out[strings.TrimSuffix(filepath.Base(p), ".txtar")] = files
	}
	return out
}

// fuzzInput is one stored FuzzLoad input: a splice into one file of one set.
type fuzzInput struct {
	set    uint16
	file   uint8
	off    uint32
	cut    uint16
	insert []byte
}

// apply returns the spec FuzzLoad builds from the input.
func (in fuzzInput) apply(sets []map[string][]byte) map[string][]byte {
	files := maps.Clone(sets[int(in.set)%len(sets)])
	names := slices.Sorted(maps.Keys(files))
	name := names[int(in.file)%len(names)]
	old := files[name]
	at := int(in.off % uint32(len(old)+1))
	end := min(len(old), at+int(in.cut))
	files[name] = slices.Concat(old[:at], in.insert, old[end:])
	return files
}

// storedFuzzInputs reads testdata/fuzz/FuzzLoad (Go's corpus format: one
// typed value a line, in FuzzLoad's argument order).
func storedFuzzInputs(t *testing.T) map[string]fuzzInput {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzLoad", "*"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]fuzzInput{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var vals []string
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			line := sc.Text()
			if open := strings.IndexByte(line, '('); open > 0 && strings.HasSuffix(line, ")") {
				vals = append(vals, line[open+1:len(line)-1])
			}
		}
		if len(vals) != 5 {
			t.Fatalf("%s: %d values, want 5", p, len(vals))
		}
		num := func(s string) uint64 {
			if q, err := strconv.Unquote(s); err == nil && len(q) == 1 { // byte('\x02')
				return uint64(q[0])
			}
			v, err := strconv.ParseUint(s, 0, 64)
			if err != nil {
				t.Fatalf("%s: %q: %v", p, s, err)
			}
			return v
		}
		insert, err := strconv.Unquote(vals[4])
		if err != nil {
			t.Fatalf("%s: %q: %v", p, vals[4], err)
		}
		out["fuzz input "+filepath.Base(p)] = fuzzInput{uint16(num(vals[0])), uint8(num(vals[1])), uint32(num(vals[2])), uint16(num(vals[3])), []byte(insert)}
	}
	return out
}
