package emit_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/diag"
	"github.com/agentc-dev/agentc/gen/emit"
	"github.com/agentc-dev/agentc/gen/internal/synth"
	"github.com/agentc-dev/agentc/gen/internal/testspecs"
	"github.com/agentc-dev/agentc/gen/jsonschema"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
)

// fast produces its files at once.
var fast = &emit.Emitter{Name: "fast", Doc: "many small files", Run: func(*emit.Pass) ([]emit.File, error) {
	var files []emit.File
	for i := range 50 {
		files = append(files, emit.File{Path: fmt.Sprintf("fast/f%02d.json", i), Data: []byte(fmt.Sprintf("{\"i\": %d}\n", i))})
	}
	return append(files, emit.File{Path: "top.json", Data: []byte("{}\n")}), nil
}}

var errSlow = errors.New("slow emitter fails")

// slow returns an emitter that writes one file after a while, or fails
// then if fail is set.
func slow(fail bool) *emit.Emitter {
	return &emit.Emitter{Name: "slow", Doc: "one file, late", Run: func(*emit.Pass) ([]emit.File, error) {
		time.Sleep(10 * time.Millisecond)
		if fail {
			return nil, errSlow
		}
		return []emit.File{{Path: "slow.json", Data: []byte("[]\n")}}, nil
	}}
}

// TestGenerate: the files of every emitter, sorted by path, and the
// manifest listing them; an emitter's failure fails the generation, named.
func TestGenerate(t *testing.T) {
	t.Parallel()
	files, err := emit.Generate(&model.Spec{}, []*emit.Emitter{slow(false), fast}, emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 53 || !slices.IsSortedFunc(files, func(a, b emit.File) int { return strings.Compare(a.Path, b.Path) }) {
		t.Errorf("%d files, sorted: %v; want 53, sorted", len(files), slices.IsSortedFunc(files, func(a, b emit.File) int { return strings.Compare(a.Path, b.Path) }))
	}
	manifest := emit.ParseManifest(files[0].Data)
	if files[0].Path != emit.ManifestName || len(manifest) != 52 || manifest["slow.json"] != emit.Sum([]byte("[]\n")) {
		t.Errorf("the manifest %s lists %d files, want the other 52 with their sums", files[0].Path, len(manifest))
	}
	if _, err := emit.Generate(&model.Spec{}, []*emit.Emitter{fast, slow(true)}, emit.Options{}); !errors.Is(err, errSlow) || !strings.Contains(err.Error(), "emitter slow: ") {
		t.Errorf("Generate = %v, want the slow emitter's failure, named", err)
	}
}

// TestGenerateOnly: Only runs the named emitters, and the manifest lists
// their files.
func TestGenerateOnly(t *testing.T) {
	t.Parallel()
	list := []*emit.Emitter{fast, slow(false)}
	files, err := emit.Generate(&model.Spec{}, list, emit.Options{Only: []string{"slow"}})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	if strings.Join(paths, " ") != "agentc-manifest.txt slow.json" {
		t.Errorf("Only slow generated %v", paths)
	}
	if m := emit.ParseManifest(files[0].Data); len(m) != 1 || m["slow.json"] == "" {
		t.Errorf("Only slow's manifest lists %v", m)
	}
}

// TestGenerateRejects: two emitters writing one path, two paths that differ
// only in case, or a path that leaves the output root, fail the generation
// and name what failed.
func TestGenerateRejects(t *testing.T) {
	t.Parallel()
	one := func(name, p string) *emit.Emitter {
		return &emit.Emitter{Name: name, Run: func(*emit.Pass) ([]emit.File, error) { return []emit.File{{Path: p}}, nil }}
	}
	for _, tc := range []struct {
		list []*emit.Emitter
		want string
	}{
		{[]*emit.Emitter{one("a", "x.json"), one("b", "x.json")}, "two emitters generate x.json"},
		{[]*emit.Emitter{one("a", "t/fooBar.ts"), one("b", "t/foobar.ts")}, "t/fooBar.ts and t/foobar.ts differ only in case"},
		{[]*emit.Emitter{one("a", "Docs/x.md"), one("b", "docs/X.md")}, "Docs/x.md and docs/X.md differ only in case"},
		{[]*emit.Emitter{one("a", "../x.json")}, `emitter a: bad output path "../x.json"`},
		{[]*emit.Emitter{one("a", "..")}, `emitter a: bad output path ".."`},
		{[]*emit.Emitter{one("a", "")}, `emitter a: bad output path ""`},
		{[]*emit.Emitter{one("a", ".")}, `emitter a: bad output path "."`},
		{[]*emit.Emitter{one("a", "/x.json")}, `emitter a: bad output path "/x.json"`},
		{[]*emit.Emitter{one("a", "a/./x.json")}, `emitter a: bad output path "a/./x.json"`},
		{[]*emit.Emitter{one("a", "a//x.json")}, `emitter a: bad output path "a//x.json"`},
		{[]*emit.Emitter{one("a", "a/")}, `emitter a: bad output path "a/"`},
		{[]*emit.Emitter{one("a", "a\\x.json")}, `emitter a: bad output path "a\\x.json"`},
		{[]*emit.Emitter{one("a", "agentc-manifest.txt")}, `emitter a: output path "agentc-manifest.txt" is reserved`},
	} {
		if _, err := emit.Generate(&model.Spec{}, tc.list, emit.Options{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Generate = %v, want %q", err, tc.want)
		}
	}
}

// TestCheck: Check gathers every emitter's findings, and skips an emitter
// without a check.
func TestCheck(t *testing.T) {
	t.Parallel()
	finds := func(code string) func(*model.Spec) diag.List {
		return func(s *model.Spec) diag.List {
			var l diag.List
			l.Add(model.Pos{File: s.Contract.Name}, code, "%s finds this", code)
			return l
		}
	}
	s := &model.Spec{Contract: model.Contract{Name: "c.cue"}}
	l := emit.Check(s, []*emit.Emitter{{Name: "a", Check: finds("a")}, fast, {Name: "b", Check: finds("b")}})
	if len(l) != 2 || l[0].Code != "a" || l[1].Code != "b" || l[1].Pos.File != "c.cue" {
		t.Errorf("Check = %v, want a's finding and b's", l)
	}
}

// TestToolSchemaOnce: in one generation, emitters that ask for a tool's
// JSON Schema, concurrently, all get the bytes jsonschema.Schema writes,
// computed once; the next generation computes them afresh (from the spec
// it is given, edited since).
func TestToolSchemaOnce(t *testing.T) {
	t.Parallel()
	s, err := load.Load(load.Bytes("spec", synth.Files(40)))
	if err != nil {
		t.Fatal(err)
	}
	const askers = 4
	got := make([][][]byte, askers)
	var list []*emit.Emitter
	for i := range askers {
		list = append(list, &emit.Emitter{Name: fmt.Sprint(i), Run: func(p *emit.Pass) ([]emit.File, error) {
			for _, tool := range p.Spec.Tools {
				data, err := p.ToolSchema(tool)
				if err != nil {
					return nil, err
				}
				got[i] = append(got[i], data)
			}
			return nil, nil
		}})
	}
	if _, err := emit.Generate(s, list, emit.Options{}); err != nil {
		t.Fatal(err)
	}
	same := func(a, b []byte) bool { return len(a) > 0 && len(b) > 0 && &a[0] == &b[0] }
	first := got[0]
	for i, tool := range s.Tools {
		want, err := jsonschema.Schema(tool)
		if err != nil {
			t.Fatal(err)
		}
		for a := range askers {
			if !bytes.Equal(got[a][i], want) {
				t.Errorf("%s: emitter %d got other bytes than jsonschema.Schema's", tool.Name, a)
			}
			if !same(got[a][i], first[i]) {
				t.Errorf("%s: computed again for emitter %d", tool.Name, a)
			}
		}
	}
	s.Tools[0].Args.Fields[0].Type.Doc = "Edited between two generations."
	got = make([][][]byte, askers)
	if _, err := emit.Generate(s, list, emit.Options{}); err != nil {
		t.Fatal(err)
	}
	if same(got[0][1], first[1]) || !bytes.Contains(got[0][0], []byte("Edited between two generations.")) {
		t.Error("the next generation reused the last one's schemas")
	}
	// A pass made by hand shares nothing, and computes.
	if data, err := (&emit.Pass{Spec: s}).ToolSchema(s.Tools[0]); err != nil || !bytes.Equal(data, got[0][0]) {
		t.Errorf("a pass of its own: %s, %v", data, err)
	}
}

// TestSessionMemo: in a session, each emitter's pass carries its own
// memo, which holds what the emitter kept in the last generation; outside
// one, passes carry none.
func TestSessionMemo(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := map[string][]any{}
	remember := func(name string) *emit.Emitter {
		return &emit.Emitter{Name: name, Run: func(p *emit.Pass) ([]emit.File, error) {
			if p.Memo == nil {
				mu.Lock()
				seen[name] = append(seen[name], "no memo")
				mu.Unlock()
				return nil, nil
			}
			mu.Lock()
			seen[name] = append(seen[name], p.Memo.Kept)
			mu.Unlock()
			n, _ := p.Memo.Kept.(int)
			p.Memo.Kept = n + len(name)
			return nil, nil
		}}
	}
	list := []*emit.Emitter{remember("a"), remember("bb")}
	s := testspecs.Load(t, "")
	session := emit.Session{}
	for range 3 {
		if _, err := emit.Generate(s, list, emit.Options{Session: session}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := emit.Generate(s, list, emit.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(seen["a"], seen["bb"]); got != "[<nil> 1 2 no memo] [<nil> 2 4 no memo]" {
		t.Errorf("memos seen by a and bb: %s", got)
	}
}
