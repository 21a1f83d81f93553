package gogen

import (
	"bytes"
	"maps"
	"testing"

	"github.com/dave/jennifer/jen"

	"github.com/agentc-dev/agentc/gen/internal/synth"
	"github.com/agentc-dev/agentc/gen/load"
	"github.com/agentc-dev/agentc/gen/model"
)

// TestRenderChunks: formatting the files in chunks, cut at every split
// mark, gives exactly jen's formatting of the whole files.
func TestRenderChunks(t *testing.T) {
	defer func(n int) { minChunk = n }(minChunk)
	minChunk = 1
	for _, src := range []*load.Source{load.Default(), load.Bytes("spec", synth.Files(60))} {
		s, err := load.Load(src)
		if err != nil {
			t.Fatal(err)
		}
		got := renderAll(t, s, true)
		want := renderAll(t, s, false)
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Errorf("%s: chunked formatting differs from jen's", (&generator{}).parts()[i].name)
			}
		}
	}
}

func renderAll(t *testing.T, s *model.Spec, chunked bool) [][]byte {
	t.Helper()
	g, err := newGenerator(s)
	if err != nil {
		t.Fatal(err)
	}
	if !chunked {
		g.mark = ""
	}
	if chunked {
		out, errs := g.render(g.parts())
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	var out [][]byte
	for _, p := range g.parts() {
		f := g.newFile(p.name == "tools.go")
		p.fn(f)
		var buf bytes.Buffer
		if err := f.Render(&buf); err != nil {
			t.Fatal(err)
		}
		out = append(out, buf.Bytes())
	}
	return out
}

// TestRenderCached: with formatting remembered (gen --watch), a second
// render after an edit formats only the declarations the edit changed, and
// every file is the same as without the cache.
func TestRenderCached(t *testing.T) {
	files := synth.Files(30)
	edited := maps.Clone(files)
	edited["synthetic_tools.cue"] = bytes.Replace(files["synthetic_tools.cue"],
		[]byte("strings.MaxRunes(1000)"), []byte("strings.MaxRunes(999)"), 1)
	var specs []*model.Spec
	for _, fs := range []map[string][]byte{files, edited} {
		s, err := load.Load(load.Bytes("spec", fs))
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, s)
	}
	want := renderAll(t, specs[1], false)

	CacheFormatting(true)
	defer CacheFormatting(false)
	renderAll(t, specs[0], true)
	first := formatted.runs.Load()
	got := renderAll(t, specs[1], true)
	again := formatted.runs.Load() - first
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("%s: formatting with the cache differs from jen's", (&generator{}).parts()[i].name)
		}
	}
	if chunks := len(formatted.last); again == 0 || again > 10 || chunks < 100 {
		t.Errorf("after a one-constraint edit, %d of %d declarations were formatted again; want a few (the changed check, the decoder that calls it)", again, chunks)
	}
}

// TestBuildStreams: a part is rendered a declaration at a time, so its
// whole jen tree is never held: decode.go of n tools is rendered in at
// least n pieces, and the result is jen's rendering of the whole file.
func TestBuildStreams(t *testing.T) {
	const n = 40
	s, err := load.Load(load.Bytes("spec", synth.Files(n)))
	if err != nil {
		t.Fatal(err)
	}
	g, errs := newGenerator(s)
	if errs != nil {
		t.Fatal(errs)
	}
	for _, p := range g.parts() {
		var flushes int
		fn := p.fn
		p.fn = func(f *jen.File) {
			fn(f)
			flushes = g.sink.flushes
		}
		got, err := g.build(p)
		if err != nil {
			t.Fatal(err)
		}
		f := g.newFile(p.name == "tools.go")
		fn(f)
		f.NoFormat = true
		var want bytes.Buffer
		if err := f.Render(&want); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: the streamed source differs from jen's render of the whole file", p.name)
		}
		if p.name == "decode.go" && flushes < n {
			t.Errorf("decode.go of %d tools was rendered in %d pieces, want at least %d", n, flushes, n)
		}
	}
}
